//===- TagTransfer.cpp - Tag propagation through tile kernels ---*- C++ -*-===//
//
// The transfer functions: how tags and the values of index
// arithmetic flow through tile ops, shared buffers and loops.
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

Checker::Checker(tile::KernelOp kernel, const TagCheckOptions &options,
                 TagCheckStats &stats, TermContext &terms, SMTBackend &backend)
    : kernel(kernel), options(options), stats(stats), terms(terms),
      backend(backend) {}

//===----------------------------------------------------------------------===//
// Terms of values
//===----------------------------------------------------------------------===//

const Term *Checker::elem(unsigned index) {
  while (elems.size() <= index)
    elems.push_back(terms.freshSym("e" + std::to_string(elems.size())));
  return elems[index];
}

const Term *Checker::dimTerm(Value view, unsigned dim) {
  auto type = cast<tile::ViewType>(view.getType());
  if (!ShapedType::isDynamic(type.getShape()[dim]))
    return terms.cst(type.getShape()[dim]);
  const Term *&term = dims[{view, dim}];
  if (!term) {
    term = terms.freshSym(sourceNames.get(view) + ".dim" + std::to_string(dim));
    // Sizes are below 2^48 (the runtime checks this at launch): no view
    // spans more than a 48-bit address space.
    symbolRanges[term] = {TermInt(0), (TermInt(1) << 48) - 1};
    kernelFacts.push_back(
        {terms.inRange(term, terms.cst(0), terms.cst(TermInt(1) << 48)), {}});
  }
  return term;
}

/// A value the checker cannot interpret (an argument, a loop-carried value,
/// the result of an op it does not model) is an unknown symbol, named after
/// the value and ranging over its type; a boolean one is `symbol == 1`.
const Term *Checker::valueTerm(Value value) {
  if (auto it = values.find(value); it != values.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  if (def &&
      !isa<scf::ForOp, scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(
          def))
    return unknownValue(value, def);
  if (const Term *term = persistentArgument(value))
    return values[value] = term;
  const Term *term =
      freshValue(sourceNames.get(value), bitsOf(value.getType()));
  if (bitsOf(value.getType()) == 1)
    term = terms.eq(term, terms.cst(1));
  values[value] = term;
  return term;
}

const Term *Checker::unknownValue(Value value, Operation *op) {
  const Term *sym = freshValue(sourceNames.get(value), bitsOf(value.getType()));
  unknownOrigins[sym] = op;
  const Term *term = sym;
  if (bitsOf(value.getType()) == 1)
    term = terms.eq(term, terms.cst(1));
  values[value] = term;
  return term;
}

const Term *Checker::boolTerm(Value value) { return valueTerm(value); }

const Term *Checker::rangedSymbol(StringRef name, TermInt lo, TermInt hi) {
  const Term *sym = terms.freshSym(name);
  symbolRanges[sym] = {lo, hi};
  kernelFacts.push_back(
      {terms.inRange(sym, terms.cst(lo), terms.cst(hi + 1)), {}});
  return sym;
}

/// The program id along `dim` and the number of programs: grids have at
/// most 2^31 - 1 programs along each dimension.
std::pair<const Term *, const Term *> Checker::programGrid(int dim) {
  auto &[id, count] = programIds[dim];
  if (!id) {
    std::string name = tile::stringifyDim(tile::Dim(dim)).str();
    count = rangedSymbol("num_programs." + name, 1, tile::kMaxGridX);
    id = terms.freshSym("program_id." + name);
    symbolRanges[id] = {TermInt(0), TermInt(tile::kMaxGridX - 1)};
    kernelFacts.push_back({terms.inRange(id, terms.cst(0), count), {}});
  }
  return {id, count};
}

const Term *Checker::persistentArgument(Value value) {
  std::optional<int64_t> kind = tile::persistentArgumentKind(value);
  if (!kind)
    return nullptr;
  // The programs the runtime started are the launch's grid: {P, 1, 1}.
  if (*kind == 3)
    return programGrid(0).second;
  // The grid the caller launched, within the runtime's limits.
  std::string name = tile::stringifyDim(tile::Dim(*kind)).str();
  return rangedSymbol("grid." + name, 1,
                      *kind ? tile::kMaxGridYZ : tile::kMaxGridX);
}

void Checker::tileCoords(tile::TileCoordsOp op) {
  // Coordinates inside the grid (its sizes are the runtime's positive
  // arguments: the verifier says so): the rasterization maps tile numbers
  // onto the grid (Raster.h, checked by the unit tests).
  // One symbol each, however often a loop's body is walked.
  if (values.count(op->getResult(0)))
    return;
  for (unsigned d = 0; d < 3; ++d) {
    std::string name = tile::stringifyDim(tile::Dim(d)).str();
    const Term *coord = rangedSymbol(
        "tile_coords." + name, 0, (d ? tile::kMaxGridYZ : tile::kMaxGridX) - 1);
    kernelFacts.push_back(
        {terms.lt(coord, valueTerm(op->getOperand(d + 1))), {}});
    values[op->getResult(d)] = coord;
  }
}

const Term *Checker::affineTerm(AffineExpr expr,
                                ArrayRef<const Term *> dimTerms,
                                ArrayRef<const Term *> symbolTerms) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dimTerms[dim.getPosition()];
  if (auto sym = dyn_cast<AffineSymbolExpr>(expr))
    return symbolTerms[sym.getPosition()];
  if (auto cst = dyn_cast<AffineConstantExpr>(expr))
    return terms.cst(cst.getValue());
  auto bin = cast<AffineBinaryOpExpr>(expr);
  const Term *lhs = affineTerm(bin.getLHS(), dimTerms, symbolTerms);
  const Term *rhs = affineTerm(bin.getRHS(), dimTerms, symbolTerms);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return terms.add(lhs, rhs);
  case AffineExprKind::Mul:
    return terms.mul(lhs, rhs);
  case AffineExprKind::FloorDiv:
    return terms.div(lhs, rhs);
  case AffineExprKind::CeilDiv:
    return terms.div(terms.add(lhs, terms.sub(rhs, terms.cst(1))), rhs);
  case AffineExprKind::Mod:
    return terms.mod(lhs, rhs);
  default:
    llvm_unreachable("not a binary affine expression");
  }
}

const Term *Checker::atIndices(const Term *term,
                               ArrayRef<const Term *> indices) {
  llvm::DenseMap<const Term *, const Term *> map;
  for (auto [i, index] : llvm::enumerate(indices))
    map[elem(i)] = index;
  return terms.substitute(term, map);
}

void Checker::forwardElements(Value result, Value input,
                              ArrayRef<const Term *> indices) {
  tags[result] = atIndices(tagOf(input), indices);
  if (auto it = values.find(input); it != values.end())
    values[result] = atIndices(it->second, indices);
}

TagFn Checker::atIndices(const TagFn &fn, ArrayRef<const Term *> indices) {
  TagFn result = fn;
  for (const Term *&comp : result.comps)
    if (comp)
      comp = atIndices(comp, indices);
  if (result.known)
    result.known = atIndices(result.known, indices);
  for (auto &writer : result.writers)
    writer.first = atIndices(writer.first, indices);
  return result;
}

//===----------------------------------------------------------------------===//
// Tags of values
//===----------------------------------------------------------------------===//

TagFn Checker::tagOf(Value value) {
  if (isa<tile::SharedType>(value.getType()))
    return buffers[value].tag;
  auto it = tags.find(value);
  return it == tags.end() ? TagFn() : it->second;
}

/// ⊥ is the identity. Two tuples join component by component: a component
/// both carry stays if the two agree and becomes ⊤ (null) if not; one that
/// only one side carries is kept, since the other side's data does not vary
/// along it (e.g. `s - rowmax(s)` keeps the key index of `s`).
TagFn Checker::join(const TagFn &lhs, const TagFn &rhs, Operation *at) {
  if (lhs.kind == TagFn::Bottom)
    return rhs;
  if (rhs.kind == TagFn::Bottom || lhs.sameAs(rhs))
    return lhs;
  if (lhs.kind == TagFn::Top)
    return lhs;
  if (rhs.kind == TagFn::Top)
    return rhs;
  TagFn result;
  result.kind = TagFn::Tuple;
  // The joined name lists the sources once each, so joins are idempotent.
  SmallVector<StringRef> parts;
  StringRef(lhs.name).split(parts, '|');
  StringRef(rhs.name).split(parts, '|');
  llvm::sort(parts);
  parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  result.name = llvm::join(parts, "|");
  result.origin = at;
  for (auto [name, comp] : llvm::zip_equal(lhs.names, lhs.comps)) {
    std::optional<unsigned> other = rhs.find(name);
    result.names.push_back(name);
    result.comps.push_back(!other || rhs.comps[*other] == comp ? comp
                                                               : nullptr);
  }
  for (auto [name, comp] : llvm::zip_equal(rhs.names, rhs.comps))
    if (!lhs.find(name)) {
      result.names.push_back(name);
      result.comps.push_back(comp);
    }
  auto both = [&](const Term *a, const Term *b) -> const Term * {
    if (!a || !b)
      return a ? a : b;
    return terms.land(a, b);
  };
  result.known = both(lhs.known, rhs.known);
  return result;
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

LogicalResult Checker::processBlock(Block &block) {
  for (Operation &op : block)
    if (failed(processOp(&op)))
      return failure();
  return success();
}

/// Index arithmetic, comparisons and integer tiles: their values as terms.
void Checker::processValues(Operation *op) {
  if (auto coords = dyn_cast<tile::TileCoordsOp>(op))
    return tileCoords(coords);
  if (op->getNumResults() != 1)
    return;
  auto operand = [&](unsigned i) { return valueTerm(op->getOperand(i)); };
  auto set = [&](const Term *term) { values[op->getResult(0)] = term; };
  Type type = op->getResult(0).getType();
  // Element variables range over the result's shape while its value is
  // built.
  auto tensor = dyn_cast<RankedTensorType>(type);
  currentShape = tensor ? tensor.getShape() : ArrayRef<int64_t>();
  llvm::scope_exit done([&] { currentShape = {}; });
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Attribute value = c.getValue();
    if (auto splat = dyn_cast<SplatElementsAttr>(value))
      value = splat.getSplatValue<Attribute>();
    if (auto integer = dyn_cast<IntegerAttr>(value); integer && bitsOf(type))
      set(bitsOf(type) == 1 ? terms.boolean(integer.getValue().getBoolValue())
                            : terms.cst(integer.getValue().getSExtValue()));
    return;
  }
  if (isa_and_nonnull<arith::ArithDialect>(op->getDialect())) {
    if (!bitsOf(type))
      return;
    if (const Term *term = integerValue(op))
      set(term);
    else
      unknownValue(op->getResult(0), op);
    return;
  }
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](tile::SplatOp splat) { set(operand(0)); })
      .Case([&](tile::IotaOp) { set(elem(0)); })
      .Case([&](tile::ProgramIdOp pid) {
        set(programGrid(static_cast<int>(pid.getDim())).first);
      })
      .Case([&](tile::NumProgramsOp count) {
        set(programGrid(static_cast<int>(count.getDim())).second);
      })
      .Case([&](tile::DimOp dim) {
        set(dimTerm(dim.getView(), dim.getDimensionAttr().getInt()));
      })
      .Case([&](tensor::ExtractOp extract) {
        SmallVector<const Term *> indices;
        for (Value index : extract.getIndices())
          indices.push_back(valueTerm(index));
        set(atIndices(operand(0), indices));
      })
      .Case([&](tag::CoordOp coord) {
        TagFn fn = tagOf(coord.getValue());
        if (fn.kind != TagFn::Tuple)
          return;
        if (std::optional<unsigned> index = fn.find(coord.getComponent()))
          if (fn.comps[*index])
            set(fn.comps[*index]);
      });
}

/// Element-wise ops on register tiles keep the tag (unary) or join the
/// operands' tags; untagged constants and splats are ⊥, the join's identity.
void Checker::processElementwise(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return;
  TagFn result;
  for (Value operand : op->getOperands())
    if (operand.getType() == op->getResult(0).getType() ||
        (isa<RankedTensorType>(operand.getType()) &&
         cast<RankedTensorType>(operand.getType()).getShape() ==
             cast<RankedTensorType>(op->getResult(0).getType()).getShape() &&
         !getElementTypeOrSelf(operand.getType()).isInteger(1)))
      result = join(result, tagOf(operand), op);
  tags[op->getResult(0)] = result;
}

/// Element (i, j) of `a · b + acc` carries the components of a's row i and
/// b's column j that do not depend on the contraction index, joined with
/// the accumulator's tag.
void Checker::processMma(tile::MmaOp op) {
  TagFn a = tagOf(op.getA()), b = tagOf(op.getB());
  TagFn product;
  if (a.kind == TagFn::Top || b.kind == TagFn::Top) {
    // An unknown operand leaves the operands' agreement unproved.
    Value unknown = a.kind == TagFn::Top ? op.getA() : op.getB();
    product = tagOf(unknown);
    if (a.kind != TagFn::Bottom && b.kind != TagFn::Bottom)
      tupleOrReport(op, unknown, product);
  } else if (a.kind == TagFn::Tuple && b.kind == TagFn::Tuple) {
    checkMmaOperands(op, a, b);
    const Term *i = elem(0), *j = elem(1);
    const Term *kk = terms.freshSym("kk");
    auto [aIndex, bIndex] =
        mmaOperandIndices(op.getTransposeA(), op.getTransposeB(), i, j, kk);
    TagFn rows = atIndices(a, aIndex), cols = atIndices(b, bIndex);
    product.kind = TagFn::Tuple;
    product.name = a.name + "*" + b.name;
    product.origin = op;
    for (auto *part : {&rows, &cols})
      for (auto [name, comp] : llvm::zip_equal(part->names, part->comps))
        if ((!comp || !terms.mentions(comp, kk)) && !product.find(name)) {
          product.names.push_back(name);
          product.comps.push_back(comp);
        }
  }
  tags[op.getResult()] = join(product, tagOf(op.getAcc()), op);
  addMmaSums(op, a, b);
}

LogicalResult Checker::processOp(Operation *op) {
  work += 1 + loops.size();
  if (work > options.workBudget) {
    if (!workExhausted)
      op->emitError() << "tag-check stopped here, inside " << loops.size()
                      << " loops, past its budget of " << options.workBudget
                      << " steps: the kernel's obligations are unknown; "
                         "simplify its loop nest, raise the budget "
                         "(tag-check{work-budget=N}) or skip the check "
                         "(tessera-compile --no-tag-check)";
    workExhausted = true;
    return failure();
  }
  processValues(op);
  LogicalResult result = processTags(op);
  propagateSums(op);
  return result;
}

void Checker::transfer(tile::UnpackOp unpack) {
  // result[.., i * P + p, ..] = input[.., i, .., order[p]].
  int64_t dim = unpack.getDim(), rank = unpack.getType().getRank();
  ArrayRef<int64_t> order = unpack.getOrder();
  const Term *units = terms.cst(order.size());
  const Term *p = terms.mod(elem(dim), units);
  // The identity order keeps the index linear, so that the element's
  // own index comes back whole.
  const Term *position = p;
  if (!unpack.hasNaturalOrder()) {
    position = terms.cst(order.back());
    for (int64_t q = order.size() - 1; q-- > 0;)
      position =
          terms.ite(terms.eq(p, terms.cst(q)), terms.cst(order[q]), position);
  }
  SmallVector<const Term *> indices;
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(d == dim ? terms.div(elem(d), units) : elem(d));
  indices.push_back(position);
  forwardElements(unpack.getResult(), unpack.getInput(), indices);
}

void Checker::transfer(tile::ConvertLayoutOp convert) {
  // The same elements, held elsewhere.
  SmallVector<const Term *> indices;
  for (int64_t d = 0; d < convert.getType().getRank(); ++d)
    indices.push_back(elem(d));
  forwardElements(convert.getResult(), convert.getSource(), indices);
}

void Checker::transfer(tile::BroadcastOp broadcast) {
  // Input dimension d is the d-th result dimension not in `dims`;
  // an expanded unit dimension reads index 0.
  bool expands =
      broadcast.getType().getRank() == broadcast.getInput().getType().getRank();
  SmallVector<const Term *> indices;
  for (int64_t d = 0; d < broadcast.getType().getRank(); ++d)
    if (!llvm::is_contained(broadcast.getDims(), d))
      indices.push_back(elem(d));
    else if (expands)
      indices.push_back(terms.cst(0));
  forwardElements(broadcast.getResult(), broadcast.getInput(), indices);
}

void Checker::transfer(tile::ReduceOp reduce) {
  // The reduced elements agree on the components that do not depend
  // on the reduced index; the others are dropped.
  int64_t dim = reduce.getDimAttr().getInt();
  TagFn input = tagOf(reduce.getInput());
  const Term *reduced = terms.freshSym("r");
  SmallVector<const Term *> indices;
  for (int64_t d = 0, e = 0; d < reduce.getInput().getType().getRank(); ++d)
    indices.push_back(d == dim ? reduced : elem(e++));
  TagFn fn = atIndices(input, indices);
  if (fn.kind == TagFn::Tuple) {
    TagFn kept = fn;
    kept.names.clear();
    kept.comps.clear();
    for (auto [name, comp] : llvm::zip_equal(fn.names, fn.comps))
      if (!comp || !terms.mentions(comp, reduced)) {
        kept.names.push_back(name);
        kept.comps.push_back(comp);
      }
    kept.known = nullptr;
    kept.origin = reduce;
    fn = kept;
  }
  tags[reduce.getResult()] = fn;
}

void Checker::transfer(tile::SelectOp select) {
  tags[select.getResult()] =
      join(tagOf(select.getTrueValue()), tagOf(select.getFalseValue()), select);
  if (values.count(select.getTrueValue()) ||
      values.count(select.getFalseValue()))
    values[select.getResult()] = terms.ite(boolTerm(select.getCondition()),
                                           valueTerm(select.getTrueValue()),
                                           valueTerm(select.getFalseValue()));
}

void Checker::transfer(tile::DequantOp dequant) {
  tags[dequant.getResult()] = tagOf(dequant.getCodes());
}

void Checker::transfer(tile::QuantOp quant) {
  tags[quant.getCodes()] = tagOf(quant.getInput());
}

LogicalResult Checker::processTags(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // Tags bound to views and buffers, data movement and synchronisation
      // (TagMemory.cpp).
      .Case<tag::BindOp, tile::CopyOp, tile::CopyOutOp, tile::LoadOp,
            tile::GatherOp, tile::StoreOp, tile::AtomicAddOp, tile::BarrierOp,
            tile::AsyncCommitOp, tile::AsyncWaitOp, tag::ResetOp>(
          [&](auto memoryOp) {
            transfer(memoryOp);
            return success();
          })
      // Ops that compute tiles from tiles.
      .Case<tile::UnpackOp, tile::ConvertLayoutOp, tile::BroadcastOp,
            tile::ReduceOp, tile::SelectOp, tile::DequantOp, tile::QuantOp>(
          [&](auto valueOp) {
            transfer(valueOp);
            return success();
          })
      .Case([&](tile::MmaOp mma) {
        processMma(mma);
        return success();
      })
      // What the kernel states (TagObligations.cpp, Reductions.cpp).
      .Case([&](tag::AssumeOp stated) {
        addAssumption(stated);
        return success();
      })
      .Case([&](tag::AssertContractOp stated) {
        checkContract(stated);
        return success();
      })
      .Case([&](tag::AssertEqOp stated) {
        checkEquality(stated);
        return success();
      })
      .Case([&](tag::AssertOp stated) {
        checkCondition(stated);
        return success();
      })
      .Case([&](tag::AssertCompleteOp stated) {
        checkComplete(stated);
        return success();
      })
      .Case([&](scf::ForOp loop) { return processFor(loop); })
      .Case([&](scf::IfOp branch) { return processIf(branch); })
      .Case([&](scf::IndexSwitchOp op) { return processSwitch(op); })
      .Case([&](scf::ExecuteRegionOp op) { return processExecuteRegion(op); })
      // Ops whose tile results carry no provenance (⊥) or that have no
      // results the checker tracks; their values are modelled above.
      .Case<tile::SplatOp, tile::IotaOp, tile::ProgramIdOp, tile::NumProgramsOp,
            tile::TileCoordsOp, tile::DimOp, tile::AllocSharedOp,
            tile::ReturnOp, tensor::ExtractOp, tag::CoordOp, scf::YieldOp>(
          [](Operation *) { return success(); })
      .Default([&](Operation *other) -> LogicalResult {
        if (isa_and_nonnull<arith::ArithDialect>(other->getDialect()) ||
            other->getName().getDialectNamespace() == "math") {
          if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp,
                  arith::RemSIOp, arith::CeilDivUIOp, arith::CeilDivSIOp,
                  arith::FloorDivSIOp>(other))
            checkDivisor(other);
          processElementwise(other);
          return success();
        }
        if (other->getNumRegions() != 0) {
          InFlightDiagnostic diag =
              other->emitError()
              << "the tag checker does not model '" << other->getName()
              << "'; its regions would go unchecked (use scf.for, scf.if, "
                 "scf.index_switch or scf.execute_region)";
          if (isa<scf::WhileOp>(other))
            diag.attachNote() << "a loop that compares a counter with a "
                                 "bound and adds a step to it becomes an "
                                 "scf.for with --tile-uplift-while";
          return diag;
        }
        // Anything else: results with unknown tags (and, lazily, values)
        // that remember the op.
        for (Value result : other->getResults())
          if (isa<RankedTensorType>(result.getType()))
            tags[result] = TagFn::unmodelled(other);
        return success();
      });
}
