//===- Reductions.cpp - What accumulators summed, and its completeness ----===//
//
// Each tile.mma adds to its accumulator the contracted component's values of
// its operands' elements; a loop that carries the accumulator adds them once
// per iteration. tag.assert_complete proves that every value of a range was
// summed exactly once, and every store proves that none was summed twice
// (docs/invariants.md).
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

static Sums unknownSums(Operation *at, std::string why) {
  Sums result;
  result.unknownAt = at;
  result.why = std::move(why);
  return result;
}

void Checker::propagateSums(Operation *op) {
  if (isa<tile::MmaOp, scf::ForOp, scf::IfOp, scf::IndexSwitchOp,
          scf::ExecuteRegionOp>(op) ||
      op->getNumResults() != 1)
    return;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return;
  SmallVector<Sums, 2> inputs;
  for (Value operand : op->getOperands())
    if (auto tile = dyn_cast<RankedTensorType>(operand.getType());
        tile && tile.getShape() == type.getShape())
      if (auto it = sums.find(operand); it != sums.end() && !it->second.empty())
        inputs.push_back(it->second);
  if (inputs.empty())
    return;
  Sums result = inputs.front();
  // Sums of sums add up, and a select picks one of equal sums; any other
  // combination of accumulations (a product, a quotient) is not a sum of
  // their parts.
  bool additive = isa<arith::AddFOp, arith::AddIOp>(op);
  bool choice = isa<arith::SelectOp, tile::SelectOp>(op);
  for (const Sums &other : llvm::drop_begin(inputs)) {
    if (!additive && !(choice && other == result)) {
      result = unknownSums(op, "it combines two accumulations with '" +
                                   op->getName().getStringRef().str() + "'");
      break;
    }
    result.merge(other);
  }
  sums[op->getResult(0)] = result;
}

void Checker::addMmaSums(tile::MmaOp op, const TagFn &a, const TagFn &b) {
  Sums result = sums.lookup(op.getAcc());
  if (a.kind == TagFn::Tuple && b.kind == TagFn::Tuple && !result.unknownAt) {
    const Term *kk = terms.freshSym("kk");
    int64_t extent = op.getA().getType().getDimSize(op.getTransposeA() ? 0 : 1);
    auto [aIndex, bIndex] = mmaOperandIndices(
        op.getTransposeA(), op.getTransposeB(), elem(0), elem(1), kk);
    TagFn rows = atIndices(a, aIndex);
    for (auto [name, comp] : llvm::zip_equal(a.names, rows.comps))
      if (comp && terms.mentions(comp, kk) && b.find(name))
        result.parts.push_back({name, comp, kk, extent, {}, op});
  }
  sums[op.getResult()] = result;
}

void Checker::enterLoopSums(scf::ForOp loop) {
  for (auto [index, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    sums[arg] = Sums{{}, {{loop.getOperation(), unsigned(index)}}, nullptr, {}};
}

void Checker::exitLoopSums(scf::ForOp loop, const Term *iv, const Term *lb,
                           const Term *ub, const Term *step) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [index, result] : llvm::enumerate(loop.getResults())) {
    Sums body = sums.lookup(yield.getOperand(index));
    if (body.empty() || body.unknownAt) {
      if (!body.empty())
        sums[result] = body;
      continue;
    }
    std::pair<Operation *, unsigned> own = {loop.getOperation(), index};
    bool accumulates = llvm::is_contained(body.carried, own);
    // A loop whose yield does not add to its iteration argument starts over
    // each iteration: its result is what the last iteration summed (the
    // iteration at max(lb, lb + step * floor((ub - lb - 1) / step)); none
    // when it runs zero times), and the initial value's parts are dropped
    // when it runs, so they must be empty.
    if (!accumulates && body.parts.empty())
      continue;
    Sums init = sums.lookup(loop.getInitArgs()[index]);
    bool mixes = llvm::any_of(body.carried, [&](auto arg) {
      return arg.first == loop.getOperation() && arg != own;
    });
    if (!accumulates && (mixes || init.unknownAt || !init.parts.empty())) {
      sums[result] = unknownSums(
          loop, "each iteration yields a sum that does not add to its "
                "iteration argument, so only the last one survives");
      continue;
    }
    if (init.unknownAt || mixes) {
      sums[result] = init.unknownAt
                         ? init
                         : unknownSums(loop, "iteration arguments of this "
                                             "loop are combined with one "
                                             "another");
      continue;
    }
    const Term *first = lb;
    if (!accumulates)
      first = terms.max(
          lb,
          terms.add(lb, terms.mul(step, terms.div(terms.sub(terms.sub(ub, lb),
                                                            terms.cst(1)),
                                                  step))));
    Sums out = accumulates ? init : Sums();
    Sums added;
    for (SumPart part : body.parts) {
      part.loops.insert(part.loops.begin(), {iv, first, ub, step});
      added.parts.push_back(part);
    }
    for (auto arg : body.carried)
      if (arg.first != loop.getOperation())
        added.carried.push_back(arg);
    out.merge(added);
    sums[result] = out;
  }
}

void Checker::branchSums(Operation *op, ArrayRef<Block *> blocks) {
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    std::optional<Sums> same;
    for (Block *block : blocks) {
      Sums yielded = sums.lookup(block->getTerminator()->getOperand(index));
      if (!same)
        same = yielded;
      else if (!(*same == yielded))
        same = unknownSums(op, "its branches sum different values");
    }
    if (same && !same->empty())
      sums[result] = *same;
  }
}

namespace {
/// One copy of a part's summation space: fresh symbols for kk and the
/// induction variables, the value summed there, and the space's bounds.
struct Point {
  const Term *value;
  SmallVector<const Term *> symbols;
  const Term *domain;
};
} // namespace

static Point pointOf(TermContext &terms, const SumPart &part, const Term *value,
                     StringRef suffix) {
  Point point;
  llvm::DenseMap<const Term *, const Term *> rename;
  const Term *kk = terms.freshSym(part.kk->getName().str() + suffix.str());
  rename[part.kk] = kk;
  point.domain = terms.inRange(kk, terms.cst(0), terms.cst(part.extent));
  // Outermost level first: an inner loop's bounds are taken at this copy's
  // own outer induction variables.
  for (const SumPart::Level &level : part.loops) {
    const Term *lb = terms.substitute(level.lb, rename);
    const Term *ub = terms.substitute(level.ub, rename);
    const Term *step = terms.substitute(level.step, rename);
    const Term *iv = terms.freshSym(level.iv->getName().str() + suffix.str());
    rename[level.iv] = iv;
    point.symbols.push_back(iv);
    point.domain = terms.land(
        point.domain,
        terms.land(
            terms.land(terms.lt(terms.cst(0), step), terms.inRange(iv, lb, ub)),
            terms.eq(terms.mod(terms.sub(iv, lb), step), terms.cst(0))));
  }
  point.symbols.push_back(kk);
  point.value = terms.substitute(value, rename);
  return point;
}

/// How much a part's value grows from one tile element to the next, and
/// from one iteration to the next: constants when the value is linear in
/// kk and the induction variable (at most one loop), else none.
std::optional<std::pair<TermInt, TermInt>>
Checker::slopes(const SumPart &part) {
  auto delta = [&](const Term *sym, const Term *by) {
    return terms.sub(terms.substitute(part.value, {{sym, terms.add(sym, by)}}),
                     part.value);
  };
  const Term *perElement = delta(part.kk, terms.cst(1));
  if (!perElement->isConst() || part.loops.size() > 1)
    return std::nullopt;
  if (part.loops.empty())
    return std::make_pair(perElement->getValue(), TermInt(0));
  const Term *perIteration =
      delta(part.loops.front().iv, part.loops.front().step);
  if (!perIteration->isConst())
    return std::nullopt;
  return std::make_pair(perElement->getValue(), perIteration->getValue());
}

/// A part whose value grows by 1 along the tile and by exactly the step
/// from one iteration to the next (a step no longer than the tile) sums
/// the gapless range [first, first + (ub - lb)) and more; when `lo` and
/// `hi` lie in it by the terms' normal form alone, that is a proof without
/// Z3 (true), else null.
const Term *Checker::coversStructurally(const SumPart &part,
                                        ArrayRef<const Term *> element,
                                        const Term *lo, const Term *hi) {
  auto slope = slopes(part);
  if (!slope || slope->first != 1)
    return nullptr;
  const Term *value = atIndices(part.value, element);
  llvm::DenseMap<const Term *, const Term *> start = {{part.kk, terms.cst(0)}};
  const Term *length = terms.cst(part.extent);
  if (!part.loops.empty()) {
    const SumPart::Level &level = part.loops.front();
    if (!level.step->isConst() || slope->second != level.step->getValue() ||
        slope->second > part.extent)
      return nullptr;
    start[level.iv] = level.lb;
    length = terms.sub(level.ub, level.lb);
  }
  const Term *first = terms.substitute(value, start);
  const Term *inside =
      terms.land(terms.le(first, lo), terms.le(terms.sub(hi, first), length));
  return inside->isTrue() ? inside : nullptr;
}

/// Structurally injective: the value grows by 1 with kk and by at least
/// the tile's extent from one iteration to the next, so no two points of
/// the part's space sum the same value.
bool Checker::injective(const SumPart &part) {
  auto slope = slopes(part);
  return slope && slope->first == 1 &&
         (part.loops.empty() || slope->second >= part.extent);
}

void Checker::checkSummedOnce(Operation *op, Value value,
                              ArrayRef<const Term *> element, const Term *lo,
                              const Term *hi, StringRef only) {
  Sums summed = sums.lookup(value);
  if (summed.unknownAt)
    return;
  for (size_t p = 0; p < summed.parts.size(); ++p) {
    for (size_t q = p; q < summed.parts.size(); ++q) {
      const SumPart &first = summed.parts[p], &second = summed.parts[q];
      if (second.component != first.component ||
          (!only.empty() && first.component != only))
        continue;
      if (p == q && injective(first))
        continue;
      Point a = pointOf(terms, first, atIndices(first.value, element), "'");
      Point b = pointOf(terms, second, atIndices(second.value, element), "''");
      const Term *distinct = terms.boolean(p != q);
      if (p == q)
        for (auto [x, y] : llvm::zip_equal(a.symbols, b.symbols))
          distinct = terms.lor(distinct, terms.lnot(terms.eq(x, y)));
      size_t before = facts.size();
      facts.push_back({a.domain, {}});
      facts.push_back({b.domain, {}});
      if (lo)
        facts.push_back({terms.inRange(a.value, lo, hi), {}});
      const Term *goal =
          terms.lnot(terms.land(distinct, terms.eq(a.value, b.value)));
      SmallVector<const Term *> shown(element.begin(), element.end());
      shown.append(a.symbols.begin(), a.symbols.end());
      shown.append(b.symbols.begin(), b.symbols.end());
      shown.push_back(a.value);
      prove(op,
            "an element of " + sourceNames.get(value) + " sums a value of '" +
                first.component + "' twice",
            goal, shown, [&](InFlightDiagnostic &diag, const Outcome &outcome) {
              SmallVector<std::string> at;
              for (const Term *index : element)
                at.push_back(valueText(index, outcome));
              diag.attachNote(op->getLoc())
                  << sourceNames.get(value) << "[" << llvm::join(at, ", ")
                  << "] sums " << first.component << " = "
                  << valueText(a.value, outcome) << " twice";
              diag.attachNote(first.mma->getLoc()) << "summed here";
              if (second.mma != first.mma)
                diag.attachNote(second.mma->getLoc()) << "and here";
            });
      facts.resize(before);
    }
  }
}

/// The conditions under which `part` sums value `c` at the point its
/// structure suggests: at each loop level, outermost first, the iteration
/// whose first value (this and the inner levels at their lower bounds,
/// kk = 0) lies at or below `c` within one step, and the offset of `c` in
/// the tile of the innermost one. Proving them proves `c` is summed.
static const Term *witness(TermContext &terms, const SumPart &part,
                           const Term *value, const Term *c,
                           SmallVectorImpl<Fact> &facts) {
  const Term *zero = terms.cst(0);
  llvm::DenseMap<const Term *, const Term *> chosen;
  const Term *goal = terms.boolean(true);
  for (auto [index, level] : llvm::enumerate(part.loops)) {
    const Term *lb = terms.substitute(level.lb, chosen);
    const Term *step = terms.substitute(level.step, chosen);
    llvm::DenseMap<const Term *, const Term *> start = chosen;
    start[level.iv] = lb;
    for (const SumPart::Level &inner : llvm::drop_begin(part.loops, index + 1))
      start[inner.iv] = terms.substitute(inner.lb, start);
    start[part.kk] = zero;
    // t = floor((c - first) / step), stated by its bounds: Z3 decides these
    // much faster than a division.
    const Term *offset = terms.sub(c, terms.substitute(value, start));
    const Term *t = terms.freshSym(level.iv->getName().str() + ".t");
    const Term *below = terms.mul(step, t);
    facts.push_back({terms.inRange(offset, below, terms.add(below, step)), {}});
    facts.push_back({terms.lt(zero, step), {}});
    const Term *iv = terms.add(lb, terms.mul(step, t));
    goal = terms.land(
        goal, terms.land(terms.le(zero, t),
                         terms.lt(iv, terms.substitute(level.ub, chosen))));
    chosen[level.iv] = iv;
  }
  chosen[part.kk] = zero;
  const Term *kk = terms.sub(c, terms.substitute(value, chosen));
  chosen[part.kk] = kk;
  return terms.land(goal,
                    terms.land(terms.inRange(kk, zero, terms.cst(part.extent)),
                               terms.eq(terms.substitute(value, chosen), c)));
}

void Checker::checkComplete(tag::AssertCompleteOp op) {
  Value value = op.getValue();
  StringRef over = op.getOver();
  Sums summed = sums.lookup(value);
  if (summed.unknownAt) {
    if (failing()) {
      InFlightDiagnostic diag = op.emitError() << "tag assertion failed: what "
                                               << sourceNames.get(value)
                                               << " summed is not known";
      diag.attachNote(summed.unknownAt->getLoc())
          << "it is not known from here: " << summed.why;
    }
    return;
  }
  SmallVector<const SumPart *> parts;
  for (const SumPart &part : summed.parts)
    if (part.component == over)
      parts.push_back(&part);
  if (parts.empty()) {
    if (failing())
      op.emitError() << "tag assertion failed: " << sourceNames.get(value)
                     << " sums no value of '" << over << "': no tile.mma over '"
                     << over << "' adds to it";
    return;
  }
  ArrayRef<int64_t> shape = op.getValue().getType().getShape();
  size_t before = facts.size();
  SmallVector<const Term *> element = freshElement(shape);
  auto bound = [&](Value v) {
    const Term *term = valueTerm(v);
    return isa<RankedTensorType>(v.getType()) ? atIndices(term, element) : term;
  };
  const Term *lo = bound(op.getLower()), *hi = bound(op.getUpper());
  const Term *c = terms.freshSym(over);
  facts.push_back({terms.inRange(c, lo, hi), {}});
  const Term *goal = terms.boolean(false);
  for (const SumPart *part : parts)
    goal = terms.lor(
        goal, witness(terms, *part, atIndices(part->value, element), c, facts));
  if (parts.size() == 1)
    if (const Term *covered =
            coversStructurally(*parts.front(), element, lo, hi))
      goal = covered;
  SmallVector<const Term *> shown(element.begin(), element.end());
  shown.push_back(c);
  std::string message = op.getMessage() ? op.getMessage()->str()
                                        : sourceNames.get(value) +
                                              " does not sum every value of '" +
                                              over.str() + "' in its range";
  bool complete =
      prove(op, message, goal, shown,
            [&](InFlightDiagnostic &diag, const Outcome &outcome) {
              SmallVector<std::string> at;
              for (const Term *index : element)
                at.push_back(valueText(index, outcome));
              diag.attachNote(op.getLoc())
                  << sourceNames.get(value) << "[" << llvm::join(at, ", ")
                  << "] never sums " << over << " = " << valueText(c, outcome);
              for (const SumPart *part : parts)
                diag.attachNote(part->mma->getLoc())
                    << "the tiles of '" << over << "' are summed here";
            });
  facts.resize(before);
  if (!complete)
    return;
  checkSummedOnce(op, value, element, lo, hi, over);
}

void Checker::checkStoredSums(Operation *op, Value data) {
  Sums summed = sums.lookup(data);
  if (summed.parts.empty() || summed.unknownAt)
    return;
  size_t before = facts.size();
  SmallVector<const Term *> element =
      freshElement(cast<RankedTensorType>(data.getType()).getShape());
  checkSummedOnce(op, data, element, nullptr, nullptr, "");
  facts.resize(before);
}
