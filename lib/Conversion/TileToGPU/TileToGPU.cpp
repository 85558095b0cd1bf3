//===- TileToGPU.cpp - Tile kernels to per-thread GPU code ----------------===//
//
// Builds each kernel's gpu.func in the module's gpu.module, walks the
// kernel body in order and lowers scalar code, loops and element-wise tiles
// here; memory and MMA ops in the Nvidia*.cpp files.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Conversion/Branches.h"
#include "tessera/Conversion/Fp8.h"

#include "tessera/Conversion/Passes.h"
#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/runtime/kernel_abi.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/SaveAndRestore.h"

namespace tessera {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tessera/Conversion/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

MemRefType tessera::getGPUViewType(tile::ViewType view) {
  SmallVector<int64_t> shape(view.getRank(), ShapedType::kDynamic);
  SmallVector<int64_t> strides(view.getRank(), ShapedType::kDynamic);
  strides.back() = 1;
  auto layout =
      StridedLayoutAttr::get(view.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(shape, getGPUStorageType(view.getElementType()),
                         layout);
}

/// Records the kernel's thread-block cluster for its launches (the
/// `tessera.cluster` metadata token) on chips that have clusters. Elsewhere
/// the kernel launches without one, which nothing in a tile program can
/// tell apart (it has no cluster ids or distributed shared memory), and a
/// warning says so.
static LogicalResult recordCluster(tile::KernelOp kernel, gpu::GPUFuncOp func,
                                   const TargetInfo &target) {
  std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster();
  if (!cluster)
    return success();
  SmallVector<int64_t, 3> dims(cluster->begin(), cluster->end());
  dims.resize(3, 1);
  std::string shape = llvm::join(
      llvm::map_range(dims, [](int64_t d) { return std::to_string(d); }), ", ");
  if (!target.maxClusterBlocks) {
    kernel.emitWarning() << "cluster(" << shape << ") is ignored on "
                         << target.chip
                         << ", which has no thread-block clusters: its "
                            "program instances launch one by one";
    return success();
  }
  int64_t blocks = dims[0] * dims[1] * dims[2];
  if (blocks > target.maxClusterBlocks)
    return kernel.emitError()
           << "a cluster of " << blocks << " program instances exceeds "
           << target.chip << "'s limit of " << target.maxClusterBlocks;
  func->setAttr(
      "tessera.cluster",
      StringAttr::get(func.getContext(), TESSERA_CLUSTER_PREFIX +
                                             std::to_string(dims[0]) + "x" +
                                             std::to_string(dims[1]) + "x" +
                                             std::to_string(dims[2])));
  return success();
}

GPULowering::GPULowering(tile::KernelOp kernel, const TargetInfo &target,
                         gpu::GPUModuleOp gpuModule)
    : kernel(kernel), target(target), gpuModule(gpuModule), builder(kernel),
      loc(kernel.getLoc()), numWarps(kernel.getThreads() / target.warpSize) {}

Value GPULowering::index(int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

LinearLayout GPULowering::layoutOf(Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  return cast<tile::LinearLayoutAttr>(type.getEncoding())
      .toLinearLayout(type.getShape());
}

VectorType GPULowering::vectorTypeOf(Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  return VectorType::get({layoutOf(tile).getSize(LinearLayout::Register)},
                         getGPUStorageType(type.getElementType()));
}

Value GPULowering::ownsElements(const LinearLayout &layout) {
  Value owner;
  for (auto [in, id] : {std::pair{LinearLayout::Lane, lane},
                        std::pair{LinearLayout::Warp, warp}})
    for (auto [bit, basis] : llvm::enumerate(layout.getBases(in))) {
      if (!llvm::all_of(basis, [](int64_t c) { return c == 0; }))
        continue;
      Value set = arith::AndIOp::create(
          builder, loc, arith::ShRUIOp::create(builder, loc, id, index(bit)),
          index(1));
      Value clear = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, set, index(0));
      owner =
          owner ? arith::AndIOp::create(builder, loc, owner, clear).getResult()
                : clear;
    }
  return owner;
}

SmallVector<Value> GPULowering::coordinate(const LinearLayout &layout,
                                           uint64_t reg) {
  std::string key = layout.str();
  auto it = threadParts.find(key);
  if (it == threadParts.end()) {
    // XOR of the lane and warp bases selected by this thread's bits,
    // computed once at the top of the kernel.
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(&*prologueEnd);
    SmallVector<Value> part;
    for (unsigned d = 0; d < layout.getRank(); ++d) {
      Value sum = index(0);
      for (auto [in, id] : {std::pair{LinearLayout::Lane, lane},
                            std::pair{LinearLayout::Warp, warp}})
        for (auto [bit, basis] : llvm::enumerate(layout.getBases(in))) {
          if (basis[d] == 0)
            continue;
          Value shifted = arith::ShRUIOp::create(builder, loc, id, index(bit));
          Value one = arith::AndIOp::create(builder, loc, shifted, index(1));
          Value term =
              arith::MulIOp::create(builder, loc, one, index(basis[d]));
          sum = arith::XOrIOp::create(builder, loc, sum, term);
        }
      part.push_back(sum);
    }
    it = threadParts.emplace(key, part).first;
  }
  Coord constant = layout.apply(reg, 0, 0);
  SmallVector<Value> result;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    result.push_back(constant[d]
                         ? arith::XOrIOp::create(builder, loc, it->second[d],
                                                 index(constant[d]))
                               .getResult()
                         : it->second[d]);
  return result;
}

LogicalResult GPULowering::run() {
  MLIRContext *ctx = kernel.getContext();
  SmallVector<Type> argTypes;
  for (BlockArgument arg : kernel.getArguments()) {
    if (auto view = dyn_cast<tile::ViewType>(arg.getType())) {
      if (view.getElementType().getIntOrFloatBitWidth() % 8 &&
          !tile::isNibblePairs(view.getElementType(), view.getShape()))
        return kernel.emitOpError("argument #")
               << arg.getArgNumber() << " holds sub-byte "
               << view.getElementType()
               << " codes other than int4 nibble pairs ([.., n, 2]), which "
                  "convert-tile-to-gpu does not lower yet";
      argTypes.push_back(getGPUViewType(view));
      continue;
    }
    argTypes.push_back(arg.getType());
  }
  if (failed(planTensorMaps(argTypes)))
    return failure();
  builder.setInsertionPointToEnd(gpuModule.getBody());
  func = gpu::GPUFuncOp::create(builder, loc, kernel.getSymName(),
                                FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {int32_t(tile::launchedThreads(kernel)), 1, 1}));
  Block &entry = func.getBody().front();
  for (auto [from, to] : llvm::zip(kernel.getArguments(), entry.getArguments()))
    mapping.map(from, to);
  for (auto [i, map] : llvm::enumerate(tensorMaps))
    map.pointer = entry.getArgument(kernel.getNumArguments() + i);

  // tag-check has proved the invariants; the ghost values go too.
  tag::eraseTagOps(kernel);
  builder.setInsertionPointToStart(&entry);
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  lane = arith::RemUIOp::create(builder, loc, tid, index(target.warpSize));
  warp = arith::DivUIOp::create(builder, loc, tid, index(target.warpSize));
  // Ping-pong consumers: each set of the kernel's threads lays tiles out
  // as the kernel was written, with its own warps from 0.
  if (!kernel.getBody().empty())
    for (auto roles : kernel.getBody().front().getOps<tile::WarpSpecializeOp>())
      if (roles.getPingpong()) {
        consumerGroup = arith::DivUIOp::create(builder, loc, tid,
                                               index(kernel.getThreads()));
        consumerSets = roles.getConsumerGroups();
        warp = arith::RemUIOp::create(builder, loc, warp, index(numWarps));
      }
  // Everything per-thread goes before this marker; the body after it.
  auto marker = arith::ConstantIndexOp::create(builder, loc, 0);
  prologueEnd = Block::iterator(marker);
  if (failed(lowerBlock(kernel.getBody().front())))
    return failure();
  if (marker->use_empty())
    marker->erase();
  // tag-check refuses such kernels too; without it (--no-tag-check) this
  // lowering does, rather than a bundle no launch can run.
  if (sharedBytes > target.maxSharedBytes)
    return kernel.emitError()
           << "places " << sharedBytes << " bytes of shared memory but "
           << target.chip << " has " << target.maxSharedBytes
           << " for a program; use smaller tiles or fewer stages";
  // What the launch needs beyond the tile-level metadata: the dynamic
  // shared memory this lowering placed and the tensor maps to encode.
  func->setAttr("tessera.shared_bytes", builder.getI64IntegerAttr(sharedBytes));
  if (!tensorMaps.empty()) {
    SmallVector<Attribute> maps;
    for (const TensorMap &map : tensorMaps)
      maps.push_back(builder.getStringAttr(
          TESSERA_TENSOR_MAP_PREFIX + std::to_string(map.arg) + ":" +
          std::to_string(map.boxCols) + "x" + std::to_string(map.boxRows)));
    func->setAttr("tessera.tensor_maps", builder.getArrayAttr(maps));
  }
  if (failed(recordCluster(kernel, func, target)))
    return failure();
  kernel.erase();
  return success();
}

LogicalResult GPULowering::lowerBlock(Block &block) {
  for (Operation &op : block)
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult GPULowering::lowerIf(scf::IfOp branch) {
  SmallVector<Type> types;
  for (Value result : branch.getResults())
    types.push_back(isa<RankedTensorType>(result.getType())
                        ? Type(vectorTypeOf(result))
                        : result.getType());
  auto lowered = scf::IfOp::create(
      builder, loc, types, mapping.lookup(branch.getCondition()),
      /*withElseRegion=*/!branch.getElseRegion().empty());
  if (failed(lowerBranchRegions(
          builder, branch, lowered, [&](Operation *op) { return lowerOp(op); },
          [&](Operation *terminator) {
            SmallVector<Value> yielded;
            for (Value value : terminator->getOperands())
              yielded.push_back(mapping.lookup(value));
            return yielded;
          })))
    return failure();
  for (auto [from, to] : llvm::zip(branch.getResults(), lowered.getResults()))
    mapping.map(from, to);
  return success();
}

LogicalResult GPULowering::lowerFor(scf::ForOp loop) {
  // sm_90a: one wgmma group may stay in flight across iterations, the
  // ring copies then issued after the MMA, or (in a consumer role) the
  // slots released one iteration late (WgmmaOverlap.cpp).
  SmallVector<Operation *> order;
  tile::MmaOp overlapped = planWgmmaOverlap(loop, order);
  SmallVector<tile::MbarrierArriveOp> releases;
  if (!overlapped && role == Role::Consumer)
    overlapped = planDeferredReleases(loop, releases);
  if (order.empty())
    for (Operation &op : loop.getBody()->without_terminator())
      order.push_back(&op);
  SmallVector<Value> inits;
  for (Value init : loop.getInitArgs())
    inits.push_back(mapping.lookup(init));
  // A deferred release carries the slot it releases to the next iteration.
  for (size_t i = 0; i < releases.size(); ++i)
    inits.push_back(index(0));
  auto newLoop =
      scf::ForOp::create(builder, loc, mapping.lookup(loop.getLowerBound()),
                         mapping.lookup(loop.getUpperBound()),
                         mapping.lookup(loop.getStep()), inits);
  mapping.map(loop.getInductionVar(), newLoop.getInductionVar());
  for (auto [from, to] :
       llvm::zip(loop.getRegionIterArgs(), newLoop.getRegionIterArgs()))
    mapping.map(from, to);
  SmallVector<Value> released;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(newLoop.getBody());
    llvm::SaveAndRestore<Operation *> inFlight(overlappedWgmma, overlapped);
    for (Operation *op : order) {
      auto release = dyn_cast<tile::MbarrierArriveOp>(op);
      auto deferred = release ? llvm::find(releases, release) : releases.end();
      if (deferred == releases.end()) {
        if (failed(lowerOp(op)))
          return failure();
        continue;
      }
      // The previous iteration's slot: its wgmma group is complete.
      size_t i = deferred - releases.begin();
      Value previous =
          newLoop.getRegionIterArgs()[loop.getNumRegionIterArgs() + i];
      Value notFirst = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ne, newLoop.getInductionVar(),
          newLoop.getLowerBound());
      auto branch = scf::IfOp::create(builder, loc, notFirst);
      OpBuilder::InsertionGuard inner(builder);
      builder.setInsertionPointToStart(branch.thenBlock());
      arriveOn(release.getBarrier(), previous);
      released.push_back(mapping.lookup(release.getSlot()));
    }
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<Value> yielded;
    for (Value value : yield.getOperands())
      yielded.push_back(mapping.lookup(value));
    llvm::append_range(yielded, released);
    if (newLoop.getBody()->mightHaveTerminator())
      newLoop.getBody()->getTerminator()->erase();
    builder.setInsertionPointToEnd(newLoop.getBody());
    scf::YieldOp::create(builder, loc, yielded);
  }
  for (auto [from, to] : llvm::zip(loop.getResults(), newLoop.getResults()))
    mapping.map(from, to);
  // The last group completes before the accumulator is read.
  if (overlapped) {
    auto iterArg = cast<BlockArgument>(overlapped.getAcc());
    Value result = loop.getTiedLoopResult(iterArg);
    mapping.map(result, waitWgmma(0, mapping.lookup(result)));
  }
  // Then the last iteration's slots are released, if the loop ran.
  if (!releases.empty()) {
    // scf.for's own (signed) comparison of its bounds.
    Value ran =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                              newLoop.getLowerBound(), newLoop.getUpperBound());
    auto branch = scf::IfOp::create(builder, loc, ran);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(branch.thenBlock());
    for (auto [i, release] : llvm::enumerate(releases))
      arriveOn(release.getBarrier(),
               newLoop.getResults()[loop.getNumResults() + i]);
  }
  return success();
}

LogicalResult GPULowering::lowerElementwise(Operation *op) {
  if (isa<math::MathDialect>(op->getDialect())) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(mapping.lookup(operand));
    Value lowered = lowerMathOp(builder, loc, op, operands,
                                vectorTypeOf(op->getResult(0)), isAmd());
    if (!lowered)
      return op->emitOpError("is not supported by convert-tile-to-gpu (math "
                             "on float tiles is, and absi, ctlz, cttz and "
                             "ctpop on integer ones; tile-expand-powers, "
                             "which tessera-compile runs, expands ipowi and "
                             "fpowi)");
    mapping.map(op->getResult(0), lowered);
    return success();
  }
  // fp8 codes are held as their bits: arith.extf decodes them; nothing
  // else computes on them element-wise (as on the host).
  auto isFp8 = [](Type type) {
    return isa<Float8E4M3FNType>(getElementTypeOrSelf(type));
  };
  bool decodes = isa<arith::ExtFOp>(op) && isFp8(op->getOperand(0).getType());
  if (!decodes && (llvm::any_of(op->getResultTypes(), isFp8) ||
                   llvm::any_of(op->getOperandTypes(), isFp8)))
    return op->emitOpError("on fp8 tiles is not supported by "
                           "convert-tile-to-gpu (only arith.extf, "
                           "tile.dequant, tile.quant and tile.mma are)");
  if (decodes) {
    Value value = decodeE4M3(builder, loc, mapping.lookup(op->getOperand(0)));
    VectorType type = vectorTypeOf(op->getResult(0));
    if (!type.getElementType().isF32())
      value = arith::TruncFOp::create(builder, loc, type, value);
    mapping.map(op->getResult(0), value);
    return success();
  }
  // int4 codes are held sign-extended in i8: extending them to i8 is a
  // renaming (signed) or keeps the low nibble (unsigned).
  if (isa<arith::ExtSIOp, arith::ExtUIOp>(op) &&
      mapping.lookup(op->getOperand(0)).getType() ==
          vectorTypeOf(op->getResult(0))) {
    Value codes = mapping.lookup(op->getOperand(0));
    if (isa<arith::ExtUIOp>(op)) {
      auto type = cast<VectorType>(codes.getType());
      codes = arith::AndIOp::create(
          builder, loc, codes,
          arith::ConstantOp::create(
              builder, loc, type,
              DenseElementsAttr::get(
                  type, builder.getIntegerAttr(type.getElementType(), 15))));
    }
    mapping.map(op->getResult(0), codes);
    return success();
  }
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(mapping.lookup(operand));
  // The op on `args`, with results of the registers' types (`perRegister`)
  // or the tiles'.
  auto create = [&](ValueRange args, bool perRegister) {
    OperationState state(loc, op->getName());
    state.addOperands(args);
    for (Value result : op->getResults()) {
      VectorType type = vectorTypeOf(result);
      state.addTypes(perRegister ? type.getElementType() : Type(type));
    }
    state.addAttributes(op->getAttrs());
    return builder.create(state);
  };
  // On splats only: computed once, then splat. On CDNA, integer ops (and
  // comparisons) with a splat operand go register by register with the
  // scalar: there is no vector integer ALU to feed, and the backend
  // otherwise keeps a register per copy of the splat wherever it is live
  // (attention's masks: 36 VGPRs on gfx942). ptxas gains nothing from it
  // (sm_80 attention: 19 registers more), so NVIDIA keeps the vector form.
  bool onSplats = llvm::all_of(operands, isSplat);
  bool perRegister = isAmd() && llvm::any_of(operands, isSplat) &&
                     isa<IntegerType, IndexType>(
                         getElementTypeOrSelf(op->getOperand(0).getType()));
  if (op->getNumResults() == 1 && (onSplats || perRegister)) {
    VectorType type = vectorTypeOf(op->getResult(0));
    SmallVector<Value> scalars;
    for (Value operand : operands)
      scalars.push_back(splatScalar(operand));
    if (onSplats) {
      mapping.map(op->getResult(0),
                  vector::BroadcastOp::create(
                      builder, loc, type, create(scalars, true)->getResult(0)));
      return success();
    }
    SmallVector<Value> results;
    for (int64_t reg = 0; reg < type.getNumElements(); ++reg) {
      SmallVector<Value> args;
      for (auto [vector, scalar] : llvm::zip_equal(operands, scalars))
        args.push_back(
            scalar ? scalar
                   : vector::ExtractOp::create(builder, loc, vector, reg)
                         .getResult());
      results.push_back(create(args, true)->getResult(0));
    }
    mapping.map(op->getResult(0),
                vector::FromElementsOp::create(builder, loc, type, results));
    return success();
  }
  Operation *lowered = create(operands, false);
  for (auto [from, to] :
       llvm::zip_equal(op->getResults(), lowered->getResults()))
    mapping.map(from, to);
  return success();
}

bool GPULowering::isSplat(Value vector) {
  if (auto broadcast = vector.getDefiningOp<vector::BroadcastOp>())
    return !isa<VectorType>(broadcast.getSource().getType());
  if (auto constant = vector.getDefiningOp<arith::ConstantOp>())
    return isa<SplatElementsAttr>(constant.getValue());
  return false;
}

Value GPULowering::splatScalar(Value vector) {
  if (!isSplat(vector))
    return {};
  if (auto broadcast = vector.getDefiningOp<vector::BroadcastOp>())
    return broadcast.getSource();
  auto dense = cast<SplatElementsAttr>(
      vector.getDefiningOp<arith::ConstantOp>().getValue());
  return arith::ConstantOp::create(builder, loc,
                                   dense.getSplatValue<TypedAttr>());
}

LogicalResult GPULowering::lowerConstant(arith::ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || !dense.isSplat())
    return op.emitOpError("on a tile must be a splat for convert-tile-to-gpu");
  VectorType type = vectorTypeOf(op.getResult());
  Value value = arith::ConstantOp::create(
      builder, loc, type,
      DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
  mapping.map(op.getResult(), value);
  return success();
}

LogicalResult GPULowering::lowerOp(Operation *op) {
  // What an op lowers to keeps its location (the device code's line table
  // and the emulator's reports name the source op).
  Location kernelLoc = loc;
  loc = op->getLoc();
  llvm::scope_exit restore([&] { loc = kernelLoc; });
  for (Value operand : op->getOperands())
    if (!mapping.contains(operand))
      return op->emitOpError("uses a value convert-tile-to-gpu did not lower");
  bool onTiles =
      llvm::any_of(op->getOperandTypes(),
                   [](Type t) { return isa<RankedTensorType>(t); }) ||
      llvm::any_of(op->getResultTypes(),
                   [](Type t) { return isa<RankedTensorType>(t); });
  for (Type type : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      auto layout =
          dyn_cast_if_present<tile::LinearLayoutAttr>(tensor.getEncoding());
      if (!layout)
        return op->emitOpError("makes a register tile without a layout; run "
                               "tile-assign-layouts first");
      // The distribution relies on it: never lower a layout that leaves
      // elements without a holder or gives one two.
      std::string why;
      if (!layout.toLinearLayout(tensor.getShape()).coversExactly(&why))
        return op->emitOpError("makes a register tile whose layout does not "
                               "cover it exactly: ")
               << why;
    }
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return lowerFor(loop);
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return lowerIf(branch);
  if (auto constant = dyn_cast<arith::ConstantOp>(op); constant && onTiles)
    return lowerConstant(constant);
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
    if (!onTiles) {
      builder.clone(*op, mapping);
      return success();
    }
    if (op->hasTrait<OpTrait::Elementwise>())
      return lowerElementwise(op);
  }
  if (auto splat = dyn_cast<tile::SplatOp>(op)) {
    Value value = vector::BroadcastOp::create(builder, loc,
                                              vectorTypeOf(splat.getResult()),
                                              mapping.lookup(splat.getValue()));
    mapping.map(splat.getResult(), value);
    return success();
  }
  if (auto select = dyn_cast<tile::SelectOp>(op)) {
    // A splat condition selects whole vectors.
    Value condition = mapping.lookup(select.getCondition());
    if (Value scalar = splatScalar(condition))
      condition = scalar;
    mapping.map(
        select.getResult(),
        arith::SelectOp::create(builder, loc, condition,
                                mapping.lookup(select.getTrueValue()),
                                mapping.lookup(select.getFalseValue())));
    return success();
  }
  if (auto iota = dyn_cast<tile::IotaOp>(op)) {
    // Each register holds its own coordinate.
    LinearLayout layout = layoutOf(iota.getResult());
    VectorType type = vectorTypeOf(iota.getResult());
    Value result = arith::ConstantOp::create(builder, loc, type,
                                             builder.getZeroAttr(type));
    for (int64_t reg = 0; reg < type.getNumElements(); ++reg) {
      Value position = coordinate(layout, reg)[0];
      if (!type.getElementType().isIndex())
        position = arith::IndexCastOp::create(builder, loc,
                                              type.getElementType(), position);
      result = vector::InsertOp::create(builder, loc, position, result, reg);
    }
    mapping.map(iota.getResult(), result);
    return success();
  }
  if (auto id = dyn_cast<tile::ProgramIdOp>(op)) {
    mapping.map(id.getResult(),
                gpu::BlockIdOp::create(builder, loc,
                                       gpu::Dimension(uint32_t(id.getDim()))));
    return success();
  }
  if (auto count = dyn_cast<tile::NumProgramsOp>(op)) {
    mapping.map(count.getResult(),
                gpu::GridDimOp::create(
                    builder, loc, gpu::Dimension(uint32_t(count.getDim()))));
    return success();
  }
  if (auto coords = dyn_cast<tile::TileCoordsOp>(op)) {
    SmallVector<Value> operands;
    for (Value operand : coords->getOperands())
      operands.push_back(mapping.lookup(operand));
    for (auto [result, value] : llvm::zip_equal(
             coords->getResults(), coords.expand(builder, operands)))
      mapping.map(result, value);
    return success();
  }
  if (auto dim = dyn_cast<tile::DimOp>(op)) {
    mapping.map(dim.getResult(),
                memref::DimOp::create(builder, loc,
                                      mapping.lookup(dim.getView()),
                                      dim.getDimension()));
    return success();
  }
  if (isa<tile::BarrierOp>(op)) {
    syncThreads();
    return success();
  }
  if (auto alloc = dyn_cast<tile::AllocSharedOp>(op))
    return lowerAllocShared(alloc);
  if (auto alloc = dyn_cast<tile::AllocMbarrierOp>(op))
    return lowerAllocMbarrier(alloc);
  if (isa<tile::MbarrierWaitOp, tile::MbarrierArriveOp>(op))
    return lowerMbarrierOp(op);
  if (auto roles = dyn_cast<tile::WarpSpecializeOp>(op))
    return lowerWarpSpecialize(roles);
  if (auto copy = dyn_cast<tile::CopyOp>(op))
    return role == Role::Producer ? lowerRoleCopy(copy) : lowerCopy(copy);
  // On AMD copies are complete when issued: no groups to commit or wait.
  if (auto out = dyn_cast<tile::CopyOutOp>(op))
    return lowerCopyOut(out);
  if (isa<tile::AsyncCommitOp>(op)) {
    if (!isAmd())
      NVVM::CpAsyncCommitGroupOp::create(builder, loc);
    // Bulk groups are counted apart: every commit closes one of each.
    if (hasTmaStores)
      NVVM::CpAsyncBulkCommitGroupOp::create(builder, loc);
    return success();
  }
  if (auto wait = dyn_cast<tile::AsyncWaitOp>(op)) {
    if (!isAmd())
      NVVM::CpAsyncWaitGroupOp::create(builder, loc, wait.getPending());
    // Rows the thread gathered into TMA buffers, for wgmma's async proxy.
    if (hasTmaGathers)
      fenceForAsyncProxy();
    // A TMA store's group retires once it has read its buffer.
    if (hasTmaStores && wait.getPending() > 0)
      NVVM::CpAsyncBulkWaitGroupOp::create(builder, loc, wait.getPending(),
                                           builder.getUnitAttr());
    // TMA fills are waited for where they are read; all of them here.
    if (wait.getPending() == 0)
      drainTma();
    return success();
  }
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return isa<tile::SharedType>(load.getSource().getType())
               ? lowerSharedLoad(load)
               : loadFromView(op, load.getSource(), load.getIndices(),
                              load.getResult(), load.getPadAttr(), {});
  if (auto gather = dyn_cast<tile::GatherOp>(op))
    return loadFromView(op, gather.getSource(), gather.getOffsets(),
                        gather.getResult(), gather.getPadAttr(),
                        gather.getRows());
  if (auto store = dyn_cast<tile::StoreOp>(op);
      store && isa<tile::ViewType>(store.getDest().getType()))
    return storeToView(op, store.getValue(), store.getDest(),
                       store.getIndices(), {}, /*atomic=*/false);
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return lowerSharedStore(store);
  if (auto add = dyn_cast<tile::AtomicAddOp>(op))
    return storeToView(op, add.getValue(), add.getDest(), add.getOffsets(),
                       add.getRows(), /*atomic=*/true);
  if (auto extract = dyn_cast<tensor::ExtractOp>(op))
    return lowerExtract(extract);
  if (auto mma = dyn_cast<tile::MmaOp>(op))
    return isAmd()                                 ? lowerMfma(mma)
           : mma.getKind() == tile::MmaKind::wgmma ? lowerWgmma(mma)
                                                   : lowerMma(mma);
  if (auto reduce = dyn_cast<tile::ReduceOp>(op))
    return lowerReduce(reduce);
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op))
    return lowerBroadcast(broadcast);
  if (auto unpack = dyn_cast<tile::UnpackOp>(op))
    return lowerUnpack(unpack);
  if (auto dequant = dyn_cast<tile::DequantOp>(op))
    return lowerDequant(dequant);
  if (auto quant = dyn_cast<tile::QuantOp>(op))
    return lowerQuant(quant);
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op))
    return lowerConvertLayout(convert);
  if (isa<tile::ReturnOp>(op)) {
    // No bulk copy may still be writing the block's shared memory.
    drainTma();
    gpu::ReturnOp::create(builder, loc);
    return success();
  }
  return op->emitOpError("is not supported by convert-tile-to-gpu for ")
         << target.chip << " yet";
}

namespace {
struct ConvertTileToGPUPass
    : public tessera::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const TargetInfo *target = getModuleTarget(module);
    if (!target || !target->isGpu()) {
      module.emitError() << "convert-tile-to-gpu lowers for GPU chips "
                            "(sm_80, sm_90a, gfx942, gfx90a); set the "
                            "module's tile.target (tessera-compile --target, "
                            "or --tile-set-target=chip=sm_80)";
      return signalPassFailure();
    }
    SmallVector<tile::KernelOp> kernels(module.getOps<tile::KernelOp>());
    if (kernels.empty())
      return;
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), "tessera_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    for (tile::KernelOp kernel : kernels)
      if (failed(GPULowering(kernel, *target, gpuModule).run()))
        return signalPassFailure();
  }
};
} // namespace
