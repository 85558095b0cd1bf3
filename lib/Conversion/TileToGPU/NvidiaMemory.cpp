//===- NvidiaMemory.cpp - Copies, shared loads and stores on sm_80 --------===//
//
// tile.copy: each thread moves 16-byte chunks of a coalesced copy layout
// with cp.async, zero-filling what lies outside the view (the padding rule);
// views whose rows are not 16-byte aligned take an element-wise path. A
// gathering copy takes each chunk's row from the thread's row-index
// register (the index tile has the copy layout without its columns); a
// negative index is sent past the view's last row, so it reads zeros.
// tile.load from shared: ldmatrix when the tile's layout is a tiling of
// ldmatrix fragments (proved by simulating the instruction), element-wise
// loads otherwise. tile.store into shared memory: vector stores of the
// runs of registers along a row (16 bytes each for a copy layout).
// tile.load from a view and tile.gather: masked loads of each register (a
// gather's row from its index register; a vector load per run of a row
// where aligned). Stores into views are in ViewStores.cpp. Shared buffers
// are swizzled as their tile.swizzle says.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessera;

LogicalResult GPULowering::lowerAllocShared(tile::AllocSharedOp op) {
  tile::SharedType type = op.getType();
  // int4 nibble pairs are 2-D tiles of bytes.
  SmallVector<int64_t> tileShape = type.getStoredShape();
  if (tileShape.size() != 2)
    return op.emitOpError("of rank ")
           << type.getShape().size()
           << " is not supported by convert-tile-to-gpu yet (2-D tiles and "
              "2-D tiles of int4 nibble pairs are)";
  SmallVector<int64_t> shape;
  bool ring = type.getStages() > 0;
  if (ring)
    shape.push_back(type.getStages());
  shape.append(tileShape.begin(), tileShape.end());
  auto workgroup = gpu::AddressSpaceAttr::get(
      builder.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  auto memrefType =
      MemRefType::get(shape, getGPUStorageType(type.getElementType()),
                      MemRefLayoutAttrInterface(), workgroup);
  // Buffers are views of the kernel's dynamic shared memory (static shared
  // memory stops at 48 KiB), each 128-byte aligned, in program order.
  if (isTmaBuffer(op.getResult()))
    return lowerTmaAlloc(op);
  int64_t offset = llvm::alignTo(sharedBytes, 128);
  int64_t bytes = type.getSizeInBytes();
  bool perSet = perConsumerSet(op.getResult());
  sharedBytes = offset + (perSet ? consumerSets : 1) * bytes;
  SharedBuffer buffer;
  buffer.memref = memref::ViewOp::create(
      builder, loc, memrefType, dynamicSharedMemory(),
      perSet ? inConsumerSet(offset, bytes) : index(offset), ValueRange{});
  buffer.ring = ring;
  buffer.packed = tile::isNibblePairs(type.getElementType(), type.getShape());
  if (auto s =
          tile::TileDialect::SwizzleAttrHelper(op->getContext()).getAttr(op))
    buffer.swizzle = s.toSwizzle();
  shared[op.getResult()] = buffer;
  mapping.map(op.getResult(), buffer.memref);
  return success();
}

FailureOr<Value> GPULowering::scratchBuffer(Operation *op, int64_t count,
                                            Type element, StringRef purpose) {
  int64_t offset = llvm::alignTo(sharedBytes, 16);
  int64_t bytes = count * std::max(8u, element.getIntOrFloatBitWidth()) / 8;
  // Ping-pong consumer sets run at once: each has its own scratch.
  int64_t sets = role == Role::Consumer ? consumerSets : 1;
  if (offset + sets * bytes > target.maxSharedBytes)
    return op->emitOpError("needs ")
           << sets * bytes << " bytes of shared memory " << purpose
           << ", beyond the " << target.maxSharedBytes << " of " << target.chip
           << " with the " << sharedBytes << " its buffers take";
  sharedBytes = offset + sets * bytes;
  auto workgroup = gpu::AddressSpaceAttr::get(
      builder.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  return memref::ViewOp::create(
             builder, loc,
             MemRefType::get({count}, element, MemRefLayoutAttrInterface(),
                             workgroup),
             dynamicSharedMemory(),
             sets > 1 ? inConsumerSet(offset, bytes) : index(offset),
             ValueRange{})
      .getResult();
}

Value GPULowering::dynamicSharedMemory() {
  if (!dynamicShared) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(&*prologueEnd);
    dynamicShared = gpu::DynamicSharedMemoryOp::create(
        builder, loc,
        MemRefType::get({ShapedType::kDynamic}, builder.getI8Type(),
                        MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            builder.getContext(),
                            gpu::GPUDialect::getWorkgroupAddressSpace())));
  }
  return dynamicShared;
}

SmallVector<Value> GPULowering::sharedIndices(const SharedBuffer &buffer,
                                              Value slot, Value row,
                                              Value col) {
  SmallVector<Value> indices;
  if (buffer.ring)
    indices.push_back(slot ? slot : index(0));
  indices.push_back(row);
  const Swizzle &s = buffer.swizzle;
  if (s.isIdentity()) {
    indices.push_back(col);
    return indices;
  }
  // ((col / vec) xor ((row / perPhase) mod maxPhase)) * vec + col mod vec
  Value chunk = arith::DivUIOp::create(builder, loc, col, index(s.vec));
  Value within = arith::RemUIOp::create(builder, loc, col, index(s.vec));
  Value phase = arith::RemUIOp::create(
      builder, loc,
      arith::DivUIOp::create(builder, loc, row, index(s.perPhase)),
      index(s.maxPhase));
  Value swizzled = arith::XOrIOp::create(builder, loc, chunk, phase);
  indices.push_back(arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, swizzled, index(s.vec)),
      within));
  return indices;
}

SmallVector<Value> GPULowering::sharedIndices(const SharedBuffer &buffer,
                                              Value slot,
                                              const LinearLayout &layout,
                                              uint64_t reg) {
  const Swizzle &s = buffer.swizzle;
  if (layout.getRank() != 2 || !llvm::isPowerOf2_64(s.vec) ||
      !llvm::isPowerOf2_64(s.perPhase) || !llvm::isPowerOf2_64(s.maxPhase)) {
    SmallVector<Value> coord = coordinate(layout, reg);
    return sharedIndices(buffer, slot, coord[0], coord[1]);
  }
  // With power-of-two parameters the stored column is col xor (row bits
  // moved to chunk bits): linear over bits, like the layout. So the stored
  // (row, column) of a register is the thread's part xor the register's
  // constant part, and the bits the thread's part can have are those of
  // its lane and warp bases' images.
  auto stored = [&](const Coord &c) {
    return std::array<int64_t, 2>{c[0], s.apply(c[0], c[1])};
  };
  std::array<int64_t, 2> threadBits{0, 0};
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    for (const Coord &basis : layout.getBases(in)) {
      std::array<int64_t, 2> image = stored(basis);
      threadBits[0] |= image[0];
      threadBits[1] |= image[1];
    }
  std::array<int64_t, 2> constant = stored(layout.apply(reg, 0, 0));
  SmallVector<Value> indices;
  if (buffer.ring)
    indices.push_back(slot ? slot : index(0));
  std::string key = layout.str() + "/" + std::to_string(s.vec) + "," +
                    std::to_string(s.perPhase) + "," +
                    std::to_string(s.maxPhase);
  for (unsigned d = 0; d < 2; ++d) {
    // thread xor constant = (thread xor mixed) + rest, where mixed are the
    // constant's bits the thread's part can have and rest the others.
    int64_t mixed = constant[d] & threadBits[d];
    int64_t rest = constant[d] & ~threadBits[d];
    Value &base = sharedBases[key + "/" + std::to_string(d) + "/" +
                              std::to_string(mixed)];
    if (!base) {
      // The thread's part, stored (swizzled) as any element is.
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(&*prologueEnd);
      SmallVector<Value> thread = coordinate(layout, 0);
      base = d == 0
                 ? thread[0]
                 : sharedIndices(buffer, Value(), thread[0], thread[1]).back();
      if (mixed)
        base = arith::XOrIOp::create(builder, loc, base, index(mixed));
    }
    indices.push_back(
        rest
            ? arith::AddIOp::create(builder, loc, base, index(rest)).getResult()
            : base);
  }
  return indices;
}

Value GPULowering::rowsAligned(Value view, int64_t bytes) {
  if (Value known = aligned.lookup(view))
    return known;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(&*prologueEnd);
  // Base pointer, offset and every outer stride multiples of 16 bytes.
  int64_t vec = 16 / bytes;
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, view);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, view);
  auto isMultiple = [&](Value v, int64_t of) {
    return arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(builder, loc, v, index(of)), index(0));
  };
  Value ok = isMultiple(base, 16);
  ok = arith::AndIOp::create(builder, loc, ok,
                             isMultiple(metadata.getOffset(), vec));
  for (Value stride : metadata.getStrides().drop_back())
    ok = arith::AndIOp::create(builder, loc, ok, isMultiple(stride, vec));
  aligned[view] = ok;
  return ok;
}

LogicalResult GPULowering::lowerCopy(tile::CopyOp op) {
  if (auto pad = op.getPadAttr())
    if (!matchPattern(pad, m_AnyZeroFloat()) && !matchPattern(pad, m_Zero()))
      return op.emitOpError("with a non-zero pad is not supported by "
                            "convert-tile-to-gpu yet (cp.async fills zeros)");
  if (isTmaBuffer(op.getDest()))
    return op.getRows() ? lowerTmaGather(op) : lowerTmaCopy(op);
  tile::SharedType type = op.getDest().getType();
  const SharedBuffer &buffer = shared.at(op.getDest());
  Value view = mapping.lookup(op.getSource());
  SmallVector<Value> offsets;
  for (Value offset : op.getOffsets())
    offsets.push_back(mapping.lookup(offset));
  // int4 nibble pairs move as bytes; the pair offset is 0 (the verifier
  // keeps a copy's tile inside the view's trailing dimension of 2).
  SmallVector<int64_t> shape = type.getStoredShape();
  Type element = getGPUStorageType(type.getElementType());
  if (buffer.packed) {
    view = pairBytes(view);
    offsets.pop_back();
  }
  int64_t bytes = type.getStoredElementBits() / 8;
  if (!isPowerOfTwoShape(shape) || shape[1] * bytes < 16)
    return op.emitOpError("into a shared tile with rows of fewer than 16 "
                          "bytes or sizes that are not powers of two is not "
                          "supported by convert-tile-to-gpu yet");
  Value slot = op.getSlot() ? mapping.lookup(op.getSlot()) : Value();
  if (isAmd())
    return lowerBufferCopy(op, view, offsets, shape, element, buffer, slot);
  Value alignedRows = rowsAligned(view, bytes);
  int64_t vec = 16 / bytes;
  LogicalResult copied = forEachCopyChunk(
      op, shape, bytes, view, offsets, buffer, slot,
      [&](const CopyChunk &chunk) {
        auto branch = scf::IfOp::create(builder, loc, alignedRows,
                                        /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(branch.thenBlock());
        nvgpu::DeviceAsyncCopyOp::create(
            builder, loc,
            nvgpu::DeviceAsyncTokenType::get(builder.getContext()),
            buffer.memref, chunk.dest, view, chunk.source,
            builder.getIndexAttr(vec), chunk.count, builder.getUnitAttr());
        builder.setInsertionPointToStart(branch.elseBlock());
        copyElements(chunk, view, buffer, element, vec);
      });
  if (failed(copied))
    return failure();
  if (!op.getAsync()) {
    // A synchronous copy is complete before the next barrier.
    NVVM::CpAsyncCommitGroupOp::create(builder, loc);
    NVVM::CpAsyncWaitGroupOp::create(builder, loc, 0);
  }
  return success();
}

Value GPULowering::runInside(Value row, Value col, Value rows, Value cols,
                             int64_t run) {
  // clamp(cols - col, 0, run), none when the row is outside.
  Value zero = index(0);
  Value left = arith::SubIOp::create(builder, loc, cols, col);
  left = arith::MaxSIOp::create(builder, loc, left, zero);
  left = arith::MinSIOp::create(builder, loc, left, index(run));
  Value rowIn =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, row, rows);
  return arith::SelectOp::create(builder, loc, rowIn, left, zero);
}

LogicalResult
GPULowering::forEachCopyChunk(tile::CopyOp op, ArrayRef<int64_t> shape,
                              int64_t bytes, Value view, ValueRange offsets,
                              const SharedBuffer &buffer, Value slot,
                              function_ref<void(const CopyChunk &)> emit) {
  unsigned rank = cast<MemRefType>(view.getType()).getRank();
  Value rows = memref::DimOp::create(builder, loc, view, rank - 2);
  Value cols = memref::DimOp::create(builder, loc, view, rank - 1);
  int64_t vec = 16 / bytes;
  LinearLayout copy = atoms::coalescedCopy(shape[0], shape[1], 8 * bytes,
                                           numWarps, target.warpSize);
  // Threads whose lane or warp bits are declared broadcasts hold chunks
  // another thread already moves: only one copies.
  Value owner = ownsElements(copy);
  Value zero = index(0);
  Value gathered = op.getRows();
  LinearLayout rowsLayout = gathered ? layoutOf(gathered) : LinearLayout();
  for (int64_t reg = 0; reg < copy.getSize(LinearLayout::Register);
       reg += vec) {
    CopyChunk chunk;
    SmallVector<Value> coord = coordinate(copy, reg);
    chunk.tileRow = coord[0];
    chunk.tileCol = coord[1];
    Value tileRow = coord[0];
    if (gathered) {
      // The row its index chooses; a negative index lies outside (as a
      // row past the end does).
      Value chosen = rowIndex(gathered, rowsLayout, copy, reg, op);
      if (!chosen)
        return failure();
      tileRow = arith::SelectOp::create(
          builder, loc,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, chosen,
                                zero),
          rows, chosen);
    }
    chunk.row = arith::AddIOp::create(builder, loc, offsets[rank - 2], tileRow);
    chunk.col =
        arith::AddIOp::create(builder, loc, offsets[rank - 1], coord[1]);
    chunk.count = runInside(chunk.row, chunk.col, rows, cols, vec);
    Value any = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sgt,
                                      chunk.count, zero);
    chunk.source.assign(offsets.begin(), std::prev(offsets.end(), 2));
    chunk.source.push_back(
        arith::SelectOp::create(builder, loc, any, chunk.row, zero));
    chunk.source.push_back(
        arith::SelectOp::create(builder, loc, any, chunk.col, zero));
    chunk.dest = sharedIndices(buffer, slot, copy, reg);
    if (owner) {
      auto guarded = scf::IfOp::create(builder, loc, owner);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(guarded.thenBlock());
      emit(chunk);
    } else {
      emit(chunk);
    }
  }
  return success();
}

std::pair<SmallVector<Value>, Value>
GPULowering::chunkElement(const CopyChunk &chunk, int64_t e) {
  SmallVector<Value> at(chunk.source);
  at.back() = arith::AddIOp::create(builder, loc, chunk.col, index(e));
  return {at, arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                    index(e), chunk.count)};
}

void GPULowering::copyElements(const CopyChunk &chunk, Value view,
                               const SharedBuffer &buffer, Type element,
                               int64_t vec) {
  // Element by element, zeros past the count.
  Value padding = arith::ConstantOp::create(builder, loc, element,
                                            builder.getZeroAttr(element));
  for (int64_t e = 0; e < vec; ++e) {
    auto part = chunkElement(chunk, e);
    SmallVector<Value> at = part.first;
    Value inside = part.second;
    auto read = scf::IfOp::create(
        builder, loc, inside,
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(
              b, l, memref::LoadOp::create(b, l, view, at).getResult());
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, padding); });
    SmallVector<Value> to(chunk.dest);
    to.back() =
        arith::AddIOp::create(builder, loc, chunk.dest.back(), index(e));
    memref::StoreOp::create(builder, loc, read.getResult(0), buffer.memref, to);
  }
}

LogicalResult GPULowering::lowerSharedLoad(tile::LoadOp op) {
  if (isTmaBuffer(op.getSource()))
    return lowerTmaLoad(op);
  const SharedBuffer &buffer = shared.at(op.getSource());
  Value slot =
      op.getIndices().empty() ? Value() : mapping.lookup(op.getIndices()[0]);
  LinearLayout layout = layoutOf(op.getResult());
  VectorType type = vectorTypeOf(op.getResult());
  Type element = type.getElementType();
  Value result =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  std::string why;
  std::optional<LdmatrixPlan> plan;
  if (element.getIntOrFloatBitWidth() == 16 && !isAmd())
    plan = planLdmatrix(layout, &why);
  if (buffer.packed) {
    // Each register reads its code's byte and keeps its nibble.
    for (int64_t reg = 0; reg < type.getNumElements(); ++reg) {
      SmallVector<Value> coord = coordinate(layout, reg);
      Value byte = memref::LoadOp::create(
          builder, loc, buffer.memref,
          sharedIndices(buffer, slot, coord[0], coord[1]));
      result = vector::InsertOp::create(
          builder, loc, nibble(builder, loc, byte, coord[2]), result, reg);
    }
    mapping.map(op.getResult(), result);
    return success();
  }
  if (!plan) {
    // Runs of registers that hold consecutive elements of a row inside one
    // swizzle chunk are read with one vector load (an MFMA operand's four
    // k elements: ds_read_b64), the rest element by element.
    int64_t run = contiguousRowRun(layout, buffer.swizzle,
                                   element.getIntOrFloatBitWidth());
    auto runType = VectorType::get({run}, element);
    for (int64_t reg = 0; reg < type.getNumElements(); reg += run) {
      SmallVector<Value> at = sharedIndices(buffer, slot, layout, reg);
      if (run == 1) {
        Value value = memref::LoadOp::create(builder, loc, buffer.memref, at);
        result = vector::InsertOp::create(builder, loc, value, result, reg);
        continue;
      }
      Value values = vector::LoadOp::create(
          builder, loc, runType, buffer.memref, at, /*nontemporal=*/false,
          llvm::MaybeAlign(run * element.getIntOrFloatBitWidth() / 8));
      result = vector::InsertStridedSliceOp::create(
          builder, loc, values, result, ArrayRef<int64_t>{reg},
          ArrayRef<int64_t>{1});
    }
    mapping.map(op.getResult(), result);
    return success();
  }
  int64_t perLoad = plan->registersPerLoad();
  auto loaded = VectorType::get({int64_t(plan->numMatrices), 2}, element);
  auto flat = VectorType::get({perLoad}, element);
  for (int64_t block = 0; block < type.getNumElements(); block += perLoad) {
    Value matrices = nvgpu::LdMatrixOp::create(
        builder, loc, loaded, buffer.memref,
        sharedIndices(buffer, slot, plan->rowAddress, block), plan->transpose,
        plan->numMatrices);
    Value registers = vector::ShapeCastOp::create(builder, loc, flat, matrices);
    result = vector::InsertStridedSliceOp::create(
        builder, loc, registers, result, ArrayRef<int64_t>{block},
        ArrayRef<int64_t>{1});
  }
  mapping.map(op.getResult(), result);
  return success();
}

LogicalResult GPULowering::lowerSharedStore(tile::StoreOp op) {
  if (isTmaBuffer(op.getDest()))
    return lowerTmaStore(op);
  const SharedBuffer &buffer = shared.at(op.getDest());
  if (buffer.packed)
    return op.emitOpError("into a buffer of int4 nibble pairs is not "
                          "supported by convert-tile-to-gpu yet");
  Value slot =
      op.getIndices().empty() ? Value() : mapping.lookup(op.getIndices()[0]);
  LinearLayout layout = layoutOf(op.getValue());
  Value value = mapping.lookup(op.getValue());
  Type element = vectorTypeOf(op.getValue()).getElementType();
  unsigned bits = element.getIntOrFloatBitWidth();
  OpBuilder::InsertionGuard guard(builder);
  // Elements that other threads hold too (lane or warp broadcast bits) are
  // stored by one of them.
  if (Value owner = ownsElements(layout)) {
    auto branch = scf::IfOp::create(builder, loc, owner);
    builder.setInsertionPointToStart(branch.thenBlock());
  }
  int64_t run = contiguousRowRun(layout, buffer.swizzle, bits);
  for (int64_t reg = 0; reg < layout.getSize(LinearLayout::Register);
       reg += run) {
    // Registers that repeat another register's elements store nothing.
    if (layout.findRegister(layout.apply(reg, 0, 0)) != uint64_t(reg))
      continue;
    SmallVector<Value> at = sharedIndices(buffer, slot, layout, reg);
    if (run == 1) {
      memref::StoreOp::create(
          builder, loc, vector::ExtractOp::create(builder, loc, value, reg),
          buffer.memref, at);
      continue;
    }
    Value part = vector::ExtractStridedSliceOp::create(
        builder, loc, value, ArrayRef<int64_t>{reg}, ArrayRef<int64_t>{run},
        ArrayRef<int64_t>{1});
    vector::StoreOp::create(builder, loc, part, buffer.memref, at,
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(run * bits / 8));
  }
  return success();
}

std::pair<SmallVector<Value>, Value>
GPULowering::viewElement(Value view, ValueRange offsets, ArrayRef<Value> coord,
                         Value row) {
  auto viewType = cast<MemRefType>(view.getType());
  unsigned rank = viewType.getRank(), tileRank = coord.size();
  // Leading offsets select the outer coordinates; the tile covers the
  // innermost dimensions, whose bounds mask (stores) or pad (loads). A row
  // chosen by index may be negative too.
  SmallVector<Value> at(offsets.take_front(offsets.size() - tileRank));
  Value inside;
  auto both = [&](Value a, Value b) {
    return a ? arith::AndIOp::create(builder, loc, a, b).getResult() : b;
  };
  for (unsigned d = 0; d < tileRank; ++d) {
    unsigned dim = rank - tileRank + d;
    Value index = arith::AddIOp::create(builder, loc, offsets[dim],
                                        d == 0 && row ? row : coord[d]);
    Value bound = memref::DimOp::create(builder, loc, view, dim);
    inside = both(inside,
                  arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                        index, bound));
    if (d == 0 && row)
      inside = both(inside, arith::CmpIOp::create(builder, loc,
                                                  arith::CmpIPredicate::sge,
                                                  index, this->index(0)));
    at.push_back(index);
  }
  return {at, inside};
}

Value GPULowering::rowIndex(Value rows, const LinearLayout &rowsLayout,
                            const LinearLayout &layout, uint64_t reg,
                            Operation *op) {
  if (!rows)
    return {};
  unsigned rank = layout.getRank();
  std::optional<uint64_t> held = heldRegister(
      rowsLayout, layout, reg, llvm::to_vector(llvm::seq<unsigned>(1, rank)));
  if (!held) {
    op->emitOpError("row indices are not held by the threads that hold "
                    "their rows (their layout must be the slice of the "
                    "tile's)");
    return {};
  }
  Value row = vector::ExtractOp::create(builder, loc, mapping.lookup(rows),
                                        int64_t(*held));
  if (!row.getType().isIndex())
    row = arith::IndexCastOp::create(builder, loc, builder.getIndexType(), row);
  return row;
}

FailureOr<Value> GPULowering::buildRuns(
    const LinearLayout &layout, VectorType type, int64_t run,
    function_ref<FailureOr<Value>(int64_t, ArrayRef<Value>)> load) {
  Value result =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  for (int64_t reg = 0; reg < type.getNumElements(); reg += run) {
    // A run that repeats another register's elements (a broadcast bit)
    // takes their values.
    Value part;
    if (uint64_t first = *layout.findRegister(layout.apply(reg, 0, 0));
        first != uint64_t(reg)) {
      part = vector::ExtractStridedSliceOp::create(
          builder, loc, result, ArrayRef<int64_t>{int64_t(first)},
          ArrayRef<int64_t>{run}, ArrayRef<int64_t>{1});
    } else {
      FailureOr<Value> loaded = load(reg, coordinate(layout, reg));
      if (failed(loaded))
        return failure();
      part = *loaded;
    }
    result = vector::InsertStridedSliceOp::create(builder, loc, part, result,
                                                  ArrayRef<int64_t>{reg},
                                                  ArrayRef<int64_t>{1});
  }
  return result;
}

std::pair<SmallVector<Value>, Value>
GPULowering::runElement(ArrayRef<Value> at, Value count, int64_t e) {
  SmallVector<Value> index(at);
  index.back() = arith::AddIOp::create(builder, loc, at.back(), this->index(e));
  return {index, arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                       this->index(e), count)};
}

Value GPULowering::loadRunElements(Value view, ArrayRef<Value> at, Value count,
                                   int64_t run, Value pad) {
  auto type = VectorType::get({run}, pad.getType());
  Value part =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  for (int64_t e = 0; e < run; ++e) {
    std::pair<SmallVector<Value>, Value> element = runElement(at, count, e);
    SmallVector<Value> &index = element.first;
    auto read = scf::IfOp::create(
        builder, loc, element.second,
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(
              b, l, memref::LoadOp::create(b, l, view, index).getResult());
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, pad); });
    part = vector::InsertOp::create(builder, loc, read.getResult(0), part, e);
  }
  return part;
}

std::optional<GPULowering::ViewRuns>
GPULowering::viewRuns(Value view, ArrayRef<Value> offsets,
                      const LinearLayout &layout, VectorType type) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (layout.getRank() != 2 || bits % 8)
    return std::nullopt;
  int64_t bytes = bits / 8;
  int64_t run = contiguousRowRun(layout, Swizzle{}, bits);
  if (run < 2 || run * bytes < 4)
    return std::nullopt;
  unsigned rank = cast<MemRefType>(view.getType()).getRank();
  Value rowsDim = memref::DimOp::create(builder, loc, view, rank - 2);
  Value colsDim = memref::DimOp::create(builder, loc, view, rank - 1);
  // Every run starts at a multiple of `run` elements from a 16-byte aligned
  // row start when the rows are aligned and the column offset is a
  // multiple of the run.
  Value direct = arith::AndIOp::create(
      builder, loc, rowsAligned(view, bytes),
      arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq,
          arith::RemSIOp::create(builder, loc, offsets[rank - 1], index(run)),
          index(0)));
  return ViewRuns{run, bytes, rowsDim, colsDim, direct};
}

FailureOr<Value> GPULowering::loadRuns(Operation *op, Value view,
                                       ArrayRef<Value> offsets,
                                       const LinearLayout &layout,
                                       VectorType type, Value pad, Value rows,
                                       const LinearLayout &rowsLayout) {
  std::optional<ViewRuns> runs = viewRuns(view, offsets, layout, type);
  if (!runs)
    return Value();
  int64_t run = runs->run, bytes = runs->bytes;
  Value rowsDim = runs->rows, colsDim = runs->cols, direct = runs->direct;
  unsigned rank = cast<MemRefType>(view.getType()).getRank();
  Type element = type.getElementType();
  auto runType = VectorType::get({run}, element);
  return buildRuns(
      layout, type, run,
      [&](int64_t reg, ArrayRef<Value> coord) -> FailureOr<Value> {
        Value chosen = rowIndex(rows, rowsLayout, layout, reg, op);
        if (rows && !chosen)
          return failure();
        Value row = arith::AddIOp::create(builder, loc, offsets[rank - 2],
                                          chosen ? chosen : coord[0]);
        Value col =
            arith::AddIOp::create(builder, loc, offsets[rank - 1], coord[1]);
        Value count = runInside(row, col, rowsDim, colsDim, run);
        if (rows) // a row chosen by index may be negative
          count = arith::SelectOp::create(
              builder, loc,
              arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge,
                                    row, index(0)),
              count, index(0));
        SmallVector<Value> at(offsets.begin(), std::prev(offsets.end(), 2));
        at.push_back(row);
        at.push_back(col);
        Value whole = arith::AndIOp::create(
            builder, loc, direct,
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, count,
                                  index(run)));
        auto split = scf::IfOp::create(builder, loc, TypeRange{runType}, whole,
                                       /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(split.thenBlock());
        scf::YieldOp::create(
            builder, loc,
            vector::LoadOp::create(builder, loc, runType, view, at,
                                   /*nontemporal=*/false,
                                   llvm::MaybeAlign(run * bytes))
                .getResult());
        // Rows not aligned, a run across the view's edge or outside it.
        builder.setInsertionPointToStart(split.elseBlock());
        scf::YieldOp::create(builder, loc,
                             loadRunElements(view, at, count, run, pad));
        return split.getResult(0);
      });
}

LogicalResult GPULowering::loadFromView(Operation *op, Value source,
                                        ValueRange indices, Value tile,
                                        Attribute padAttr, Value rows) {
  Value view = mapping.lookup(source);
  LinearLayout layout = layoutOf(tile);
  LinearLayout rowsLayout = rows ? layoutOf(rows) : LinearLayout();
  VectorType type = vectorTypeOf(tile);
  Type element = type.getElementType();
  SmallVector<Value> offsets;
  for (Value offset : indices)
    offsets.push_back(mapping.lookup(offset));
  Value pad = arith::ConstantOp::create(builder, loc, element,
                                        padAttr ? cast<TypedAttr>(padAttr)
                                                : builder.getZeroAttr(element));
  // int4 nibble pairs: the byte of the pair, then the nibble.
  auto viewType = cast<tile::ViewType>(source.getType());
  bool packed =
      tile::isNibblePairs(viewType.getElementType(), viewType.getShape());
  // AMD: zero-padded 2-D tiles through a buffer resource, a vector load
  // per run of a row.
  if (isAmd() && !rows && !packed && layout.getRank() == 2 &&
      (!padAttr || matchPattern(padAttr, m_AnyZeroFloat()) ||
       matchPattern(padAttr, m_Zero())))
    if (Value loaded = loadThroughBuffer(view, offsets, layout, type)) {
      mapping.map(tile, loaded);
      return success();
    }
  // Runs of registers along a row: a vector load each where aligned.
  if (!packed) {
    FailureOr<Value> loaded =
        loadRuns(op, view, offsets, layout, type, pad, rows, rowsLayout);
    if (failed(loaded))
      return failure();
    if (*loaded) {
      mapping.map(tile, *loaded);
      return success();
    }
  }
  // Each register reads its element, or the padding outside the view.
  Value result =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  for (int64_t reg = 0; reg < type.getNumElements(); ++reg) {
    // A register that repeats another register's element (a broadcast
    // bit: the scales of a dequantization) takes its value.
    if (uint64_t first = *layout.findRegister(layout.apply(reg, 0, 0));
        first != uint64_t(reg)) {
      result = vector::InsertOp::create(
          builder, loc,
          vector::ExtractOp::create(builder, loc, result, int64_t(first)),
          result, reg);
      continue;
    }
    Value row = rowIndex(rows, rowsLayout, layout, reg, op);
    if (rows && !row)
      return failure();
    std::pair<SmallVector<Value>, Value> element =
        viewElement(view, offsets, coordinate(layout, reg), row);
    SmallVector<Value> &at = element.first;
    Value which = at.back();
    if (packed)
      at.back() = index(0);
    auto read = scf::IfOp::create(
        builder, loc, element.second,
        [&](OpBuilder &b, Location l) {
          Value value = memref::LoadOp::create(b, l, view, at);
          if (packed)
            value = nibble(b, l, value, which);
          scf::YieldOp::create(b, l, value);
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, pad); });
    result =
        vector::InsertOp::create(builder, loc, read.getResult(0), result, reg);
  }
  mapping.map(tile, result);
  return success();
}
