//===- GPULowering.h - State of one kernel's GPU lowering ------*- C++ -*-===//
//
// Private to lib/Conversion/TileToGPU. TileToGPU.cpp builds the gpu.func,
// walks the kernel and lowers scalar code, loops and element-wise tiles;
// NvidiaMemory.cpp lowers copies, shared loads and stores (for AMD too:
// plain vector loads instead of ldmatrix), AmdMemory.cpp AMD's copies into
// LDS with buffer loads; NvidiaMma.cpp
// lowers tile.mma to mma.sync, AmdMfma.cpp to v_mfma; NvidiaTma.cpp the
// sm_90a TMA buffers, their copies and mbarriers, and wgmma;
// ConvertLayout.cpp moves tiles between layouts.
//
// A register tile with layout L (its #tile.linear encoding) becomes one
// vector per thread with one element per register of L.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_CONVERSION_TILETOGPU_GPULOWERING_H
#define TESSERA_LIB_CONVERSION_TILETOGPU_GPULOWERING_H

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Layout/LinearLayout.h"
#include "tessera/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <array>
#include <map>

namespace tessera {
struct LdmatrixPlan;

class GPULowering {
public:
  GPULowering(tile::KernelOp kernel, const TargetInfo &target,
              mlir::gpu::GPUModuleOp gpuModule);
  mlir::LogicalResult run();

private:
  // --- Structure (TileToGPU.cpp) ------------------------------------------
  mlir::LogicalResult lowerBlock(mlir::Block &block);
  mlir::LogicalResult lowerOp(mlir::Operation *op);
  mlir::LogicalResult lowerFor(mlir::scf::ForOp loop);
  /// An scf.if, whose register tiles are yielded as the threads' vectors.
  mlir::LogicalResult lowerIf(mlir::scf::IfOp branch);
  mlir::LogicalResult lowerElementwise(mlir::Operation *op);
  mlir::LogicalResult lowerConstant(mlir::arith::ConstantOp op);
  mlir::Value index(int64_t value);
  /// Whether the lowering made a lowered tile a splat (a broadcast of a
  /// scalar, a splat constant).
  static bool isSplat(mlir::Value vector);
  /// The scalar every register of a splat holds (a new scalar constant for
  /// a splat constant); null for other tiles.
  mlir::Value splatScalar(mlir::Value vector);
  /// The layout of a register tile (its encoding).
  static LinearLayout layoutOf(mlir::Value tile);
  /// The per-thread vector type of a register tile.
  static mlir::VectorType vectorTypeOf(mlir::Value tile);
  /// Whether this thread is the one of the threads holding the same
  /// elements under `layout` (its lane and warp broadcast bits are 0); null
  /// when no other thread holds them.
  mlir::Value ownsElements(const LinearLayout &layout);
  /// The tile coordinate register `reg` of this thread holds under `layout`.
  llvm::SmallVector<mlir::Value> coordinate(const LinearLayout &layout,
                                            uint64_t reg);

  // --- Memory (NvidiaMemory.cpp) ------------------------------------------
  struct SharedBuffer {
    mlir::Value memref;
    Swizzle swizzle;
    bool ring = false;
    /// int4 nibble pairs [.., n, 2] stored as bytes [.., n].
    bool packed = false;
  };
  mlir::LogicalResult lowerAllocShared(tile::AllocSharedOp op);
  /// The kernel's dynamic shared memory (created in the prologue once).
  mlir::Value dynamicSharedMemory();
  /// A scratch buffer of `count` elements in shared memory, placed after
  /// the buffers so far; fails, on `op`, when it does not fit (`purpose`
  /// says what it is for).
  mlir::FailureOr<mlir::Value> scratchBuffer(mlir::Operation *op, int64_t count,
                                             mlir::Type element,
                                             llvm::StringRef purpose);
  mlir::LogicalResult lowerCopy(tile::CopyOp op);
  /// A 16-byte chunk of a copy into shared memory that one thread moves.
  struct CopyChunk {
    /// Its coordinate in the tile and in the view.
    mlir::Value tileRow, tileCol, row, col;
    /// How many of its elements lie inside the view (0 to 16 bytes' worth).
    mlir::Value count;
    /// The view indices it starts at (the view's origin when none of it is
    /// inside) and the buffer indices of its first element.
    llvm::SmallVector<mlir::Value> source, dest;
  };
  /// Calls `emit` for each chunk this thread moves in `op`'s copy of a tile
  /// of `shape` (elements of `bytes`) from `view` at `offsets` into
  /// `buffer`, under a guard when other threads hold the same chunk; a
  /// gathering copy's chunk rows are those its row indices choose.
  mlir::LogicalResult
  forEachCopyChunk(tile::CopyOp op, llvm::ArrayRef<int64_t> shape,
                   int64_t bytes, mlir::Value view, mlir::ValueRange offsets,
                   const SharedBuffer &buffer, mlir::Value slot,
                   llvm::function_ref<void(const CopyChunk &)> emit);
  /// How many of the `run` elements of a view row from (row, col) lie
  /// inside a view of `rows` x `cols` (0 when the row is outside).
  mlir::Value runInside(mlir::Value row, mlir::Value col, mlir::Value rows,
                        mlir::Value cols, int64_t run);
  /// Moves a chunk element by element with plain loads, zeros past its
  /// count (rows that are not 16-byte aligned).
  void copyElements(const CopyChunk &chunk, mlir::Value view,
                    const SharedBuffer &buffer, mlir::Type element,
                    int64_t vec);
  // --- AMD copies and stores through buffer resources (AmdMemory.cpp) -----
  /// A raw buffer resource over a view from a tile's origin (its last two
  /// offsets and the leading ones): num_records the view's bytes from
  /// there, 0 when the origin is past the view. `fits` when every offset
  /// a tile of `shape` reaches is below 2^31 bytes.
  struct BufferWindow {
    mlir::Value resource, pitch, fits;
  };
  BufferWindow bufferWindow(mlir::Value view,
                            llvm::ArrayRef<mlir::Value> offsets,
                            llvm::ArrayRef<int64_t> shape, int64_t bytes);
  /// The byte offset (i32) of tile element (row, col) in `window`.
  mlir::Value bufferOffset(const BufferWindow &window, mlir::Value row,
                           mlir::Value col, int64_t bytes);
  /// Whether a run of `run` elements of which `count` lie inside the view
  /// takes one buffer load: `direct` (aligned rows, offsets that fit) and
  /// all or none of it inside; `none` is set to the latter.
  mlir::Value wholeRun(mlir::Value direct, mlir::Value count, int64_t run,
                       mlir::Value &none);
  /// One raw buffer load of a run of `type` at tile element (tileRow,
  /// tileCol) of `window`, out of range (zeros) when `none`.
  mlir::Value loadBufferRun(const BufferWindow &window, mlir::Value none,
                            mlir::Value tileRow, mlir::Value tileCol,
                            int64_t bytes, mlir::VectorType type);
  /// An offset out of every window's range (2^31): loads there return
  /// zeros, stores there are dropped.
  mlir::Value outOfRange();
  /// Stores each register of a 2-D `tile` (laid out by `layout`) into
  /// `view` at `offsets` with raw buffer stores, those outside the view or
  /// whose thread is not the `owner` (ownsElements; null: every thread
  /// owns its elements) at an out-of-range offset; `storeElements` when
  /// the tile spans more than 2 GiB of the view.
  void storeThroughBuffer(mlir::Value value, const LinearLayout &layout,
                          mlir::Value owner, mlir::Value view,
                          llvm::ArrayRef<mlir::Value> offsets,
                          mlir::Type element,
                          llvm::function_ref<void()> storeElements);
  /// A 2-D register tile of `type` (laid out by `layout`) loaded from
  /// `view` at `offsets` with raw buffer loads of its runs of registers
  /// along a row, zeros outside the view; null when the runs are not 8 or
  /// 16 bytes.
  mlir::Value loadThroughBuffer(mlir::Value view,
                                llvm::ArrayRef<mlir::Value> offsets,
                                const LinearLayout &layout,
                                mlir::VectorType type);
  /// `op`'s copy into LDS with raw buffer loads from a resource whose
  /// extent is the view's from the tile's origin.
  mlir::LogicalResult lowerBufferCopy(tile::CopyOp op, mlir::Value view,
                                      llvm::ArrayRef<mlir::Value> offsets,
                                      llvm::ArrayRef<int64_t> shape,
                                      mlir::Type element,
                                      const SharedBuffer &buffer,
                                      mlir::Value slot);
  mlir::LogicalResult lowerSharedLoad(tile::LoadOp op);
  /// A register tile into a shared buffer: runs of registers that hold
  /// consecutive elements of a row inside one swizzle chunk with one vector
  /// store each (16 bytes for a coalesced copy layout), by one of the
  /// threads that hold them.
  mlir::LogicalResult lowerSharedStore(tile::StoreOp op);
  /// Stores (or atomically adds) each register's element of `tile` into
  /// the view `dest` at `offsets`, rows chosen by `rows` when given (a
  /// scatter); what falls outside the view is skipped.
  mlir::LogicalResult storeToView(mlir::Operation *op, mlir::Value tile,
                                  mlir::Value dest, mlir::ValueRange offsets,
                                  mlir::Value rows, bool atomic);
  /// How a 2-D register tile of `type` laid out by `layout` meets `view`
  /// at `offsets` run by run: the registers per run along a row and their
  /// element bytes, the view's rows and columns, and whether every run
  /// starts 16-byte aligned in a row (the rows aligned, the column offset a
  /// multiple of the run).
  struct ViewRuns {
    int64_t run, bytes;
    mlir::Value rows, cols, direct;
  };
  /// None when the runs are shorter than 4 bytes (or 1 element).
  std::optional<ViewRuns> viewRuns(mlir::Value view,
                                   llvm::ArrayRef<mlir::Value> offsets,
                                   const LinearLayout &layout,
                                   mlir::VectorType type);
  /// NVIDIA: stores the 2-D register tile `value` (laid out by `layout`)
  /// into `view` at `offsets` with one vector store per run of registers
  /// along a row where the view's rows are 16-byte aligned, the column
  /// offset is a multiple of the run and the run lies inside the view,
  /// element by element otherwise; only the `owner` threads (ownsElements;
  /// null: all) store. False (nothing emitted) when the runs are shorter
  /// than 4 bytes.
  bool storeRuns(mlir::Value value, const LinearLayout &layout,
                 mlir::Value owner, mlir::Value view,
                 llvm::ArrayRef<mlir::Value> offsets);
  /// Reads each register's element of `tile` from the view `source` at
  /// `offsets`, rows chosen by `rows` when given (a gather); `pad` (zero
  /// when null) outside the view.
  mlir::LogicalResult loadFromView(mlir::Operation *op, mlir::Value source,
                                   mlir::ValueRange offsets, mlir::Value tile,
                                   mlir::Attribute pad, mlir::Value rows);
  /// A 2-D register tile of `type` (laid out by `layout`) loaded from
  /// `view` at `offsets`, rows chosen by `rows` when given (a gather), with
  /// one vector load per run of registers along a row (4, 8 or 16 bytes)
  /// where the view's rows are 16-byte aligned, the tile's column offset is
  /// a multiple of the run and the run lies inside the view; element by
  /// element with `pad` past the view otherwise. Null when the runs are
  /// shorter; failure (reported on `op`) when a thread does not hold the
  /// row indices of its rows.
  mlir::FailureOr<mlir::Value> loadRuns(mlir::Operation *op, mlir::Value view,
                                        llvm::ArrayRef<mlir::Value> offsets,
                                        const LinearLayout &layout,
                                        mlir::VectorType type, mlir::Value pad,
                                        mlir::Value rows,
                                        const LinearLayout &rowsLayout);
  /// The view indices of element `e` of a run from `at` (its last index
  /// the run's first column) and whether it is one of the run's first
  /// `count` (inside the view).
  std::pair<llvm::SmallVector<mlir::Value>, mlir::Value>
  runElement(llvm::ArrayRef<mlir::Value> at, mlir::Value count, int64_t e);
  /// The `run` elements of a view row from `at` (its last index the first
  /// column) one by one, `pad` from the `count`-th on.
  mlir::Value loadRunElements(mlir::Value view, llvm::ArrayRef<mlir::Value> at,
                              mlir::Value count, int64_t run, mlir::Value pad);
  /// A register tile of `type` (laid out by `layout`) built run by run of
  /// `run` registers along a row: `load` gives the run from register `reg`
  /// (at tile coordinate `coord`); runs that repeat another's elements (a
  /// broadcast bit) copy them.
  mlir::FailureOr<mlir::Value>
  buildRuns(const LinearLayout &layout, mlir::VectorType type, int64_t run,
            llvm::function_ref<mlir::FailureOr<mlir::Value>(
                int64_t, llvm::ArrayRef<mlir::Value>)>
                load);
  /// The view indices of a tile element at `coord` (the tile's offsets plus
  /// the coordinate in the innermost dimensions, or plus `row` in the first
  /// of them when given) and whether it lies inside the view.
  std::pair<llvm::SmallVector<mlir::Value>, mlir::Value>
  viewElement(mlir::Value view, mlir::ValueRange offsets,
              llvm::ArrayRef<mlir::Value> coord, mlir::Value row = {});
  /// The row index (an index value) this thread's register `reg` of a tile
  /// laid out by `layout` is gathered from or scattered to: the element of
  /// `rows` (laid out by `rowsLayout`) that holds its row. Null when `rows`
  /// is; an error on `op` and null when the thread does not hold it.
  mlir::Value rowIndex(mlir::Value rows, const LinearLayout &rowsLayout,
                       const LinearLayout &layout, uint64_t reg,
                       mlir::Operation *op);
  /// The indices of element (row, col) of `buffer` (slot first for a ring).
  llvm::SmallVector<mlir::Value> sharedIndices(const SharedBuffer &buffer,
                                               mlir::Value slot,
                                               mlir::Value row,
                                               mlir::Value col);
  /// The indices of the element this thread's register `reg` holds under
  /// `layout` in `buffer`: a per-thread base plus a constant. The bases are
  /// computed once in the prologue, one per value of the register bits
  /// that the swizzle mixes with the thread's bits, so that the backend
  /// folds the constants into the instructions' immediate offsets instead
  /// of keeping an address per register.
  llvm::SmallVector<mlir::Value> sharedIndices(const SharedBuffer &buffer,
                                               mlir::Value slot,
                                               const LinearLayout &layout,
                                               uint64_t reg);
  /// Whether a view's rows start 16-byte aligned (computed once per view).
  mlir::Value rowsAligned(mlir::Value view, int64_t bytes);

  // --- sm_90a: TMA copies and wgmma (NvidiaTma.cpp) ------------------------
  /// A tensor map parameter: the kernel argument it describes and its box.
  struct TensorMap {
    unsigned arg;
    int64_t boxCols, boxRows;
    mlir::Value pointer;
  };
  /// A tile.tma buffer: panels of `rowBytes`-byte rows (the swizzle span:
  /// 128, or 64 or 32 for narrower tiles), 1024-byte aligned slots.
  struct TmaBuffer {
    int64_t offset = 0, rows = 0, panels = 0, slotBytes = 0;
    int64_t firstBarrier = 0, elementBytes = 0, rowBytes = 128;
    /// Ping-pong consumers' buffers: the bytes of one set's copy (each
    /// set addresses its own) and, for those TMA fills, the mbarriers of
    /// one set's (after the first set's); 0 for one copy.
    int64_t setBytes = 0, setBarriers = 0;
  };
  /// Appends a pointer parameter per distinct (argument, box) that copies
  /// into tile.tma buffers read.
  mlir::LogicalResult planTensorMaps(llvm::SmallVectorImpl<mlir::Type> &args);
  /// The map a copy into a TMA buffer reads through: its source argument
  /// and a box of one swizzle span of a row by the buffer's rows (no
  /// parameter yet).
  /// The same for a TMA store (tile.copy_out of a TMA buffer) into its
  /// destination argument.
  static TensorMap tensorMapOf(mlir::Operation *copy);
  /// The planned tensor map a copy into (or out of) a TMA buffer uses, if
  /// any.
  TensorMap *tensorMapFor(mlir::Operation *copy);
  /// The byte offset in a slot of TMA buffer `buffer` of 16-byte chunk
  /// `chunk` of row `row` (index values): its panel's, then the row's,
  /// then the chunk's swizzled place in the row.
  mlir::Value tmaChunkOffset(const TmaBuffer &buffer, mlir::Value row,
                             mlir::Value chunk);
  /// A loop over 16-byte chunks first, first + stride, ... of a TMA
  /// buffer's slot of `cols` columns (row-major): `body` gets the chunk's
  /// row, first column and shared address (i64), inside the loop.
  void forEachTmaChunk(const TmaBuffer &buffer, int64_t cols, mlir::Value slot,
                       mlir::Value first, mlir::Value stride,
                       llvm::function_ref<void(mlir::Value row, mlir::Value col,
                                               mlir::Value address)>
                           body);
  /// TMA stores (TmaStores.cpp): a register tile into a TMA buffer (stored
  /// as TMA reads it, then fenced for the async proxy), and the buffer to
  /// its destination view (cp.async.bulk.tensor from one thread, or the
  /// threads' masked stores when the runtime gave no tensor map).
  mlir::LogicalResult lowerTmaStore(tile::StoreOp op);
  /// stmatrix of register tile `value` (16-bit) into a TMA buffer's slot,
  /// by the inverse of ldmatrix plan `plan`.
  void storeMatrices(const LdmatrixPlan &plan, mlir::Value value,
                     const TmaBuffer &buffer, mlir::Value slot);
  mlir::LogicalResult lowerCopyOut(tile::CopyOutOp op);
  mlir::LogicalResult lowerTmaAlloc(tile::AllocSharedOp op);
  mlir::LogicalResult lowerTmaCopy(tile::CopyOp op);
  /// A gathering copy into a TMA buffer: each thread's 16-byte cp.async
  /// chunks at the rows its index registers choose, where TMA would put
  /// them (TmaGathers.cpp).
  mlir::LogicalResult lowerTmaGather(tile::CopyOp op);
  /// A vector of `type` whose element e is `view` at the indices
  /// `element(e)` gives where it says the element is inside, zero
  /// elsewhere (masked element loads of one 16-byte chunk).
  mlir::Value loadMaskedVector(
      mlir::Value view, mlir::VectorType type,
      llvm::function_ref<
          std::pair<llvm::SmallVector<mlir::Value>, mlir::Value>(int64_t)>
          element);
  /// Element `e` of a copy chunk: its view indices and whether it lies
  /// inside the view.
  std::pair<llvm::SmallVector<mlir::Value>, mlir::Value>
  chunkElement(const CopyChunk &chunk, int64_t e);
  /// Makes the calling thread's shared stores (and completed cp.async
  /// writes) visible to the async proxy that wgmma and TMA read through.
  void fenceForAsyncProxy();
  mlir::LogicalResult lowerTmaLoad(tile::LoadOp op);
  /// The threads' copy into a TMA buffer when the tensor map is null:
  /// chunks `first`, `first + stride`, ... of the tile, then a proxy fence
  /// (the caller makes the fill's arrival).
  void copyWithoutMap(tile::CopyOp op, const TmaBuffer &buffer,
                      mlir::Value slot, mlir::Value first, mlir::Value stride);
  /// `if (map == null) {} else {}` for a copy's tensor map `map` (null:
  /// the runtime could not encode one; the threads copy instead).
  mlir::scf::IfOp ifNullMap(mlir::Value map);
  /// The bulk tensor copies of a copy into a TMA buffer's `slot` through
  /// `map`, completing on the mbarrier at `barrier`.
  void issueTmaPanels(tile::CopyOp op, const TmaBuffer &buffer,
                      mlir::Value slot, mlir::Value map, mlir::Value barrier);
  mlir::LogicalResult lowerWgmma(tile::MmaOp op);
  /// wgmma.wait_group `pending` with the f32 accumulators it makes
  /// readable passing through it (returned): their readers cannot move
  /// above it. The vector form waits for a vector of accumulators.
  llvm::SmallVector<mlir::Value>
  waitWgmma(int64_t pending, llvm::ArrayRef<mlir::Value> accumulators);
  mlir::Value waitWgmma(int64_t pending, mlir::Value accumulators);
  /// The wgmma of `loop` whose group may stay in flight into the next
  /// iteration (WgmmaOverlap.cpp), with the order to lower the body in
  /// (the ring copies moved after the MMA and the barrier); null if none.
  tile::MmaOp planWgmmaOverlap(mlir::scf::ForOp loop,
                               llvm::SmallVectorImpl<mlir::Operation *> &order);
  /// The four 32-bit registers of wgmma's register A operand (16-bit or
  /// 8-bit `a` in wgmma's register fragments) for the 64-row block whose
  /// first row warp 0 holds is `row`, K step `k0`.
  llvm::SmallVector<mlir::Value, 4> registerFragment(mlir::Value a, int64_t row,
                                                     int64_t k0);
  /// One wgmma.mma_async.m64nNk16 (`type` bf16 or f16) or m64nNk32
  /// (e4m3, B K-major) with A in registers and B from descriptor `descB`
  /// (K-major when `kMajorB`), accumulating into `d` (a struct of N / 2
  /// f32): inline PTX, which NVVM has no op for.
  mlir::Value registerWgmma(mlir::Type fragment, mlir::Value d,
                            llvm::ArrayRef<mlir::Value> a, mlir::Value descB,
                            int64_t n, llvm::StringRef type, bool kMajorB);
  /// Waits for the pending fill of mbarrier `id` (an i32), if any.
  void waitPending(mlir::Value id);
  /// Waits for every pending fill (before exits and async_wait 0).
  void drainTma();
  /// Flips bit `id` of parity mask `which` (0 issued, 1 waited for).
  void flipPhase(int64_t which, mlir::Value id);
  mlir::Value barrierIndex(const TmaBuffer &buffer, mlir::Value slot);
  mlir::Value barrierPointer(mlir::Value id);
  /// The shared address (i64) of a slot, of a byte offset, as a pointer.
  mlir::Value slotAddress(const TmaBuffer &buffer, mlir::Value slot);
  mlir::Value sharedAddress(int64_t offset);
  mlir::Value sharedPointer(mlir::Value address);
  mlir::Value index32(int64_t value);
  /// Whether this is thread 0 of the block (the one that issues TMA); in
  /// ping-pong consumers, thread 0 of the thread's consumer set.
  mlir::Value isThreadZero();
  /// The thread's index among the kernel's `threads` (in ping-pong
  /// consumers, within its consumer set).
  mlir::Value threadInSet();

  // --- Warp-specialized roles on sm_90a (WarpSpecialize.cpp) --------------
  /// Which role's code is being lowered.
  enum class Role { All, Producer, Consumer };
  mlir::LogicalResult lowerWarpSpecialize(tile::WarpSpecializeOp op);
  /// The consumer region of a ping-pong tile.warp_specialize: each
  /// consumer set runs the tile loop's body for its own tiles, in order.
  mlir::LogicalResult lowerPingPongConsumers(tile::WarpSpecializeOp op);
  mlir::LogicalResult lowerPingPongTiles(mlir::scf::ForOp tiles,
                                         mlir::scf::ForOp main);
  /// Whether ping-pong consumers write `buffer` (a shared buffer not a
  /// ring), so that each consumer set has a copy of its own.
  bool perConsumerSet(mlir::Value buffer);
  /// `offset` in the copy of the thread's consumer set, copies `stride`
  /// apart (an index): a byte offset, or a named barrier's id.
  mlir::Value inConsumerSet(int64_t offset, int64_t stride);
  mlir::LogicalResult lowerAllocMbarrier(tile::AllocMbarrierOp op);
  /// A tile.mbarrier_wait or tile.mbarrier_arrive.
  mlir::LogicalResult lowerMbarrierOp(mlir::Operation *op);
  /// A producer's copy into a TMA ring slot, completing on the barrier of
  /// the producer's next arrival.
  mlir::LogicalResult lowerRoleCopy(tile::CopyOp op);
  /// The address of barrier `slot` of an mbarrier array (`slot` a tile
  /// value, or for mbarrierAt a lowered index).
  mlir::Value mbarrierPointer(mlir::Value barrier, mlir::Value slot);
  mlir::Value mbarrierAt(mlir::Value barrier, mlir::Value slot);
  /// A consumer loop whose wgmma may keep its group in flight: each
  /// iteration waits for a fill, reads both operands from TMA rings, issues
  /// the one wgmma (its accumulator chained), then releases slots of rings
  /// of at least 2 stages. The releases (in `releases`) are then made one
  /// iteration late, after `wgmma.wait_group 1`; null if none.
  tile::MmaOp
  planDeferredReleases(mlir::scf::ForOp loop,
                       llvm::SmallVectorImpl<tile::MbarrierArriveOp> &releases);
  /// Spins until the phase of `parity` (an i32) of the mbarrier at
  /// `barrier` has completed (acquiring at cluster scope where the
  /// arrivals come from the cluster's programs).
  void spinOnParity(mlir::Value barrier, mlir::Value parity,
                    bool cluster = false);
  /// One tile-level arrival on barrier `slot` (a lowered index) of the
  /// mbarrier array `barrier`: on this program's, or for a cluster array on
  /// every program's of the cluster (through distributed shared memory).
  void arriveOn(mlir::Value barrier, mlir::Value slot);
  /// Whether the producer role fills `buffer` (its fills are waited for
  /// on the roles' mbarriers, not on the buffer's own).
  static bool filledByProducer(mlir::Value buffer);
  /// A barrier among the threads running the code being lowered: the
  /// block's, or the consumers' named barrier in the consumer role.
  void syncThreads();

  // --- Compute (NvidiaMma.cpp, AmdMfma.cpp) -------------------------------
  mlir::LogicalResult lowerMma(tile::MmaOp op);
  mlir::LogicalResult lowerMfma(tile::MmaOp op);
  /// The layouts of an MMA's A, B and accumulator as [M, K], [K, N] and
  /// [M, N] (a transposed operand's layout transposed).
  std::array<LinearLayout, 3> mmaLayouts(tile::MmaOp op);
  /// An error unless each warp's rows of A are its rows of the accumulator
  /// and its columns of B its columns.
  mlir::LogicalResult checkWarpPlacement(tile::MmaOp op, const LinearLayout &la,
                                         const LinearLayout &lb,
                                         const LinearLayout &lc);
  /// Whether this kernel is lowered for an AMD chip.
  bool isAmd() const { return target.vendor == Vendor::Amd; }

  // --- Packed codes and dequantization (Quantized.cpp) --------------------
  mlir::LogicalResult lowerUnpack(tile::UnpackOp op);
  mlir::LogicalResult lowerDequant(tile::DequantOp op);
  /// int8 or f8E4M3FN codes and per-group scales of a real tile: each
  /// thread reduces |x| over its registers of a group, then over the lanes
  /// that share the group with butterfly shuffles (groups must not span
  /// warps).
  mlir::LogicalResult lowerQuant(tile::QuantOp op);
  /// The registers of an MMA operand as the MMA takes them: f8E4M3FN codes
  /// (held as their bits) decoded to bf16, which holds them exactly; other
  /// operands as they are. Sets `element` to the type the MMA multiplies.
  mlir::Value mmaOperand(mlir::Value operand, mlir::Type &element);
  /// A vector of f32 values that bf16 holds exactly, as bf16.
  mlir::Value exactBf16(mlir::Value real);
  /// f8E4M3FN codes (i8 bits) as the f8E4M3FNUZ codes of half their
  /// values, for gfx942's fp8 MFMA: the same bits but for -0 (0x80, NaN in
  /// FNUZ) made +0 and the NaNs (0x7F, 0xFF) made FNUZ's NaN (0x80).
  mlir::Value fnuzCodes(mlir::Value codes);
  /// The bytes of an int4 nibble-pair view, without the pair dimension
  /// (computed once per view).
  mlir::Value pairBytes(mlir::Value view);

  // --- Reductions (Reductions.cpp) ----------------------------------------
  mlir::LogicalResult lowerReduce(tile::ReduceOp op);
  /// `value` combined (by `kind`) across the lanes that differ in
  /// `laneBits`, one shfl.sync.bfly per bit: every such lane gets the result.
  mlir::Value butterfly(mlir::Value value, llvm::ArrayRef<unsigned> laneBits,
                        tile::ReduceKind kind);
  /// Combines (by `kind`) each of this thread's `values` with those of the
  /// threads of its lane in the warps that differ from its own in
  /// `warpBits`, through a scratch buffer of shared memory: every thread
  /// stores its values, a barrier, every thread loads its group's in one
  /// order (so that they agree), a barrier (the buffer is reused when `op`
  /// runs again). Fails, on `op`, when the buffer does not fit.
  mlir::LogicalResult acrossWarps(mlir::Operation *op,
                                  llvm::MutableArrayRef<mlir::Value> values,
                                  llvm::ArrayRef<unsigned> warpBits,
                                  tile::ReduceKind kind);
  mlir::LogicalResult lowerBroadcast(tile::BroadcastOp op);
  /// The register of `slice` (the layout of a tile without dimensions
  /// `dropped` of the tile `full` lays out, or with them of size 1 when
  /// `keepRank`) that holds, in every thread, what register `reg` of `full`
  /// holds with those dimensions dropped (or 0); none when some thread does
  /// not hold it.
  std::optional<uint64_t> heldRegister(const LinearLayout &slice,
                                       const LinearLayout &full, uint64_t reg,
                                       llvm::ArrayRef<unsigned> dropped,
                                       bool keepRank = false);
  /// A scalar element of a tile that every thread holds.
  mlir::LogicalResult lowerExtract(mlir::tensor::ExtractOp op);

  // --- Layout conversions (ConvertLayout.cpp) ------------------------------
  mlir::LogicalResult lowerConvertLayout(tile::ConvertLayoutOp op);

  tile::KernelOp kernel;
  const TargetInfo &target;
  mlir::gpu::GPUModuleOp gpuModule;
  mlir::OpBuilder builder;
  mlir::Location loc;
  mlir::gpu::GPUFuncOp func;
  /// Where values computed once per thread go (the entry block's start).
  mlir::Block::iterator prologueEnd;
  mlir::IRMapping mapping;
  llvm::DenseMap<mlir::Value, SharedBuffer> shared;
  llvm::DenseMap<mlir::Value, mlir::Value> aligned;
  llvm::DenseMap<mlir::Value, mlir::Value> bytes;
  /// fp8 codes made by tile.quant: their values as bf16, computed from the
  /// quantized reals without a decoding (the bits go unused, and are
  /// dropped, when only MMAs read them).
  llvm::DenseMap<mlir::Value, mlir::Value> bf16Codes;
  mlir::Value lane, warp;
  /// Ping-pong kernels: the consumer set of the thread (thread id div the
  /// kernel's threads; 2 in the producer); null otherwise. The sets
  /// launched (1 without ping-pong), each with its own copies of what the
  /// consumers write.
  mlir::Value consumerGroup;
  int64_t consumerSets = 1;
  /// The kernel's dynamic shared memory and the bytes its buffers take.
  mlir::Value dynamicShared;
  int64_t sharedBytes = 0;
  /// sm_90a: tensor maps, TMA buffers, the mbarriers (after the buffers
  /// placed before the first TMA buffer; -1 before it), the per-thread
  /// parity masks, and the slot each wgmma operand reads.
  llvm::SmallVector<TensorMap> tensorMaps;
  llvm::DenseMap<mlir::Value, TmaBuffer> tmaBuffers;
  /// Whether the kernel has TMA stores: commits and waits then close and
  /// wait for bulk groups too, and the kernel's end waits for them.
  bool hasTmaStores = false;
  /// Whether copies gather rows into TMA buffers: each wait for copies then
  /// fences the thread's rows for the async proxy.
  bool hasTmaGathers = false;
  int64_t barrierOffset = -1, nextBarrier = 0;
  mlir::Value phases, sharedBase;
  llvm::DenseMap<mlir::Value, std::pair<TmaBuffer, mlir::Value>>
      descriptorOperands;
  /// tile.alloc_mbarrier arrays by their shared offset; the role lowered.
  llvm::DenseMap<mlir::Value, int64_t> mbarrierOffsets;
  Role role = Role::All;
  /// The wgmma whose group the loop being lowered keeps in flight.
  mlir::Operation *overlappedWgmma = nullptr;
  /// The lane- and warp-dependent part of each layout's coordinates.
  std::map<std::string, llvm::SmallVector<mlir::Value>> threadParts;
  /// The per-thread bases of shared-memory indices (sharedIndices).
  std::map<std::string, mlir::Value> sharedBases;
  int64_t numWarps;
};

/// The gpu.func argument type of a view: a strided memref with a unit
/// innermost stride.
mlir::MemRefType getGPUViewType(tile::ViewType view);
/// How an element is held in memory and registers: int4 codes as i8 (two
/// per byte in memory, one sign-extended code per i8 in registers).
mlir::Type getGPUStorageType(mlir::Type element);
/// Whether `layout` starts with the register bases and has the lane bases
/// of `atom` (a tiling of one instruction's fragments).
bool extendsAtom(const LinearLayout &layout, const LinearLayout &atom);
/// Whether `memory` is a shared buffer marked tile.tma.
bool isTmaBuffer(mlir::Value memory);
/// The lane bits (`shuffleBits`) and warp bits (`warpBits`) of `layout`
/// whose bases move within what `op` combines (a reduced dimension, a
/// quantization group): `moves` says, of a basis, whether it moves within
/// and whether it moves across; a basis that does both is an error on `op`
/// ("input layout moves lane bit N " + `both`).
mlir::LogicalResult
combinedBits(mlir::Operation *op, const LinearLayout &layout,
             llvm::function_ref<std::pair<bool, bool>(const Coord &)> moves,
             llvm::StringRef both, llvm::SmallVectorImpl<unsigned> &shuffleBits,
             llvm::SmallVectorImpl<unsigned> &warpBits);
/// A math op on float tiles, `operands` its inputs' registers and `type`
/// its result's (Math.cpp): each element through the vendor's library, or
/// the hardware's approximation where the op's fastmath flags include
/// `afn`. Null for ops on other types.
mlir::Value lowerMathOp(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Operation *op, mlir::ValueRange operands,
                        mlir::VectorType type, bool amd);
/// Nibble `which` (an index, 0 or 1) of `byte`, sign-extended to i8.
mlir::Value nibble(mlir::OpBuilder &b, mlir::Location loc, mlir::Value byte,
                   mlir::Value which);

} // namespace tessera

#endif // TESSERA_LIB_CONVERSION_TILETOGPU_GPULOWERING_H
