//===- NvidiaTma.cpp - TMA copies and wgmma on sm_90a ---------------------===//
//
// Shared buffers marked `tile.tma` (tile-assign-layouts: filled only by
// copies from 2-D or 3-D kernel arguments, read only by wgmma) are stored the
// way TMA writes them with 128-byte swizzling: panels of 128-byte rows (64
// 16-bit columns) one after the other, each panel `rows` x 128 bytes, the
// 16-byte chunk c of row r at chunk c ^ (r % 8). Tiles whose rows are 64
// or 32 bytes (8-bit K-major operands) are one panel with 64- or 32-byte
// swizzling: the chunk index within the row XOR the same bits of the
// row's offset from bit 7 up. Buffers and ring slots are 1024-byte aligned
// so that the hardware's address-based swizzle agrees.
//
// Each copy source gets a tensor map: a kernel parameter (a pointer to the
// 128-byte CUtensorMap the runtime encodes from the view and the box the
// gpu.func's `tessera.tensor_maps` attribute names). One thread issues a
// copy as mbarrier.arrive.expect_tx on the slot's mbarrier followed by one
// cp.async.bulk.tensor per panel. Every thread keeps two bit masks in
// registers: the parity of fills issued to each mbarrier and of fills it
// has waited for. A read (the wgmma's tile.load) waits, if a fill is
// pending, with mbarrier.try_wait.parity; async_wait 0 and the kernel's
// return wait for every pending fill, so that no bulk copy is in flight
// when the block exits. Commit groups do not apply to these copies.
//
// tile.mma of kind wgmma: warpgroup g issues, per 64-row block and k16
// step, wgmma.mma_async.m64nNk16 with A (K-major) and B (N-major, or
// K-major when transposed) matrix descriptors into the slots, or with A in
// registers (an A not loaded from a tile.tma buffer, in the register
// fragments: inline PTX, as NVVM's op takes A by descriptor only); for
// f8E4M3FN codes, per k32 step, m64nNk32.e4m3 with A in registers and B
// K-major (the only layout 8-bit wgmma reads), then
// commits and waits for the group before the accumulator is used, so that a
// later copy may refill the slots after the next barrier (or, in a K loop
// that keeps one group in flight, WgmmaOverlap.cpp, for the previous
// iteration's group).
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

/// The alignment of TMA buffers (the 128-byte swizzle's repeating block).
static constexpr int64_t kSwizzleBytes = 1024;

bool tessera::isTmaBuffer(Value memory) {
  Operation *alloc = memory.getDefiningOp<tile::AllocSharedOp>();
  return alloc && tile::TileDialect::TmaAttrHelper(memory.getContext())
                      .isAttrPresent(alloc);
}

/// The programs that share a copy's rows: those of its cluster for a
/// multicast copy (each issues its share of the rows for all of them).
static int64_t rowSharers(tile::CopyOp copy) {
  return copy.getMulticast()
             ? tile::clusterBlocks(copy->getParentOfType<tile::KernelOp>())
             : 1;
}

GPULowering::TensorMap GPULowering::tensorMapOf(Operation *op) {
  auto copy = dyn_cast<tile::CopyOp>(op);
  auto out = dyn_cast<tile::CopyOutOp>(op);
  tile::SharedType type =
      copy ? copy.getDest().getType() : out.getSource().getType();
  Value arg = copy ? copy.getSource() : out.getDest();
  int64_t bytes = type.getStoredElementBits() / 8;
  return {cast<BlockArgument>(arg).getArgNumber(),
          tile::tmaSwizzleSpan(type) / bytes,
          type.getShape()[0] / (copy ? rowSharers(copy) : 1), Value()};
}

LogicalResult GPULowering::planTensorMaps(SmallVectorImpl<Type> &argTypes) {
  auto pointer = LLVM::LLVMPointerType::get(kernel.getContext());
  WalkResult walk = kernel.walk([&](tile::CopyOp copy) {
    if (!isTmaBuffer(copy.getDest()))
      return WalkResult::advance();
    if (isAmd() || target.asyncCopy != AsyncCopyKind::Tma) {
      copy.emitOpError("into a tile.tma buffer needs sm_90a, not ")
          << target.chip;
      return WalkResult::interrupt();
    }
    // Gathered rows come by the threads' cp.async (TmaGathers.cpp).
    if (copy.getRows()) {
      hasTmaGathers = true;
      return WalkResult::advance();
    }
    auto arg = dyn_cast<BlockArgument>(copy.getSource());
    int64_t rank = copy.getSource().getType().getRank();
    if (!arg || arg.getOwner() != &kernel.getBody().front() || rank < 2 ||
        rank > 3) {
      copy.emitOpError("into a tile.tma buffer must copy from a 2-D or 3-D "
                       "kernel argument");
      return WalkResult::interrupt();
    }
    // A multicast copy's share of rows starts a 1024-byte swizzle atom (8
    // rows of 128 bytes) in every panel.
    if (int64_t sharers = rowSharers(copy);
        sharers > 1 && copy.getDest().getType().getShape()[0] % (8 * sharers)) {
      copy.emitOpError() << "multicast among " << sharers
                         << " programs needs a multiple of " << 8 * sharers
                         << " rows";
      return WalkResult::interrupt();
    }
    if (tensorMapFor(copy))
      return WalkResult::advance();
    tensorMaps.push_back(tensorMapOf(copy));
    argTypes.push_back(pointer);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // TMA stores: tile-assign-layouts marked their buffers for sm_90a only,
  // copying into a 2-D or 3-D kernel argument.
  kernel.walk([&](tile::CopyOutOp out) {
    if (!isTmaBuffer(out.getSource()))
      return;
    hasTmaStores = true;
    if (tensorMapFor(out))
      return;
    tensorMaps.push_back(tensorMapOf(out));
    argTypes.push_back(pointer);
  });
  return success();
}

GPULowering::TensorMap *GPULowering::tensorMapFor(Operation *op) {
  TensorMap want = tensorMapOf(op);
  for (TensorMap &map : tensorMaps)
    if (map.arg == want.arg && map.boxCols == want.boxCols &&
        map.boxRows == want.boxRows)
      return &map;
  return nullptr;
}

Value GPULowering::sharedAddress(int64_t offset) {
  // The dynamic shared memory's address as an i64, computed once.
  if (!sharedBase) {
    OpBuilder::InsertionGuard guard(builder);
    Value shared = dynamicSharedMemory();
    builder.setInsertionPointAfterValue(shared);
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, shared);
    sharedBase =
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(), base);
  }
  return arith::AddIOp::create(
      builder, loc, sharedBase,
      arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), offset));
}

Value GPULowering::sharedPointer(Value address) {
  auto shared = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  return LLVM::IntToPtrOp::create(builder, loc, shared, address);
}

LogicalResult GPULowering::lowerTmaAlloc(tile::AllocSharedOp op) {
  tile::SharedType type = op.getType();
  int64_t bytes = type.getStoredElementBits() / 8;
  SmallVector<int64_t> shape = type.getStoredShape();
  if (!tile::tmaSwizzleSpan(type))
    return op.emitOpError("marked tile.tma must have rows of 32, 64 or a "
                          "multiple of 128 bytes, a multiple of 8 and at "
                          "most 256 rows");
  // The first TMA buffer that copies fill also places the mbarriers (8
  // bytes per slot of every such buffer) and has thread 0 initialize them.
  // Buffers that TMA stores read (tile.copy_out) need none.
  auto filled = [](Value buffer) {
    return llvm::any_of(buffer.getUsers(), [](Operation *user) {
      return isa<tile::CopyOp>(user);
    });
  };
  bool fills = filled(op.getResult());
  if (fills && barrierOffset < 0) {
    int64_t count = 0;
    kernel.walk([&](tile::AllocSharedOp alloc) {
      if (isTmaBuffer(alloc.getResult()) && filled(alloc.getResult()))
        count += std::max<int64_t>(1, alloc.getType().getStages()) *
                 (perConsumerSet(alloc.getResult()) ? consumerSets : 1);
    });
    if (count > 32)
      return op.emitOpError("needs ")
             << count << " mbarriers; at most 32 TMA buffer slots are "
             << "supported";
    barrierOffset = llvm::alignTo(sharedBytes, 8);
    sharedBytes = barrierOffset + 8 * count;
    // Per-thread parity masks: [0] fills issued, [1] fills waited for.
    // The alloca goes first in the entry block, so that it stays a static
    // alloca (promoted to registers) when the code before it branches.
    auto i32 = builder.getI32Type();
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&func.getBody().front());
      phases =
          memref::AllocaOp::create(builder, loc, MemRefType::get({2}, i32));
    }
    Value zero = arith::ConstantIntOp::create(builder, loc, i32, 0);
    for (int64_t i = 0; i < 2; ++i)
      memref::StoreOp::create(builder, loc, zero, phases, index(i));
    auto init = scf::IfOp::create(builder, loc, isThreadZero());
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(init.thenBlock());
      Value one = arith::ConstantIntOp::create(builder, loc, i32, 1);
      for (int64_t i = 0; i < count; ++i)
        NVVM::MBarrierInitOp::create(
            builder, loc, sharedPointer(sharedAddress(barrierOffset + 8 * i)),
            one, Value());
    }
    gpu::BarrierOp::create(builder, loc);
  }
  int64_t slots = std::max<int64_t>(1, type.getStages());
  TmaBuffer buffer;
  buffer.offset = llvm::alignTo(sharedBytes, kSwizzleBytes);
  buffer.rows = shape[0];
  buffer.rowBytes = tile::tmaSwizzleSpan(type);
  buffer.panels = shape[1] * bytes / buffer.rowBytes;
  buffer.slotBytes = llvm::alignTo(shape[0] * shape[1] * bytes, kSwizzleBytes);
  buffer.firstBarrier = nextBarrier;
  buffer.elementBytes = bytes;
  bool perSet = perConsumerSet(op.getResult());
  // Ping-pong consumers fill their own copies on their own barriers.
  if (fills)
    nextBarrier += slots * (perSet ? consumerSets : 1);
  sharedBytes = buffer.offset + slots * buffer.slotBytes;
  if (perSet) {
    buffer.setBytes = slots * buffer.slotBytes;
    buffer.setBarriers = fills ? slots : 0;
    sharedBytes += buffer.setBytes;
  }
  tmaBuffers[op.getResult()] = buffer;
  // Nothing reads the buffer through a memref; map it to the shared base.
  mapping.map(op.getResult(), dynamicSharedMemory());
  return success();
}

Value GPULowering::barrierIndex(const TmaBuffer &buffer, Value slot) {
  Value id = index(buffer.firstBarrier);
  if (buffer.setBarriers)
    id = inConsumerSet(buffer.firstBarrier, buffer.setBarriers);
  if (slot)
    id = arith::AddIOp::create(builder, loc, id, slot);
  return arith::IndexCastOp::create(builder, loc, builder.getI32Type(), id);
}

Value GPULowering::barrierPointer(Value id) {
  Value offset = arith::MulIOp::create(
      builder, loc,
      arith::ExtUIOp::create(builder, loc, builder.getI64Type(), id),
      arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), 8));
  return sharedPointer(arith::AddIOp::create(
      builder, loc, sharedAddress(barrierOffset), offset));
}

Value GPULowering::slotAddress(const TmaBuffer &buffer, Value slot) {
  Value address = sharedAddress(buffer.offset);
  if (buffer.setBytes)
    address = arith::AddIOp::create(
        builder, loc, address,
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                   inConsumerSet(0, buffer.setBytes)));
  if (!slot)
    return address;
  Value slotOffset = arith::MulIOp::create(
      builder, loc,
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), slot),
      arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                   buffer.slotBytes));
  return arith::AddIOp::create(builder, loc, address, slotOffset);
}

void GPULowering::flipPhase(int64_t which, Value id) {
  Value mask = memref::LoadOp::create(builder, loc, phases, index(which));
  Value bit = arith::ShLIOp::create(
      builder, loc, arith::ConstantIntOp::create(builder, loc, id.getType(), 1),
      id);
  memref::StoreOp::create(builder, loc,
                          arith::XOrIOp::create(builder, loc, mask, bit),
                          phases, index(which));
}

LogicalResult GPULowering::lowerTmaCopy(tile::CopyOp op) {
  const TmaBuffer &buffer = tmaBuffers.at(op.getDest());
  Value map = tensorMapFor(op)->pointer;
  Value slot = op.getSlot() ? mapping.lookup(op.getSlot()) : Value();
  Value id = barrierIndex(buffer, slot);
  auto i32 = builder.getI32Type();
  // A null tensor map: the runtime could not encode one (rows not 16-byte
  // aligned, an empty view); the threads copy instead.
  auto withMap = ifNullMap(map);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(withMap.thenBlock());
    copyWithoutMap(op, buffer, slot, threadInSet(), index(kernel.getThreads()));
    // Thread 0 completes the phase once every thread's stores are done.
    gpu::BarrierOp::create(builder, loc);
    auto arrive = scf::IfOp::create(builder, loc, isThreadZero());
    builder.setInsertionPointToStart(arrive.thenBlock());
    NVVM::MBarrierArriveOp::create(builder, loc, Type(), barrierPointer(id),
                                   Value());
  }
  OpBuilder::InsertionGuard outer(builder);
  builder.setInsertionPointToStart(withMap.elseBlock());
  auto issue = scf::IfOp::create(builder, loc, isThreadZero());
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(issue.thenBlock());
    Value barrier = barrierPointer(id);
    // The whole box counts, zero-filled parts included.
    NVVM::MBarrierArriveExpectTxOp::create(
        builder, loc, Type(), barrier,
        arith::ConstantIntOp::create(
            builder, loc, i32, buffer.panels * buffer.rows * buffer.rowBytes),
        NVVM::MemScopeKind::CTA, false, Value());
    issueTmaPanels(op, buffer, slot, map, barrier);
  }
  builder.setInsertionPointAfter(withMap);
  flipPhase(0, id);
  return success();
}

scf::IfOp GPULowering::ifNullMap(Value map) {
  Value isNull =
      LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::eq, map,
                           LLVM::ZeroOp::create(builder, loc, map.getType()));
  return scf::IfOp::create(builder, loc, isNull, /*withElse=*/true);
}

void GPULowering::issueTmaPanels(tile::CopyOp op, const TmaBuffer &buffer,
                                 Value slot, Value map, Value barrier) {
  auto i32 = builder.getI32Type();
  // Coordinates innermost first: column, row, then the leading offsets.
  SmallVector<Value> coords;
  for (Value offset : llvm::reverse(op.getOffsets()))
    coords.push_back(
        arith::IndexCastOp::create(builder, loc, i32, mapping.lookup(offset)));
  int64_t panelBytes = buffer.rows * buffer.rowBytes;
  Value base = slotAddress(buffer, slot);
  int64_t panelCols = buffer.rowBytes / buffer.elementBytes;
  // A multicast copy: this program issues rows [r R / N, (r + 1) R / N) of
  // each panel (r its rank in the cluster of N) for every program.
  int64_t sharers = rowSharers(op);
  Value mask;
  if (sharers > 1) {
    int64_t rows = buffer.rows / sharers;
    Value rank = NVVM::ClusterId::create(builder, loc, i32);
    Value rowOffset = arith::MulIOp::create(
        builder, loc, rank,
        arith::ConstantIntOp::create(builder, loc, i32, rows));
    coords[1] = arith::AddIOp::create(builder, loc, coords[1], rowOffset);
    base = arith::AddIOp::create(
        builder, loc, base,
        arith::MulIOp::create(
            builder, loc,
            arith::ExtUIOp::create(builder, loc, builder.getI64Type(), rank),
            arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                         rows * buffer.rowBytes)));
    mask = arith::ConstantIntOp::create(builder, loc, builder.getI16Type(),
                                        (int64_t(1) << sharers) - 1);
  }
  for (int64_t p = 0; p < buffer.panels; ++p) {
    // The destination is the block's own window of shared::cluster.
    Value dest = LLVM::AddrSpaceCastOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 7),
        sharedPointer(arith::AddIOp::create(
            builder, loc, base,
            arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                         p * panelBytes))));
    SmallVector<Value> at(coords);
    at[0] = arith::AddIOp::create(
        builder, loc, coords[0],
        arith::ConstantIntOp::create(builder, loc, i32, p * panelCols));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        builder, loc, dest, map, at, barrier, ValueRange{}, mask, Value(),
        NVVM::TMALoadMode::TILE, false, nullptr, Value());
  }
}

void GPULowering::copyWithoutMap(tile::CopyOp op, const TmaBuffer &buffer,
                                 Value slot, Value first, Value stride) {
  // Thread t stores 16-byte chunks first, first + stride, ... of the tile
  // (row-major, so a warp's loads are coalesced) where TMA would have put
  // them, zero outside the view; the stores are made visible to the async
  // proxy that wgmma reads through. A loop, not unrolled code: this path
  // is the exception.
  tile::SharedType type = op.getDest().getType();
  Type element = getGPUStorageType(type.getElementType());
  Value view = mapping.lookup(op.getSource());
  SmallVector<Value> offsets;
  for (Value offset : op.getOffsets())
    offsets.push_back(mapping.lookup(offset));
  int64_t vec = 16 / buffer.elementBytes;
  auto vectorType = VectorType::get({vec}, element);
  forEachTmaChunk(
      buffer, type.getShape()[1], slot, first, stride,
      [&](Value row, Value col, Value address) {
        Value data = loadMaskedVector(view, vectorType, [&](int64_t e) {
          Value at = arith::AddIOp::create(builder, loc, col, index(e));
          return viewElement(view, offsets, {row, at});
        });
        LLVM::StoreOp::create(builder, loc, data, sharedPointer(address), 16);
      });
  fenceForAsyncProxy();
}

void GPULowering::waitPending(Value id) {
  auto i32 = builder.getI32Type();
  Value issued = memref::LoadOp::create(builder, loc, phases, index(0));
  Value waited = memref::LoadOp::create(builder, loc, phases, index(1));
  Value one = arith::ConstantIntOp::create(builder, loc, i32, 1);
  Value pendingBit = arith::AndIOp::create(
      builder, loc,
      arith::ShRUIOp::create(
          builder, loc, arith::XOrIOp::create(builder, loc, issued, waited),
          id),
      one);
  Value pending = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                        pendingBit, index32(0));
  auto branch = scf::IfOp::create(builder, loc, pending);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(branch.thenBlock());
  // The phase to wait for has the parity of the fills already waited for.
  Value parity = arith::AndIOp::create(
      builder, loc, arith::ShRUIOp::create(builder, loc, waited, id), one);
  spinOnParity(barrierPointer(id), parity);
  flipPhase(1, id);
}

Value GPULowering::threadInSet() {
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  if (!consumerGroup || role != Role::Consumer)
    return tid;
  return arith::RemUIOp::create(builder, loc, tid, index(kernel.getThreads()));
}

Value GPULowering::isThreadZero() {
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                               threadInSet(), index(0));
}

Value GPULowering::index32(int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, builder.getI32Type(),
                                      value);
}

LogicalResult GPULowering::lowerTmaLoad(tile::LoadOp op) {
  // No registers are loaded: the wgmma reads the slot once its fill landed.
  for (Operation *user : op->getUsers()) {
    auto mma = dyn_cast<tile::MmaOp>(user);
    if (!mma || mma.getKind() != tile::MmaKind::wgmma)
      return op.emitOpError("of a tile.tma buffer is used by '")
             << user->getName() << "'; only wgmma MMAs read such buffers";
  }
  const TmaBuffer &buffer = tmaBuffers.at(op.getSource());
  Value slot =
      op.getIndices().empty() ? Value() : mapping.lookup(op.getIndices()[0]);
  // A ring the producer role fills was waited for on its mbarrier; rows
  // gathered into a buffer by the threads, at the barrier after their wait.
  if (!filledByProducer(op.getSource()) &&
      !tile::isGatheredInto(op.getSource()))
    waitPending(barrierIndex(buffer, slot));
  Value address = slotAddress(buffer, slot);
  descriptorOperands[op.getResult()] = {buffer, address};
  // The lowering of every user (the wgmma) asks for the operand here.
  mapping.map(op.getResult(), address);
  return success();
}

void GPULowering::drainTma() {
  for (int64_t id = 0; id < nextBarrier; ++id)
    waitPending(index32(id));
  // TMA stores still reading the block's shared memory.
  if (hasTmaStores)
    NVVM::CpAsyncBulkWaitGroupOp::create(builder, loc, 0,
                                         builder.getUnitAttr());
}

/// A wgmma matrix descriptor of an operand at shared `address` swizzled
/// over `span` bytes (128, 64 or 32): start, leading and stride byte
/// offsets in 16-byte units, the stride that of 8 rows of `span` bytes.
static Value matrixDescriptor(OpBuilder &b, Location loc, Value address,
                              int64_t leading, int64_t span) {
  int64_t stride = 8 * span;
  // Layout types 1, 2, 3: 128-, 64- and 32-byte swizzling.
  int64_t layoutType = span == 128 ? 1 : span == 64 ? 2 : 3;
  auto i64 = b.getI64Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value start = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, address, constant(0x3FFFF)),
      constant(4));
  int64_t fixed =
      ((leading >> 4) << 16) | ((stride >> 4) << 32) | (layoutType << 62);
  return arith::OrIOp::create(b, loc, start, constant(fixed));
}

SmallVector<Value, 4> GPULowering::registerFragment(Value a, int64_t row,
                                                    int64_t k0) {
  // 16-bit: registers 2i, 2i + 1 of the fragment's eight (rows +8 for odd
  // i, columns +8 for i >= 2) pack into 32-bit register i, lower column
  // low. 8-bit: registers 4i..4i + 3 of sixteen (rows +8 for odd i,
  // columns +16 for i >= 2).
  int64_t first = *layoutOf(a).findRegister({row, k0});
  Value vector = mapping.lookup(a);
  int64_t perWord =
      32 / cast<VectorType>(vector.getType()).getElementTypeBitWidth();
  SmallVector<Value, 4> words;
  for (int64_t i = 0; i < 4; ++i) {
    Value part = vector::ExtractStridedSliceOp::create(
        builder, loc, vector, ArrayRef<int64_t>{first + perWord * i},
        ArrayRef<int64_t>{perWord}, ArrayRef<int64_t>{1});
    Value bits = vector::BitCastOp::create(
        builder, loc, VectorType::get({1}, builder.getI32Type()), part);
    words.push_back(vector::ExtractOp::create(builder, loc, bits, 0));
  }
  return words;
}

/// Inline PTX with side effects (in NVVM's own operand format): its one
/// result of `type`.
static Value inlinePtx(OpBuilder &b, Location loc, Type type,
                       ValueRange operands, StringRef text,
                       StringRef constraints) {
  return LLVM::InlineAsmOp::create(
             b, loc, type, operands, text, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

Value GPULowering::registerWgmma(Type fragment, Value d, ArrayRef<Value> a,
                                 Value descB, int64_t n, StringRef type,
                                 bool kMajorB) {
  // NVVM's form for shared A with the A descriptor replaced by four
  // registers and no trans-a: outputs $0.., the tied accumulators, a,
  // descB, scale-d (a predicate set from an immediate), scale-a, scale-b,
  // trans-b (none for 8-bit types, whose B is K-major).
  bool eightBit = type == "e4m3";
  int64_t count = n / 2;
  std::string text, constraints;
  llvm::raw_string_ostream os(text), cs(constraints);
  auto operand = [&](int64_t i) { os << "$" << i; };
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << 2 * count + 5
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << n
     << (eightBit ? "k32" : "k16") << ".f32." << type << "." << type << " {";
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      os << ", ";
    operand(i);
    cs << "=f,";
  }
  os << "}, {";
  for (int64_t i = 0; i < 4; ++i) {
    if (i)
      os << ", ";
    operand(2 * count + i);
  }
  os << "}, ";
  operand(2 * count + 4);
  os << ", p, ";
  operand(2 * count + 6);
  os << ", ";
  operand(2 * count + 7);
  if (!eightBit) {
    os << ", ";
    operand(2 * count + 8);
  }
  os << ";\n}\n";
  for (int64_t i = 0; i < count; ++i)
    cs << i << ",";
  cs << "r,r,r,r,l,n,n,n" << (eightBit ? "" : ",n");
  SmallVector<Value> operands;
  for (int64_t i = 0; i < count; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(builder, loc, d, i));
  llvm::append_range(operands, a);
  operands.push_back(descB);
  auto i32 = builder.getI32Type();
  SmallVector<int64_t, 4> immediates = {1, 1, 1};
  if (!eightBit)
    immediates.push_back(kMajorB ? 0 : 1);
  for (int64_t value : immediates)
    operands.push_back(arith::ConstantIntOp::create(builder, loc, i32, value));
  return inlinePtx(builder, loc, fragment, operands, text, constraints);
}

SmallVector<Value> GPULowering::waitWgmma(int64_t pending,
                                          ArrayRef<Value> accumulators) {
  // wgmma.wait_group as inline PTX whose outputs are the accumulators,
  // tied to its inputs: what reads them reads the outputs, which LLVM
  // cannot move above the wait (the plain intrinsic orders only memory,
  // and a read of a register a wgmma may still write makes ptxas serialize
  // every wgmma of the kernel). The comment names the registers.
  int64_t count = accumulators.size();
  std::string text = "// wait for the accumulators";
  std::string constraints;
  llvm::raw_string_ostream os(text), cs(constraints);
  for (int64_t i = 0; i < count; ++i)
    os << " $" << i;
  os << "\nwgmma.wait_group.sync.aligned " << pending << ";";
  for (int64_t i = 0; i < count; ++i)
    cs << "=f,";
  for (int64_t i = 0; i < count; ++i)
    cs << (i ? "," : "") << i;
  auto type = LLVM::LLVMStructType::getLiteral(
      builder.getContext(), SmallVector<Type>(count, builder.getF32Type()));
  Value waited = inlinePtx(builder, loc, type, accumulators, text, constraints);
  SmallVector<Value> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(LLVM::ExtractValueOp::create(builder, loc, waited, i));
  return values;
}

Value GPULowering::waitWgmma(int64_t pending, Value accumulators) {
  auto type = cast<VectorType>(accumulators.getType());
  SmallVector<Value> values;
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    values.push_back(vector::ExtractOp::create(builder, loc, accumulators, i));
  Value result = accumulators;
  for (auto [i, value] : llvm::enumerate(waitWgmma(pending, values)))
    result = vector::InsertOp::create(builder, loc, value, result, int64_t(i));
  return result;
}

LogicalResult GPULowering::lowerWgmma(tile::MmaOp op) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  bool kMajorB = op.getTransposeB();
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
          n = bType.getDimSize(kMajorB ? 0 : 1);
  if (op.getTransposeA())
    return op.emitOpError("of kind wgmma with a transposed A operand is not "
                          "supported yet");
  Type element = aType.getElementType();
  bool fp8 = isa<Float8E4M3FNType>(element);
  std::string why;
  std::optional<WgmmaLayouts> l =
      getWgmmaLayouts(m, n, k, numWarps, &why, fp8 ? 8 : 16);
  if (!l)
    return op.emitOpError("cannot run as wgmma: ") << why;
  if (layoutOf(op.getAcc()) != l->c)
    return op.emitOpError("has an accumulator layout that is not the wgmma "
                          "fragments' (")
           << l->c.str() << ")";
  auto a = descriptorOperands.find(op.getA());
  auto b = descriptorOperands.find(op.getB());
  // An A not read from a tile.tma buffer is wgmma's register operand.
  bool registerA = a == descriptorOperands.end();
  if (b == descriptorOperands.end() ||
      !(element.isBF16() || element.isF16() || fp8) ||
      bType.getElementType() != element)
    return op.emitOpError("of kind wgmma needs bf16, f16 or f8E4M3FN "
                          "operands, B loaded from a tile.tma buffer");
  if (fp8 && (!registerA || !kMajorB))
    return op.emitOpError("of kind wgmma on f8E4M3FN operands needs A in "
                          "registers and B stored [N, K] (transpose_b): "
                          "8-bit wgmma reads K-major B only");
  if (registerA && layoutOf(op.getA()) != l->a)
    return op.emitOpError("has an A operand in registers whose layout is not "
                          "the wgmma register fragments' (")
           << l->a.str() << ")";
  const TmaBuffer &bufferB = b->second.first;
  MLIRContext *ctx = builder.getContext();
  auto i64 = builder.getI64Type();
  auto f32 = builder.getF32Type();
  int64_t perBlock = n / 2;
  auto fragment =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(perBlock, f32));
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(builder, loc, i64, v);
  };
  // This thread's warpgroup picks its 64-row blocks of A (in shared
  // memory; registers already hold the warpgroup's own rows).
  Value groupRows;
  if (!registerA) {
    Value group = arith::IndexCastOp::create(
        builder, loc, i64,
        arith::DivUIOp::create(builder, loc, warp, index(4)));
    groupRows = arith::MulIOp::create(builder, loc, group,
                                      constant(64 * a->second.first.rowBytes));
  }
  NVVM::WGMMATypes type =
      element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  StringRef typeName = fp8 ? "e4m3" : element.isBF16() ? "bf16" : "f16";
  int64_t kStep = fp8 ? 32 : 16;
  Value acc = mapping.lookup(op.getAcc());
  NVVM::WgmmaFenceAlignedOp::create(builder, loc);
  SmallVector<Value> results;
  for (int64_t rep = 0; rep < l->repetitions; ++rep) {
    Value d = LLVM::UndefOp::create(builder, loc, fragment);
    for (int64_t i = 0; i < perBlock; ++i)
      d = LLVM::InsertValueOp::create(
          builder, loc, d,
          vector::ExtractOp::create(builder, loc, acc, rep * perBlock + i), i);
    for (int64_t k0 = 0; k0 < k; k0 += kStep) {
      // B stored [K, N]: rows k0..k0+15 of every 64-column panel (panels
      // rows x 128 bytes apart), N-major. Stored [N, K] (transposed): the
      // K-major layout of A, all N rows.
      int64_t spanB = bufferB.rowBytes;
      int64_t panelColsB = spanB / bufferB.elementBytes;
      int64_t offsetB = kMajorB ? (k0 / panelColsB) * bufferB.rows * spanB +
                                      (k0 % panelColsB) * bufferB.elementBytes
                                : k0 * spanB;
      Value addressB = arith::AddIOp::create(builder, loc, b->second.second,
                                             constant(offsetB));
      Value descB = matrixDescriptor(
          builder, loc, addressB, kMajorB ? 16 : bufferB.rows * spanB, spanB);
      if (registerA) {
        d = registerWgmma(
            fragment, d,
            registerFragment(op.getA(), rep * 64 * l->warpgroups, k0), descB, n,
            typeName, kMajorB);
        continue;
      }
      // A: row block (64 g + 64 G rep), panel k0 / 64, 2 bytes per k.
      const TmaBuffer &bufferA = a->second.first;
      int64_t spanA = bufferA.rowBytes;
      int64_t panelColsA = spanA / bufferA.elementBytes;
      int64_t offsetA = (k0 / panelColsA) * bufferA.rows * spanA +
                        rep * 64 * l->warpgroups * spanA +
                        (k0 % panelColsA) * bufferA.elementBytes;
      Value addressA = arith::AddIOp::create(
          builder, loc, a->second.second,
          arith::AddIOp::create(builder, loc, groupRows, constant(offsetA)));
      // K-major: 8-row groups 8 rows apart; the leading offset unused.
      Value descA = matrixDescriptor(builder, loc, addressA, 16, spanA);
      d = NVVM::WgmmaMmaAsyncOp::create(
          builder, loc, fragment, d, descA, descB,
          NVVM::MMAShapeAttr::get(ctx, 64, n, 16), type, type,
          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          // NVVM's layouts: row A is K-major; row B N-major, col B K-major.
          NVVM::MMALayout::row,
          kMajorB ? NVVM::MMALayout::col : NVVM::MMALayout::row, nullptr);
    }
    results.push_back(d);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(builder, loc);
  SmallVector<Value> values;
  for (Value d : results)
    for (int64_t i = 0; i < perBlock; ++i)
      values.push_back(LLVM::ExtractValueOp::create(builder, loc, d, i));
  // In a loop that keeps one group in flight, the previous iteration's
  // group completes here and this one's accumulators go only to the next
  // iteration's wgmma (which may chain them) or, through the wait after
  // the loop, to their readers. Otherwise they are read only once the
  // group is complete.
  if (op == overlappedWgmma)
    NVVM::WgmmaWaitGroupSyncOp::create(builder, loc, 1);
  else
    values = waitWgmma(0, values);
  for (auto [i, value] : llvm::enumerate(values))
    acc = vector::InsertOp::create(builder, loc, value, acc, int64_t(i));
  mapping.map(op.getResult(), acc);
  return success();
}
