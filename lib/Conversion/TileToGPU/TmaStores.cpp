//===- TmaStores.cpp - Epilogues through shared memory and TMA stores -----===//
//
// A buffer that tile-assign-layouts marked `tile.tma` for tile.copy_out
// (written only by tile.store of register tiles, read only by copies out
// into a kernel argument) is laid out as TMA reads it: the 128-, 64- or
// 32-byte swizzled panels of NvidiaTma.cpp. tile.store writes each run of
// a thread's registers along a row (at most one 16-byte chunk) to its
// swizzled place and then fences the stores for the async proxy
// (fence.proxy.async.shared::cta), so that after the kernel's barrier the
// TMA unit sees them. tile.copy_out has thread 0 issue one
// cp.async.bulk.tensor (shared::cta to global) per panel; the tensor map
// clips what falls outside the view. The copy joins the thread's bulk
// group, which tile.async_commit closes and tile.async_wait (.read) waits
// for; a copy that is not `async` is committed and waited for at once.
// When the runtime could give no tensor map (rows not 16-byte aligned)
// the threads store the tile themselves, element by element, masked. The
// layout's arithmetic (tmaChunkOffset) and the threads' walk over a
// buffer's chunks (forEachTmaChunk) are shared with the threads' fills of
// TMA buffers (NvidiaTma.cpp's copyWithoutMap).
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

void GPULowering::fenceForAsyncProxy() {
  NVVM::FenceProxyOp::create(
      builder, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(builder.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

Value GPULowering::tmaChunkOffset(const TmaBuffer &buffer, Value row,
                                  Value chunk) {
  // Chunk c of row r of panel p sits at p * panel + r * R +
  // 16 (c xor (r R / 128) % (R / 16)) for rows of R bytes (c xor r % 8
  // for 128).
  int64_t panelChunks = buffer.rowBytes / 16;
  Value panel = arith::DivUIOp::create(builder, loc, chunk, index(panelChunks));
  Value rowOffset =
      arith::MulIOp::create(builder, loc, row, index(buffer.rowBytes));
  Value swizzled = arith::XOrIOp::create(
      builder, loc,
      arith::RemUIOp::create(builder, loc, chunk, index(panelChunks)),
      arith::RemUIOp::create(
          builder, loc,
          arith::DivUIOp::create(builder, loc, rowOffset, index(128)),
          index(panelChunks)));
  return arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, panel,
                            index(buffer.rows * buffer.rowBytes)),
      arith::AddIOp::create(
          builder, loc, rowOffset,
          arith::MulIOp::create(builder, loc, swizzled, index(16))));
}

void GPULowering::forEachTmaChunk(
    const TmaBuffer &buffer, int64_t cols, Value slot, Value first,
    Value stride,
    function_ref<void(Value row, Value col, Value address)> body) {
  int64_t vec = 16 / buffer.elementBytes;
  int64_t chunksPerRow = cols / vec;
  Value base = slotAddress(buffer, slot);
  auto loop = scf::ForOp::create(builder, loc, first,
                                 index(buffer.rows * chunksPerRow), stride);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  Value linear = loop.getInductionVar();
  Value row = arith::DivUIOp::create(builder, loc, linear, index(chunksPerRow));
  Value chunk =
      arith::RemUIOp::create(builder, loc, linear, index(chunksPerRow));
  Value address = arith::AddIOp::create(
      builder, loc, base,
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                 tmaChunkOffset(buffer, row, chunk)));
  body(row, arith::MulIOp::create(builder, loc, chunk, index(vec)), address);
}

/// The stmatrix stores that write `layout` (16-bit elements): the inverse
/// of the ldmatrix loads that would produce it, where every matrix row the
/// lanes address is a 16-byte chunk of the buffer (its column a multiple
/// of 8), so that the swizzle keeps it whole.
static std::optional<LdmatrixPlan> planStmatrix(const LinearLayout &layout) {
  // Lanes holding the same elements would store them twice (stmatrix is
  // a warp's instruction: it cannot leave some lanes out).
  if (llvm::any_of(layout.getBases(LinearLayout::Lane), [](const Coord &c) {
        return llvm::all_of(c, [](int64_t x) { return x == 0; });
      }))
    return std::nullopt;
  std::string why;
  std::optional<LdmatrixPlan> plan = planLdmatrix(layout, &why);
  if (!plan || plan->transpose)
    return std::nullopt;
  // The registers within one store (the low bits) do not move the address.
  unsigned within = llvm::Log2_64(plan->registersPerLoad());
  for (auto in :
       {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (auto [bit, basis] : llvm::enumerate(plan->rowAddress.getBases(in)))
      if (basis[1] % 8 && !(in == LinearLayout::Register && bit < within))
        return std::nullopt;
  return plan;
}

void GPULowering::storeMatrices(const LdmatrixPlan &plan, Value value,
                                const TmaBuffer &buffer, Value slot) {
  auto i32 = builder.getI32Type();
  int64_t perStore = plan.registersPerLoad();
  Value base = slotAddress(buffer, slot);
  auto words = VectorType::get({int64_t(plan.numMatrices)}, i32);
  for (int64_t block = 0;
       block < cast<VectorType>(value.getType()).getNumElements();
       block += perStore) {
    // This lane's row: a whole 16-byte chunk of the buffer.
    SmallVector<Value> row = coordinate(plan.rowAddress, block);
    Value chunk = arith::DivUIOp::create(builder, loc, row[1], index(8));
    Value address = arith::AddIOp::create(
        builder, loc, base,
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                   tmaChunkOffset(buffer, row[0], chunk)));
    Value part = vector::BitCastOp::create(
        builder, loc, words,
        vector::ExtractStridedSliceOp::create(
            builder, loc, value, ArrayRef<int64_t>{block},
            ArrayRef<int64_t>{perStore}, ArrayRef<int64_t>{1}));
    SmallVector<Value> sources;
    for (unsigned j = 0; j < plan.numMatrices; ++j)
      sources.push_back(vector::ExtractOp::create(builder, loc, part, j));
    NVVM::StMatrixOp::create(
        builder, loc, sharedPointer(address), sources, NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(builder.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
  }
}

LogicalResult GPULowering::lowerTmaStore(tile::StoreOp op) {
  if (target.asyncCopy != AsyncCopyKind::Tma)
    return op.emitOpError("into a tile.tma buffer needs sm_90a, not ")
           << target.chip;
  if (llvm::any_of(op.getDest().getUsers(), llvm::IsaPred<tile::CopyOp>))
    return op.emitOpError("into a tile.tma buffer that TMA copies fill is "
                          "not supported by convert-tile-to-gpu (its "
                          "mbarriers track the copies only)");
  const TmaBuffer &buffer = tmaBuffers.at(op.getDest());
  Value slot =
      op.getIndices().empty() ? Value() : mapping.lookup(op.getIndices()[0]);
  LinearLayout layout = layoutOf(op.getValue());
  Value value = mapping.lookup(op.getValue());
  unsigned bits = buffer.elementBytes * 8;
  int64_t vec = 16 / buffer.elementBytes;
  if (bits == 16)
    if (std::optional<LdmatrixPlan> plan = planStmatrix(layout)) {
      // Warps holding the same elements as others (warp broadcast bits)
      // leave the store to one of them.
      OpBuilder::InsertionGuard guard(builder);
      if (Value owner = ownsElements(layout)) {
        auto branch = scf::IfOp::create(builder, loc, owner);
        builder.setInsertionPointToStart(branch.thenBlock());
      }
      storeMatrices(*plan, value, buffer, slot);
      fenceForAsyncProxy();
      return success();
    }
  {
    OpBuilder::InsertionGuard guard(builder);
    if (Value owner = ownsElements(layout)) {
      auto branch = scf::IfOp::create(builder, loc, owner);
      builder.setInsertionPointToStart(branch.thenBlock());
    }
    // Runs of registers along a row inside one 16-byte chunk stay
    // consecutive under the swizzle, which moves whole chunks.
    int64_t run = contiguousRowRun(layout, Swizzle{vec, 1, 1}, bits);
    Value base = slotAddress(buffer, slot);
    for (int64_t reg = 0; reg < layout.getSize(LinearLayout::Register);
         reg += run) {
      if (layout.findRegister(layout.apply(reg, 0, 0)) != uint64_t(reg))
        continue;
      SmallVector<Value> coord = coordinate(layout, reg);
      Value chunk = arith::DivUIOp::create(builder, loc, coord[1], index(vec));
      Value within = arith::MulIOp::create(
          builder, loc,
          arith::RemUIOp::create(builder, loc, coord[1], index(vec)),
          index(buffer.elementBytes));
      Value offset = arith::AddIOp::create(
          builder, loc, tmaChunkOffset(buffer, coord[0], chunk), within);
      Value address = arith::AddIOp::create(
          builder, loc, base,
          arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                     offset));
      Value part =
          run == 1
              ? vector::ExtractOp::create(builder, loc, value, reg).getResult()
              : vector::ExtractStridedSliceOp::create(
                    builder, loc, value, ArrayRef<int64_t>{reg},
                    ArrayRef<int64_t>{run}, ArrayRef<int64_t>{1})
                    .getResult();
      LLVM::StoreOp::create(builder, loc, part, sharedPointer(address),
                            run * buffer.elementBytes);
    }
  }
  fenceForAsyncProxy();
  return success();
}

LogicalResult GPULowering::lowerCopyOut(tile::CopyOutOp op) {
  if (!isTmaBuffer(op.getSource()))
    return op.emitOpError("of a buffer that is not laid out for TMA stores "
                          "is not supported by convert-tile-to-gpu "
                          "(tile-assign-layouts makes it a tile.load and a "
                          "tile.store)");
  const TmaBuffer &buffer = tmaBuffers.at(op.getSource());
  Value map = tensorMapFor(op)->pointer;
  Value slot = op.getSlot() ? mapping.lookup(op.getSlot()) : Value();
  auto withMap = ifNullMap(map);
  {
    // No tensor map: thread t stores chunks t, t + T, ... of the tile
    // (row-major, coalesced), each element inside the view.
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(withMap.thenBlock());
    tile::SharedType type = op.getSource().getType();
    Type element = getGPUStorageType(type.getElementType());
    Value view = mapping.lookup(op.getDest());
    SmallVector<Value> offsets;
    for (Value offset : op.getOffsets())
      offsets.push_back(mapping.lookup(offset));
    int64_t vec = 16 / buffer.elementBytes;
    forEachTmaChunk(
        buffer, type.getShape()[1], slot, threadInSet(),
        index(kernel.getThreads()), [&](Value row, Value col, Value address) {
          Value data = LLVM::LoadOp::create(builder, loc,
                                            VectorType::get({vec}, element),
                                            sharedPointer(address), 16);
          for (int64_t e = 0; e < vec; ++e) {
            Value at = arith::AddIOp::create(builder, loc, col, index(e));
            auto [indices, inside] = viewElement(view, offsets, {row, at});
            auto store = scf::IfOp::create(builder, loc, inside);
            OpBuilder::InsertionGuard inner(builder);
            builder.setInsertionPointToStart(store.thenBlock());
            memref::StoreOp::create(
                builder, loc, vector::ExtractOp::create(builder, loc, data, e),
                view, indices);
          }
        });
  }
  OpBuilder::InsertionGuard outer(builder);
  builder.setInsertionPointToStart(withMap.elseBlock());
  auto issue = scf::IfOp::create(builder, loc, isThreadZero());
  builder.setInsertionPointToStart(issue.thenBlock());
  auto i32 = builder.getI32Type();
  // Coordinates innermost first: column, row, then the leading offsets.
  SmallVector<Value> coords;
  for (Value offset : llvm::reverse(op.getOffsets()))
    coords.push_back(
        arith::IndexCastOp::create(builder, loc, i32, mapping.lookup(offset)));
  int64_t panelCols = buffer.rowBytes / buffer.elementBytes;
  Value base = slotAddress(buffer, slot);
  for (int64_t p = 0; p < buffer.panels; ++p) {
    SmallVector<Value> at(coords);
    at[0] = arith::AddIOp::create(
        builder, loc, coords[0],
        arith::ConstantIntOp::create(builder, loc, i32, p * panelCols));
    Value source = sharedPointer(arith::AddIOp::create(
        builder, loc, base,
        arith::ConstantIntOp::create(builder, loc, builder.getI64Type(),
                                     p * buffer.rows * buffer.rowBytes)));
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        builder, loc, map, source, at, Value(), NVVM::TMAStoreMode::TILE,
        Value());
  }
  if (!op.getAsync()) {
    NVVM::CpAsyncBulkCommitGroupOp::create(builder, loc);
    NVVM::CpAsyncBulkWaitGroupOp::create(builder, loc, 0,
                                         builder.getUnitAttr());
  }
  return success();
}
