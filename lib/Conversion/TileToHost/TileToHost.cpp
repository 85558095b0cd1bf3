//===- TileToHost.cpp - Tile kernels to host code ---------------*- C++ -*-===//
//
// Builds each kernel's C-ABI entry, its program-instance loop and the buffers
// of its register tiles, and walks the kernel body.
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "tessera/Conversion/Branches.h"
#include "tessera/Conversion/TileToHost.h"
#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/WarpSpecialize.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tessera/runtime/kernel_abi.h"
#include "llvm/ADT/TypeSwitch.h"

namespace tessera {
#define GEN_PASS_DEF_CONVERTTILETOHOST
#include "tessera/Conversion/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

std::string tessera::getHostEntryName(StringRef kernelName) {
  return (TESSERA_KERNEL_SYMBOL_PREFIX + kernelName).str();
}

Type tessera::getHostStorageType(Type element) {
  return element.isInteger(4) || isa<Float8E4M3FNType>(element)
             ? IntegerType::get(element.getContext(), 8)
             : element;
}

MemRefType tessera::getHostViewType(tile::ViewType view) {
  Type element = getHostStorageType(view.getElementType());
  SmallVector<int64_t> shape(view.getRank(), ShapedType::kDynamic);
  SmallVector<int64_t> strides(view.getRank(), ShapedType::kDynamic);
  strides.back() = 1;
  auto layout =
      StridedLayoutAttr::get(view.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(shape, element, layout);
}

/// The descriptor of a ranked memref in the LLVM calling convention.
static LLVM::LLVMStructType getDescriptorType(MLIRContext *ctx, unsigned rank) {
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  auto array = LLVM::LLVMArrayType::get(i64, rank);
  return LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr, i64, array, array});
}

HostLowering::HostLowering(tile::KernelOp kernel)
    : kernel(kernel), builder(kernel), loc(kernel.getLoc()) {}

Value HostLowering::index(int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

Value HostLowering::alloc(MemRefType type) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(allocPoint);
  Value buffer = memref::AllocOp::create(builder, loc, type,
                                         builder.getI64IntegerAttr(64));
  allocated.push_back(buffer);
  return buffer;
}

bool HostLowering::canReuse(Value tile, Operation *user) {
  return tile.hasOneUse() && tile.getParentBlock() == user->getBlock();
}

Value HostLowering::buffer(Value tile) {
  if (Value known = buffers.lookup(tile))
    return known;
  auto type = cast<RankedTensorType>(tile.getType());
  Value created = alloc(MemRefType::get(
      type.getShape(), getHostStorageType(type.getElementType())));
  buffers[tile] = created;
  return created;
}

void HostLowering::loopNest(ArrayRef<Value> upperBounds,
                            function_ref<void(ValueRange)> body) {
  SmallVector<Value> ivs;
  std::function<void(unsigned)> nest = [&](unsigned depth) {
    if (depth == upperBounds.size()) {
      body(ivs);
      return;
    }
    scf::ForOp::create(builder, loc, index(0), upperBounds[depth], index(1),
                       ValueRange{},
                       [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                         OpBuilder::InsertionGuard guard(builder);
                         builder.setInsertionPoint(nested.getInsertionBlock(),
                                                   nested.getInsertionPoint());
                         ivs.push_back(iv);
                         nest(depth + 1);
                         ivs.pop_back();
                         scf::YieldOp::create(builder, loc);
                       });
  };
  nest(0);
}

/// The element type of a tile, view or shared buffer; null for scalars.
static Type getTileElementType(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  if (auto view = dyn_cast<tile::ViewType>(type))
    return view.getElementType();
  if (auto shared = dyn_cast<tile::SharedType>(type))
    return shared.getElementType();
  return nullptr;
}

/// The host computes in f32 and stores f8E4M3FN as bytes; other 8-bit
/// floats have no host conversions yet.
static LogicalResult checkHostElementTypes(tile::KernelOp kernel) {
  auto unsupported = [](Type type) {
    Type element = getTileElementType(type);
    auto real = dyn_cast_if_present<FloatType>(element);
    return real && real.getWidth() < 16 && !isa<Float8E4M3FNType>(real);
  };
  for (BlockArgument argument : kernel.getArguments())
    if (unsupported(argument.getType()))
      return kernel.emitOpError("argument #")
             << argument.getArgNumber() << " has element type "
             << getTileElementType(argument.getType())
             << ", which convert-tile-to-host does not support (of the 8-bit "
                "floats only f8E4M3FN)";
  WalkResult result = kernel.walk([&](Operation *op) {
    for (Type type : llvm::concat<Type>(llvm::to_vector(op->getOperandTypes()),
                                        llvm::to_vector(op->getResultTypes())))
      if (unsupported(type)) {
        op->emitOpError("on ")
            << getTileElementType(type)
            << " elements is not supported by convert-tile-to-host (of the "
               "8-bit floats only f8E4M3FN)";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult HostLowering::run() {
  // A warp-specialized kernel runs on the host as its roles' loops
  // interleaved: copies are synchronous there, so the hand-over's waits and
  // arrivals have nothing left to order.
  if (failed(checkHostElementTypes(kernel)) ||
      failed(tile::interleaveRoles(kernel, tile::FuseMode::Plain)))
    return failure();
  tag::eraseTagOps(kernel);
  MLIRContext *ctx = kernel.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = builder.getI64Type();
  auto fnType = builder.getFunctionType({ptr, i64, i64, i64, i64, i64}, {});
  auto fn = func::FuncOp::create(builder, loc,
                                 getHostEntryName(kernel.getSymName()), fnType);
  Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  // Unpack the argument array: descriptors for views, values for scalars.
  Value args = entry->getArgument(0);
  for (auto [i, arg] : llvm::enumerate(kernel.getArguments())) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptr, ptr, args,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value pointer = LLVM::LoadOp::create(builder, loc, ptr, slot);
    if (auto view = dyn_cast<tile::ViewType>(arg.getType())) {
      Value descriptor = LLVM::LoadOp::create(
          builder, loc, getDescriptorType(ctx, view.getRank()), pointer);
      Value memref = UnrealizedConversionCastOp::create(
                         builder, loc, getHostViewType(view), descriptor)
                         .getResult(0);
      mapping.map(arg, memref);
      viewElements[arg] = view.getElementType();
      continue;
    }
    // index scalars are passed as 64-bit integers.
    Type stored =
        arg.getType().isIndex() ? builder.getI64Type() : arg.getType();
    Value value = LLVM::LoadOp::create(builder, loc, stored, pointer);
    if (arg.getType().isIndex())
      value = arith::IndexCastOp::create(builder, loc, arg.getType(), value);
    mapping.map(arg, value);
  }
  for (int d = 0; d < 3; ++d)
    gridSizes[d] = arith::IndexCastOp::create(
        builder, loc, builder.getIndexType(), entry->getArgument(1 + d));
  Value begin = arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                           entry->getArgument(4));
  Value end = arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                         entry->getArgument(5));
  auto programs = scf::ForOp::create(builder, loc, begin, end, index(1));
  auto ret = func::ReturnOp::create(builder, loc);
  allocPoint = programs;
  freePoint = ret;

  builder.setInsertionPointToStart(programs.getBody());
  Value p = programs.getInductionVar();
  Value xy = arith::MulIOp::create(builder, loc, gridSizes[0], gridSizes[1]);
  programIds[0] = arith::RemUIOp::create(builder, loc, p, gridSizes[0]);
  programIds[1] = arith::RemUIOp::create(
      builder, loc, arith::DivUIOp::create(builder, loc, p, gridSizes[0]),
      gridSizes[1]);
  programIds[2] = arith::DivUIOp::create(builder, loc, p, xy);
  if (failed(lowerBlock(kernel.getBody().front())))
    return failure();

  builder.setInsertionPoint(freePoint);
  for (Value buffer : allocated)
    memref::DeallocOp::create(builder, loc, buffer);
  fn->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
  kernel.erase();
  return success();
}

LogicalResult HostLowering::lowerBlock(Block &block) {
  for (Operation &op : block)
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult HostLowering::lowerIf(scf::IfOp branch) {
  SmallVector<Type> scalars;
  for (Value result : branch.getResults())
    if (!isa<RankedTensorType>(result.getType()))
      scalars.push_back(result.getType());
  auto lowered =
      scf::IfOp::create(builder, loc, scalars, scalar(branch.getCondition()),
                        /*withElseRegion=*/!branch.getElseRegion().empty());
  if (failed(lowerBranchRegions(
          builder, branch, lowered, [&](Operation *op) { return lowerOp(op); },
          [&](Operation *terminator) {
            SmallVector<Value> yielded;
            for (auto [result, value] : llvm::zip_equal(
                     branch.getResults(), terminator->getOperands())) {
              if (!isa<RankedTensorType>(result.getType())) {
                yielded.push_back(scalar(value));
                continue;
              }
              Value source = buffer(value), target = buffer(result);
              if (source != target)
                copy(source, target);
            }
            return yielded;
          })))
    return failure();
  unsigned next = 0;
  for (Value result : branch.getResults())
    if (!isa<RankedTensorType>(result.getType()))
      mapping.map(result, lowered.getResult(next++));
  return success();
}

LogicalResult HostLowering::lowerFor(scf::ForOp loop) {
  SmallVector<Value> scalarInits;
  SmallVector<unsigned> scalarPositions;
  for (auto [i, arg, init] :
       llvm::enumerate(loop.getRegionIterArgs(), loop.getInitArgs())) {
    if (!isa<RankedTensorType>(arg.getType())) {
      scalarInits.push_back(scalar(init));
      scalarPositions.push_back(i);
      continue;
    }
    // The loop-carried tile lives in one buffer; it can be the initial
    // value's when nothing else reads that value. (Each buffer() call may
    // grow the map: never hold a reference into it across one.)
    if (canReuse(init, loop)) {
      Value carried = buffer(init);
      buffers[arg] = carried;
    } else {
      Value carried = buffer(arg), initial = buffer(init);
      copy(initial, carried);
    }
  }
  auto newLoop = scf::ForOp::create(builder, loc, scalar(loop.getLowerBound()),
                                    scalar(loop.getUpperBound()),
                                    scalar(loop.getStep()), scalarInits);
  mapping.map(loop.getInductionVar(), newLoop.getInductionVar());
  for (auto [position, arg] :
       llvm::zip_equal(scalarPositions, newLoop.getRegionIterArgs()))
    mapping.map(loop.getRegionIterArgs()[position], arg);

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(newLoop.getBody());
  for (Operation &op : loop.getBody()->without_terminator())
    if (failed(lowerOp(&op)))
      return failure();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> scalarYields;
  SmallVector<std::pair<Value, Value>> copies; // yielded -> carried
  for (auto [arg, value] :
       llvm::zip_equal(loop.getRegionIterArgs(), yield.getOperands())) {
    if (!isa<RankedTensorType>(arg.getType())) {
      scalarYields.push_back(scalar(value));
      continue;
    }
    Value yielded = buffer(value), carried = buffers.lookup(arg);
    if (yielded != carried)
      copies.push_back({yielded, carried});
  }
  // The copies happen at once: when one reads a carried buffer that an
  // earlier one overwrites (a swap or rotation of loop-carried tiles), every
  // yielded tile is first staged in a temporary.
  bool aliasing = llvm::any_of(copies, [&](auto &copy) {
    return llvm::any_of(
        copies, [&](auto &other) { return other.second == copy.first; });
  });
  if (aliasing)
    for (auto &[from, to] : copies) {
      Value staged = alloc(cast<MemRefType>(from.getType()));
      copy(from, staged);
      from = staged;
    }
  for (auto &[from, to] : copies)
    copy(from, to);
  if (newLoop.getBody()->mightHaveTerminator())
    newLoop.getBody()->getTerminator()->erase();
  builder.setInsertionPointToEnd(newLoop.getBody());
  scf::YieldOp::create(builder, loc, scalarYields);

  unsigned next = 0;
  for (auto [result, arg] :
       llvm::zip_equal(loop.getResults(), loop.getRegionIterArgs())) {
    if (isa<RankedTensorType>(result.getType())) {
      Value carried = buffers.lookup(arg);
      buffers[result] = carried;
    } else
      mapping.map(result, newLoop.getResult(next++));
  }
  return success();
}

LogicalResult HostLowering::lowerOp(Operation *op) {
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<tile::ReturnOp, tile::BarrierOp, tile::AsyncCommitOp,
            tile::AsyncWaitOp>([](auto) { return success(); })
      .Case([&](tile::ProgramIdOp pid) {
        mapping.map(pid.getResult(),
                    programIds[static_cast<int>(pid.getDim())]);
        return success();
      })
      .Case([&](tile::NumProgramsOp num) {
        mapping.map(num.getResult(), gridSizes[static_cast<int>(num.getDim())]);
        return success();
      })
      .Case([&](tile::TileCoordsOp coords) {
        SmallVector<Value> operands;
        for (Value operand : coords->getOperands())
          operands.push_back(scalar(operand));
        for (auto [result, value] : llvm::zip_equal(
                 coords->getResults(), coords.expand(builder, operands)))
          mapping.map(result, value);
        return success();
      })
      .Case([&](tile::DimOp dim) {
        mapping.map(dim.getResult(),
                    memref::DimOp::create(builder, loc, scalar(dim.getView()),
                                          dim.getDimensionAttr().getInt()));
        return success();
      })
      .Case([&](tile::AllocSharedOp allocOp) {
        tile::SharedType type = allocOp.getType();
        SmallVector<int64_t> shape;
        if (type.isRing())
          shape.push_back(type.getStages());
        llvm::append_range(shape, type.getShape());
        buffers[allocOp.getResult()] = alloc(
            MemRefType::get(shape, getHostStorageType(type.getElementType())));
        return success();
      })
      .Case([&](tile::CopyOp copyOp) {
        if (copyOp.getRows()) {
          gatherRows(copyOp.getSource(), copyOp.getOffsets(), copyOp.getRows(),
                     sharedTile(copyOp.getDest(), copyOp.getSlot()),
                     copyOp.getPadAttr());
          return success();
        }
        viewTransfer(
            scalar(copyOp.getSource()), viewElements.lookup(copyOp.getSource()),
            copyOp.getOffsets(), sharedTile(copyOp.getDest(), copyOp.getSlot()),
            copyOp.getPadAttr(), /*store=*/false);
        return success();
      })
      .Case([&](tile::CopyOutOp copyOut) {
        // Asynchronous or not, the copy is done when the op is.
        viewTransfer(scalar(copyOut.getDest()),
                     viewElements.lookup(copyOut.getDest()),
                     copyOut.getOffsets(),
                     sharedTile(copyOut.getSource(), copyOut.getSlot()),
                     Attribute(), /*store=*/true);
        return success();
      })
      .Case([&](tile::LoadOp load) {
        if (isa<tile::SharedType>(load.getSource().getType())) {
          Value slot =
              load.getIndices().empty() ? Value() : load.getIndices()[0];
          copy(sharedTile(load.getSource(), slot), buffer(load.getResult()));
          return success();
        }
        viewTransfer(scalar(load.getSource()),
                     viewElements.lookup(load.getSource()), load.getIndices(),
                     buffer(load.getResult()), load.getPadAttr(),
                     /*store=*/false);
        return success();
      })
      .Case([&](tile::StoreOp store) -> LogicalResult {
        if (isa<tile::SharedType>(store.getDest().getType())) {
          Value slot =
              store.getIndices().empty() ? Value() : store.getIndices()[0];
          copy(buffer(store.getValue()), sharedTile(store.getDest(), slot));
          return success();
        }
        if (viewElements.lookup(store.getDest()).isInteger(4))
          return store.emitOpError(
              "stores into int4 views are not supported on the host target");
        viewTransfer(scalar(store.getDest()),
                     viewElements.lookup(store.getDest()), store.getIndices(),
                     buffer(store.getValue()), Attribute(), /*store=*/true);
        return success();
      })
      .Case([&](tile::GatherOp gather) { return lowerGather(gather); })
      .Case([&](tile::AtomicAddOp add) { return lowerAtomicAdd(add); })
      .Case([&](tile::MmaOp mma) { return lowerMma(mma); })
      .Case([&](tile::ReduceOp reduce) { return lowerReduce(reduce); })
      .Case([&](tile::BroadcastOp bcast) { return lowerBroadcast(bcast); })
      .Case([&](tile::DequantOp dequant) { return lowerDequant(dequant); })
      .Case([&](tile::UnpackOp unpack) { return lowerUnpack(unpack); })
      .Case([&](tile::QuantOp quant) { return lowerQuant(quant); })
      .Case([&](tile::SplatOp splat) {
        fill(buffer(splat.getResult()), scalar(splat.getValue()));
        return success();
      })
      .Case([&](tensor::ExtractOp extract) {
        SmallVector<Value> indices;
        for (Value i : extract.getIndices())
          indices.push_back(scalar(i));
        mapping.map(extract.getResult(),
                    memref::LoadOp::create(
                        builder, loc, buffer(extract.getTensor()), indices));
        return success();
      })
      .Case([&](arith::ConstantOp constant) -> LogicalResult {
        if (!isTile(constant.getType())) {
          builder.clone(*op, mapping);
          return success();
        }
        auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
        if (!splat)
          return constant.emitOpError(
              "only splat constant tiles are supported on the host target");
        fill(buffer(constant.getResult()),
             storedConstant(splat.getSplatValue<Attribute>()));
        return success();
      })
      .Case([&](scf::ForOp loop) { return lowerFor(loop); })
      .Case([&](scf::IfOp branch) { return lowerIf(branch); })
      .Default([&](Operation *other) -> LogicalResult {
        if (llvm::any_of(other->getResultTypes(), isTile) ||
            isa<tile::IotaOp, tile::SelectOp>(other))
          return lowerElementwise(other);
        if (llvm::any_of(other->getOperandTypes(), isTile) ||
            other->getNumRegions() != 0)
          return other->emitOpError("is not supported by convert-tile-to-host");
        builder.clone(*other, mapping);
        return success();
      });
}

namespace {
struct ConvertTileToHostPass
    : tessera::impl::ConvertTileToHostBase<ConvertTileToHostPass> {
  void runOnOperation() override {
    SmallVector<tile::KernelOp> kernels;
    getOperation().walk([&](tile::KernelOp k) { kernels.push_back(k); });
    for (tile::KernelOp kernel : kernels)
      if (failed(lowerKernelToHost(kernel)))
        return signalPassFailure();
  }
};
} // namespace

LogicalResult tessera::lowerKernelToHost(tile::KernelOp kernel) {
  HostLowering lowering(kernel);
  return lowering.run();
}
