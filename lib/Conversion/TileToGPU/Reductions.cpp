//===- Reductions.cpp - tile.reduce and tile.broadcast --------------------===//
//
// A reduction's result has the slice of its input's layout. Each thread
// first combines its registers that hold the same result element, then the
// lanes that hold parts of one result element exchange partial results with
// butterfly shuffles (one per lane bit that moves along the reduced
// dimension), then the warps that split the reduced dimension combine
// theirs through a scratch buffer in shared memory (stores, a barrier,
// loads in one order, a barrier). A broadcast reads, for each register of
// its result, the register of its input (the slice of the result's layout)
// that holds the same element (a broadcast that expands unit dimensions:
// the element with those coordinates 0); the lowering checks that the
// thread holds it.
// A tensor.extract reads the register every thread holds its element in.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

/// `coord` without the dimensions in `dropped`, or with them 0 when
/// `keepRank` (a broadcast that expands unit dimensions).
static Coord project(const Coord &coord, ArrayRef<unsigned> dropped,
                     bool keepRank = false) {
  Coord kept;
  for (unsigned d = 0; d < coord.size(); ++d)
    if (!llvm::is_contained(dropped, d))
      kept.push_back(coord[d]);
    else if (keepRank)
      kept.push_back(0);
  return kept;
}

static Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
                     Value y) {
  bool real = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::sum:
    return real ? arith::AddFOp::create(b, loc, x, y).getResult()
                : arith::AddIOp::create(b, loc, x, y).getResult();
  case tile::ReduceKind::max:
    return real ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case tile::ReduceKind::min:
    return real ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                : arith::MinSIOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown reduction");
}

LogicalResult GPULowering::lowerReduce(tile::ReduceOp op) {
  LinearLayout in = layoutOf(op.getInput()), out = layoutOf(op.getResult());
  SmallVector<unsigned> dropped = {unsigned(op.getDim())};
  if (out != in.sliced(dropped))
    return op.emitOpError("result layout is not the slice of the input's");
  // Lane bits that move along the reduced dimension combine by shuffles,
  // warp bits through shared memory; a bit moving along both dimensions
  // cannot be reduced here.
  SmallVector<unsigned> shuffleBits, warpBits;
  auto moves = [&](const Coord &basis) {
    return std::make_pair(basis[op.getDim()] != 0,
                          llvm::any_of(project(basis, dropped),
                                       [](int64_t v) { return v != 0; }));
  };
  if (failed(combinedBits(op, in, moves, "along two dimensions at once",
                          shuffleBits, warpBits)))
    return failure();

  Value input = mapping.lookup(op.getInput());
  VectorType type = vectorTypeOf(op.getResult());
  SmallVector<Value> partial(type.getNumElements());
  for (int64_t reg = 0; reg < in.getSize(LinearLayout::Register); ++reg) {
    std::optional<uint64_t> target =
        out.findRegister(project(in.apply(reg, 0, 0), dropped));
    if (!target)
      return op.emitOpError("result layout holds no register for input "
                            "register ")
             << reg;
    Value element = vector::ExtractOp::create(builder, loc, input, reg);
    Value &slot = partial[*target];
    slot = slot ? combine(builder, loc, op.getKind(), slot, element) : element;
  }
  for (Value &value : partial)
    value = butterfly(value, shuffleBits, op.getKind());
  if (failed(acrossWarps(op, partial, warpBits, op.getKind())))
    return failure();
  Value result =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  for (auto [reg, value] : llvm::enumerate(partial))
    result = vector::InsertOp::create(builder, loc, value, result, reg);
  mapping.map(op.getResult(), result);
  return success();
}

LogicalResult
tessera::combinedBits(Operation *op, const LinearLayout &layout,
                      function_ref<std::pair<bool, bool>(const Coord &)> moves,
                      StringRef both, SmallVectorImpl<unsigned> &shuffleBits,
                      SmallVectorImpl<unsigned> &warpBits) {
  for (auto [dim, bits, name] :
       {std::make_tuple(LinearLayout::Lane, &shuffleBits, "lane"),
        std::make_tuple(LinearLayout::Warp, &warpBits, "warp")})
    for (auto [bit, basis] : llvm::enumerate(layout.getBases(dim))) {
      auto [within, across] = moves(basis);
      if (within && across)
        return op->emitOpError("input layout moves ")
               << name << " bit " << bit << " " << both;
      if (within)
        bits->push_back(bit);
    }
  return success();
}

LogicalResult GPULowering::acrossWarps(Operation *op,
                                       MutableArrayRef<Value> values,
                                       ArrayRef<unsigned> warpBits,
                                       tile::ReduceKind kind) {
  if (warpBits.empty() || values.empty())
    return success();
  Type element = values.front().getType();
  int64_t count = int64_t(values.size());
  int64_t threads = numWarps * target.warpSize;
  FailureOr<Value> buffer =
      scratchBuffer(op, threads * count, element, "to combine across warps");
  if (failed(buffer))
    return failure();
  Value scratch = *buffer;
  // Value i of the thread at (warp w, lane l) is at slot (w W + l) n + i.
  auto firstSlot = [&](Value warpIndex) -> Value {
    Value thread = arith::AddIOp::create(
        builder, loc,
        arith::MulIOp::create(builder, loc, warpIndex, index(target.warpSize)),
        lane);
    return arith::MulIOp::create(builder, loc, thread, index(count));
  };
  auto slot = [&](Value first, int64_t i) -> Value {
    return arith::AddIOp::create(builder, loc, first, index(i));
  };
  Value own = firstSlot(warp);
  for (auto [i, value] : llvm::enumerate(values))
    memref::StoreOp::create(builder, loc, value, scratch,
                            ValueRange{slot(own, i)});
  syncThreads();
  // The group's warps in one order: this warp with the group's bits
  // replaced by m, m = 0, 1, ...
  int64_t mask = 0;
  for (unsigned bit : warpBits)
    mask |= int64_t(1) << bit;
  Value base = arith::AndIOp::create(builder, loc, warp, index(~mask));
  SmallVector<Value> group;
  for (int64_t m = 0; m < (int64_t(1) << warpBits.size()); ++m) {
    int64_t bits = 0;
    for (auto [j, bit] : llvm::enumerate(warpBits))
      if (m & (int64_t(1) << j))
        bits |= int64_t(1) << bit;
    group.push_back(
        firstSlot(arith::OrIOp::create(builder, loc, base, index(bits))));
  }
  for (auto [i, value] : llvm::enumerate(values)) {
    Value combined;
    for (Value first : group) {
      Value loaded = memref::LoadOp::create(builder, loc, scratch,
                                            ValueRange{slot(first, i)});
      combined =
          combined ? combine(builder, loc, kind, combined, loaded) : loaded;
    }
    value = combined;
  }
  syncThreads();
  return success();
}

Value GPULowering::butterfly(Value value, ArrayRef<unsigned> laneBits,
                             tile::ReduceKind kind) {
  Value width = arith::ConstantIntOp::create(builder, loc, target.warpSize, 32);
  for (unsigned bit : laneBits) {
    Value offset = arith::ConstantIntOp::create(builder, loc, 1 << bit, 32);
    Value other = gpu::ShuffleOp::create(builder, loc, value, offset, width,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    value = combine(builder, loc, kind, value, other);
  }
  return value;
}

std::optional<uint64_t> GPULowering::heldRegister(const LinearLayout &slice,
                                                  const LinearLayout &full,
                                                  uint64_t reg,
                                                  ArrayRef<unsigned> dropped,
                                                  bool keepRank) {
  // The registers of `slice` that hold the element in thread 0; the one
  // that holds it in every thread (layouts that hold the same elements per
  // thread in other registers: lane bits may differ in where they put it).
  Coord wanted = project(full.apply(reg, 0, 0), dropped, keepRank);
  for (int64_t source = 0; source < slice.getSize(LinearLayout::Register);
       ++source) {
    if (slice.apply(source, 0, 0) != wanted)
      continue;
    bool everywhere = true;
    for (int64_t lane = 0;
         everywhere && lane < slice.getSize(LinearLayout::Lane); ++lane)
      for (int64_t warp = 0; everywhere && warp < numWarps; ++warp)
        everywhere = slice.apply(source, lane, warp) ==
                     project(full.apply(reg, lane, warp), dropped, keepRank);
    if (everywhere)
      return source;
  }
  return std::nullopt;
}

LogicalResult GPULowering::lowerBroadcast(tile::BroadcastOp op) {
  LinearLayout in = layoutOf(op.getInput()), out = layoutOf(op.getResult());
  SmallVector<unsigned> dropped(op.getDims().begin(), op.getDims().end());
  bool keepRank = op.getInput().getType().getRank() == op.getType().getRank();
  Value input = mapping.lookup(op.getInput());
  VectorType type = vectorTypeOf(op.getResult());
  SmallVector<uint64_t> sources;
  for (int64_t reg = 0; reg < type.getNumElements(); ++reg) {
    // Every thread must hold the element its register repeats.
    std::optional<uint64_t> source =
        heldRegister(in, out, reg, dropped, keepRank);
    if (!source)
      return op.emitOpError("input layout does not give each thread the "
                            "elements it repeats (a layout conversion "
                            "would be needed)");
    sources.push_back(*source);
  }
  // Every register repeating one element (a row's value broadcast along
  // the row a thread holds) makes a splat.
  Value scalar = splatScalar(input);
  if (!scalar && llvm::all_equal(sources))
    scalar = vector::ExtractOp::create(builder, loc, input, sources.front());
  if (scalar) {
    mapping.map(op.getResult(),
                vector::BroadcastOp::create(builder, loc, type, scalar));
    return success();
  }
  Value result =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  for (auto [reg, source] : llvm::enumerate(sources)) {
    Value element = vector::ExtractOp::create(builder, loc, input, source);
    result = vector::InsertOp::create(builder, loc, element, result, reg);
  }
  mapping.map(op.getResult(), result);
  return success();
}

LogicalResult GPULowering::lowerExtract(tensor::ExtractOp op) {
  Coord coord;
  for (Value index : op.getIndices()) {
    std::optional<int64_t> value = getConstantIntValue(index);
    if (!value)
      return op.emitOpError("at a dynamic index is not supported by "
                            "convert-tile-to-gpu yet");
    coord.push_back(*value);
  }
  // A tile of one element laid out over coordinates (0..): every thread
  // must hold the element, in the same register.
  LinearLayout layout = layoutOf(op.getTensor());
  std::optional<uint64_t> reg = layout.findRegister(coord);
  bool everywhere = reg.has_value();
  for (int64_t lane = 0;
       everywhere && lane < layout.getSize(LinearLayout::Lane); ++lane)
    for (int64_t warp = 0; everywhere && warp < numWarps; ++warp)
      everywhere = layout.apply(*reg, lane, warp) == coord;
  if (!everywhere)
    return op.emitOpError("of an element that not every thread holds is not "
                          "supported by convert-tile-to-gpu yet (it needs a "
                          "shuffle or shared memory)");
  mapping.map(op.getResult(),
              vector::ExtractOp::create(
                  builder, loc, mapping.lookup(op.getTensor()), int64_t(*reg)));
  return success();
}
