//===- IntSemantics.cpp - Exact integer arithmetic of arith ops -*- C++ -*-===//
//
// The value of an N-bit integer (index: 64 bits) is its signed reading, an
// unbounded integer in [-2^(N-1), 2^(N-1)). Every arith op is modelled as
// arith defines it: results wrap around modulo 2^N, unsigned ops and
// comparisons read their operands modulo 2^N, divisions truncate or floor
// as their name says, casts truncate or extend. A wrap-around is written
// as a remainder by 2^N, which the solver decides exactly; it is left out
// only where the bounds of the operands (their types, program ids, loop
// ranges, the facts in scope) prove that it cannot happen. Ops this file
// does not model give an unknown value that remembers the op.
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

unsigned Checker::bitsOf(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (element.isIndex())
    return 64;
  if (auto integer = dyn_cast<IntegerType>(element))
    return integer.getWidth() <= 64 ? integer.getWidth() : 0;
  return 0;
}

static TermInt pow2(unsigned bits) { return TermInt(1) << bits; }

//===----------------------------------------------------------------------===//
// Bounds
//===----------------------------------------------------------------------===//

namespace {
/// Interval arithmetic on optional bounds: a missing bound is infinite, and
/// so is one whose computation would overflow.
std::optional<TermInt> addBound(std::optional<TermInt> a,
                                std::optional<TermInt> b) {
  TermInt r;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r))
    return std::nullopt;
  return r;
}

Checker::Interval scale(Checker::Interval range, TermInt factor) {
  auto times = [&](std::optional<TermInt> v) -> std::optional<TermInt> {
    TermInt r;
    if (!v || __builtin_mul_overflow(*v, factor, &r))
      return std::nullopt;
    return r;
  };
  if (factor >= 0)
    return {times(range.lo), times(range.hi)};
  return {times(range.hi), times(range.lo)};
}

} // namespace

TermInt tessera::analysis::floorDivInt(TermInt a, TermInt b) {
  TermInt q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
TermInt tessera::analysis::ceilDivInt(TermInt a, TermInt b) {
  return -floorDivInt(-a, b);
}

/// Bounds on `sym` from facts in scope of the form `0 <= c * sym + k` (and
/// <, ==, and conjunctions of them).
static void refineFromFact(
    const Term *fact, const Term *sym, Checker::Interval &range,
    llvm::function_ref<Checker::Interval(const Term *)> rangeOfOther) {
  switch (fact->getKind()) {
  case TermKind::And:
    for (const Term *op : fact->getOperands())
      refineFromFact(op, sym, range, rangeOfOther);
    return;
  case TermKind::Le:
  case TermKind::Lt:
  case TermKind::Eq:
    break;
  default:
    return;
  }
  const Term *diff = fact->getOperands()[1];
  auto tighten = [&](bool lower, TermInt bound) {
    std::optional<TermInt> &slot = lower ? range.lo : range.hi;
    if (!slot || (lower ? bound > *slot : bound < *slot))
      slot = bound;
  };
  // sym == other + k: sym has other's bounds, shifted.
  if (fact->getKind() == TermKind::Eq && diff->getKind() == TermKind::Add &&
      diff->getOperands().size() == 2 &&
      diff->getCoeffs()[0] == -diff->getCoeffs()[1] &&
      (diff->getCoeffs()[0] == 1 || diff->getCoeffs()[0] == -1)) {
    unsigned mine = diff->getOperands()[0] == sym   ? 0
                    : diff->getOperands()[1] == sym ? 1
                                                    : 2;
    if (mine == 2 || diff->getOperands()[1 - mine]->getKind() != TermKind::Sym)
      return;
    // c * sym - c * other + k = 0  =>  sym = other - k / c.
    TermInt shift = -diff->getValue() * diff->getCoeffs()[mine];
    Checker::Interval other = rangeOfOther(diff->getOperands()[1 - mine]);
    if (other.lo)
      tighten(true, *other.lo + shift);
    if (other.hi)
      tighten(false, *other.hi + shift);
    return;
  }
  TermInt c = 1, k = 0;
  if (diff != sym) {
    if (diff->getKind() != TermKind::Add || diff->getOperands().size() != 1 ||
        diff->getOperands()[0] != sym)
      return;
    c = diff->getCoeffs()[0];
    k = diff->getValue();
  }
  if (fact->getKind() == TermKind::Lt)
    k -= 1; // c * sym + k > 0  <=>  c * sym + (k - 1) >= 0.
  // c * sym >= -k.
  if (c > 0)
    tighten(true, ceilDivInt(-k, c));
  else if (c < 0)
    tighten(false, floorDivInt(k, -c));
  if (fact->getKind() == TermKind::Eq) {
    // c * sym <= -k as well.
    if (c > 0)
      tighten(false, floorDivInt(-k, c));
    else if (c < 0)
      tighten(true, ceilDivInt(k, -c));
  }
}

Checker::Interval Checker::rangeOf(const Term *term) {
  Interval range = rangeOfNode(term);
  // What simplifyByBounds found the facts to state about this term.
  for (const Term *literal : boundLiterals)
    refineFromFact(literal, term, range, [&](const Term *other) {
      return symbolRanges.lookup(other);
    });
  return range;
}

Checker::Interval Checker::rangeOfNode(const Term *term) {
  switch (term->getKind()) {
  case TermKind::Const:
    return {term->getValue(), term->getValue()};
  case TermKind::Sym: {
    Interval range = symbolRanges.lookup(term);
    for (auto [d, size] : llvm::enumerate(currentShape))
      if (d < elems.size() && elems[d] == term)
        range = {TermInt(0), TermInt(size - 1)};
    // Equalities with other symbols are followed one step.
    auto other = [&](const Term *sym) -> Interval {
      if (followingEquality)
        return symbolRanges.lookup(sym);
      followingEquality = true;
      Interval r = rangeOf(sym);
      followingEquality = false;
      return r;
    };
    for (ArrayRef<Fact> scope : {ArrayRef<Fact>(kernelFacts), ArrayRef(facts)})
      for (const Fact &fact : scope)
        if (fact.bound.empty())
          refineFromFact(fact.condition, term, range, other);
    return range;
  }
  case TermKind::Add: {
    Interval sum{term->getValue(), term->getValue()};
    for (auto [op, coeff] :
         llvm::zip_equal(term->getOperands(), term->getCoeffs())) {
      Interval part = scale(rangeOf(op), coeff);
      sum = {addBound(sum.lo, part.lo), addBound(sum.hi, part.hi)};
    }
    return sum;
  }
  case TermKind::Mul: {
    Interval a = rangeOf(term->getOperands()[0]);
    Interval b = rangeOf(term->getOperands()[1]);
    if (!a.lo || !a.hi || !b.lo || !b.hi)
      return {};
    Interval result;
    for (TermInt x : {*a.lo, *a.hi})
      for (TermInt y : {*b.lo, *b.hi}) {
        TermInt p;
        if (__builtin_mul_overflow(x, y, &p))
          return {};
        if (!result.lo || p < *result.lo)
          result.lo = p;
        if (!result.hi || p > *result.hi)
          result.hi = p;
      }
    return result;
  }
  case TermKind::Div: {
    const Term *divisor = term->getOperands()[1];
    Interval a = rangeOf(term->getOperands()[0]);
    if (!divisor->isConst()) {
      // A non-negative dividend over a positive divisor: [0, dividend].
      Interval b = rangeOf(divisor);
      if (a.lo && *a.lo >= 0 && b.lo && *b.lo >= 1)
        return {TermInt(0), a.hi};
      return {};
    }
    TermInt d = divisor->getValue();
    if (d <= 0)
      return {};
    return {a.lo ? std::optional(floorDivInt(*a.lo, d)) : std::nullopt,
            a.hi ? std::optional(floorDivInt(*a.hi, d)) : std::nullopt};
  }
  case TermKind::Mod: {
    const Term *divisor = term->getOperands()[1];
    if (!divisor->isConst() || divisor->getValue() <= 0)
      return {};
    Interval a = rangeOf(term->getOperands()[0]);
    TermInt d = divisor->getValue();
    if (a.lo && a.hi && *a.lo >= 0 && *a.hi < d)
      return a;
    return {TermInt(0), d - 1};
  }
  case TermKind::Min:
  case TermKind::Max:
  case TermKind::Ite: {
    ArrayRef<const Term *> ops = term->getOperands();
    Interval a = rangeOf(ops[ops.size() - 2]), b = rangeOf(ops.back());
    bool isMin = term->getKind() == TermKind::Min;
    bool isMax = term->getKind() == TermKind::Max;
    auto pick = [](std::optional<TermInt> x, std::optional<TermInt> y,
                   bool smaller, bool needBoth) -> std::optional<TermInt> {
      if (!x || !y)
        return needBoth ? std::nullopt : (x ? x : y);
      return smaller ? std::min(*x, *y) : std::max(*x, *y);
    };
    // min(a, b) >= min(a.lo, b.lo) and <= min(a.hi, b.hi); max mirrors it;
    // ite lies in the hull.
    return {pick(a.lo, b.lo, /*smaller=*/!isMax, /*needBoth=*/!isMax),
            pick(a.hi, b.hi, /*smaller=*/isMin, /*needBoth=*/!isMin)};
  }
  case TermKind::Apply:
    if (auto it = functionBits.find(term->getName()); it != functionBits.end())
      return {-pow2(it->second - 1), pow2(it->second - 1) - 1};
    return {};
  default:
    return {};
  }
}

const Term *Checker::pinnedByBounds(const Term *x, TermInt c, bool quotient) {
  Interval r = rangeOf(x);
  if (!r.lo || !r.hi || floorDivInt(*r.lo, c) != floorDivInt(*r.hi, c))
    return nullptr;
  TermInt q = floorDivInt(*r.lo, c);
  return quotient ? terms.cst(q) : terms.sub(x, terms.cst(c * q));
}

/// Decides `cond` from bounds alone, if they suffice.
std::optional<bool> Checker::decide(const Term *cond) {
  if (cond->getKind() == TermKind::BoolConst)
    return cond->getValue() != 0;
  if (cond->getKind() != TermKind::Le && cond->getKind() != TermKind::Lt)
    return std::nullopt;
  Interval diff = rangeOf(cond->getOperands()[1]);
  TermInt least = cond->getKind() == TermKind::Le ? 0 : 1;
  if (diff.lo && *diff.lo >= least)
    return true;
  if (diff.hi && *diff.hi < least)
    return false;
  return std::nullopt;
}

const Term *Checker::simplifyUnderFacts(const Term *term) {
  // Only goals about a loop that steps in multiples: elsewhere the goal
  // goes to Z3 as built (a rewritten goal can be one on which Debian's
  // Z3 4.8.12 runs past its rlimit; see docs/invariants.md).
  SmallVector<const Term *> symbols;
  terms.collectSymbols(term, symbols);
  if (llvm::none_of(
          symbols, [&](const Term *sym) { return symbolMultiples.count(sym); }))
    return term;
  // Whether coeff * atom is known to be a multiple of c.
  auto isMultiple = [&](const Term *atom, TermInt coeff, TermInt c) {
    if (coeff % c == 0)
      return true;
    auto it = symbolMultiples.find(atom);
    TermInt product;
    return it != symbolMultiples.end() &&
           !__builtin_mul_overflow(coeff, it->second, &product) &&
           product % c == 0;
  };
  // The atoms of a linear term, with the constant as a null atom.
  auto atomsOf = [](const Term *x) {
    SmallVector<std::pair<const Term *, TermInt>> atoms;
    if (x->getKind() != TermKind::Add) {
      atoms.push_back(x->isConst() ? std::make_pair(nullptr, x->getValue())
                                   : std::make_pair(x, TermInt(1)));
      return atoms;
    }
    atoms.push_back({nullptr, x->getValue()});
    for (auto [atom, coeff] : llvm::zip_equal(x->getOperands(), x->getCoeffs()))
      atoms.push_back({atom, coeff});
    return atoms;
  };
  auto scaled = [&](const Term *atom, TermInt coeff) {
    return atom ? terms.mul(terms.cst(coeff), atom) : terms.cst(coeff);
  };
  llvm::DenseMap<const Term *, const Term *> done;
  auto simplify = [&](const Term *result) -> const Term * {
    bool isDiv = result->getKind() == TermKind::Div;
    if ((isDiv || result->getKind() == TermKind::Mod) &&
        result->getOperands()[1]->isConst() &&
        result->getOperands()[1]->getValue() > 0) {
      const Term *divisor = result->getOperands()[1];
      TermInt c = divisor->getValue();
      // dividend = multiple + rest, the multiple a multiple of c:
      // floor((m + r) / c) = m / c + floor(r / c), (m + r) mod c = r mod c.
      const Term *multiple = terms.cst(0), *rest = terms.cst(0);
      for (auto [atom, coeff] : atomsOf(result->getOperands()[0])) {
        const Term *&into = isMultiple(atom, coeff, c) ? multiple : rest;
        into = terms.add(into, scaled(atom, coeff));
      }
      const Term *restPart = pinnedByBounds(rest, c, isDiv);
      if (!restPart)
        restPart = isDiv ? terms.div(rest, divisor) : terms.mod(rest, divisor);
      if (!isDiv)
        result = restPart;
      else if (multiple != terms.cst(0) || restPart != result)
        result = terms.add(terms.div(multiple, divisor), restPart);
    } else if (result->getKind() == TermKind::Add) {
      // a * (m floordiv c) = (a / c) * m when c divides a and m is a
      // multiple of c.
      const Term *sum = terms.cst(0);
      for (auto [atom, coeff] : atomsOf(result)) {
        if (atom && atom->getKind() == TermKind::Div &&
            atom->getOperands()[1]->isConst() &&
            atom->getOperands()[1]->getValue() > 0 &&
            coeff % atom->getOperands()[1]->getValue() == 0) {
          TermInt c = atom->getOperands()[1]->getValue();
          auto parts = atomsOf(atom->getOperands()[0]);
          if (llvm::all_of(parts, [&](auto part) {
                return isMultiple(part.first, part.second, c);
              })) {
            sum = terms.add(
                sum, terms.mul(terms.cst(coeff / c), atom->getOperands()[0]));
            continue;
          }
        }
        sum = terms.add(sum, scaled(atom, coeff));
      }
      result = sum;
    }
    return result;
  };
  return terms.rewriteBottomUp(term, simplify, done);
}

/// Narrows `ranges` by the linear comparisons among `facts` (conjunctions
/// of `0 <= e`, `0 < e`, `0 == e` with e linear in symbols) until nothing
/// changes; false when some range becomes empty.
static bool
propagateBounds(ArrayRef<const Term *> facts,
                llvm::DenseMap<const Term *, Checker::Interval> &ranges) {
  SmallVector<const Term *> atoms;
  std::function<void(const Term *)> collect = [&](const Term *fact) {
    if (fact->getKind() == TermKind::And)
      for (const Term *op : fact->getOperands())
        collect(op);
    else if (fact->getKind() == TermKind::Le ||
             fact->getKind() == TermKind::Lt || fact->getKind() == TermKind::Eq)
      atoms.push_back(fact);
  };
  for (const Term *fact : facts)
    collect(fact);
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    for (const Term *atom : atoms) {
      const Term *diff = atom->getOperands()[1];
      SmallVector<std::pair<const Term *, TermInt>> terms;
      TermInt k = 0;
      if (diff->getKind() == TermKind::Sym) {
        terms.push_back({diff, 1});
      } else if (diff->getKind() == TermKind::Add) {
        k = diff->getValue();
        for (auto [op, c] :
             llvm::zip_equal(diff->getOperands(), diff->getCoeffs())) {
          if (op->getKind() != TermKind::Sym)
            break;
          terms.push_back({op, c});
        }
        if (terms.size() != diff->getOperands().size())
          continue;
      } else {
        continue;
      }
      if (atom->getKind() == TermKind::Lt)
        k -= 1;
      // sum c_i x_i + k >= 0 (and <= 0 for an equality): bound each x_j by
      // the others' extremes.
      for (bool upper : {false, true}) {
        if (upper && atom->getKind() != TermKind::Eq)
          break;
        for (auto [sym, c] : terms) {
          // c x_j >= -k - sum_{i != j} max(c_i x_i)   (lower form), or
          // c x_j <= -k - sum_{i != j} min(c_i x_i)   (equality's other side).
          std::optional<TermInt> rest = -k;
          for (auto [other, d] : terms) {
            if (other == sym || !rest)
              continue;
            Checker::Interval r = ranges.lookup(other);
            std::optional<TermInt> extreme = (d > 0) != upper ? r.hi : r.lo;
            TermInt product;
            if (!extreme || __builtin_mul_overflow(d, *extreme, &product) ||
                __builtin_sub_overflow(*rest, product, &*rest))
              rest = std::nullopt;
          }
          if (!rest)
            continue;
          Checker::Interval &range = ranges[sym];
          // c x >= rest (lower form) or c x <= rest (upper form).
          // Dividing by c < 0 flips the comparison: |c| x vs -rest.
          bool lowerBoundOnX = (c > 0) != upper;
          TermInt magnitude = c > 0 ? c : -c;
          TermInt scaledRest = c > 0 ? *rest : -*rest;
          TermInt bound = lowerBoundOnX ? ceilDivInt(scaledRest, magnitude)
                                        : floorDivInt(scaledRest, magnitude);
          std::optional<TermInt> &slot = lowerBoundOnX ? range.lo : range.hi;
          if (!slot || (lowerBoundOnX ? bound > *slot : bound < *slot)) {
            slot = bound;
            changed = true;
          }
          if (range.lo && range.hi && *range.lo > *range.hi)
            return false;
        }
      }
    }
    if (!changed)
      break;
  }
  return true;
}

bool Checker::findModel(ArrayRef<Fact> facts) {
  SmallVector<const Term *> symbols, current;
  for (const Fact &fact : facts) {
    if (!fact.bound.empty())
      return false;
    terms.collectSymbols(fact.condition, symbols);
    current.push_back(fact.condition);
  }
  llvm::DenseMap<const Term *, Interval> ranges;
  for (const Term *sym : symbols)
    ranges[sym] = symbolRanges.lookup(sym);
  // The latest symbols first: loop variables before the sizes that bound
  // them; each takes the first of a few candidates in its bounds that
  // leaves every fact satisfiable by bounds, and the bounds of the rest
  // follow from it.
  for (const Term *sym : llvm::reverse(symbols)) {
    if (!propagateBounds(current, ranges))
      return false;
    Interval range = ranges.lookup(sym);
    TermInt lo = range.lo   ? *range.lo
                 : range.hi ? std::min<TermInt>(0, *range.hi)
                            : 0;
    SmallVector<TermInt> candidates = {lo};
    for (TermInt m = 2; m <= 4096; m *= 2)
      candidates.push_back(ceilDivInt(lo, m) * m);
    // A step or two past the bound: the second and third tiles of a loop.
    for (TermInt m = 1; m <= 4096; m *= 2) {
      candidates.push_back(lo + m);
      candidates.push_back(lo + 2 * m);
    }
    if (range.hi)
      candidates.push_back(*range.hi);
    bool placed = false;
    for (TermInt value : candidates) {
      if (range.hi && value > *range.hi)
        continue;
      llvm::DenseMap<const Term *, const Term *> at = {{sym, terms.cst(value)}};
      SmallVector<const Term *> next;
      for (const Term *fact : current) {
        next.push_back(terms.substitute(fact, at));
        if (next.back()->isFalse())
          break;
      }
      if (next.size() != current.size() || next.back()->isFalse())
        continue;
      llvm::DenseMap<const Term *, Interval> narrowed = ranges;
      narrowed[sym] = {value, value};
      if (!propagateBounds(next, narrowed))
        continue;
      current = std::move(next);
      ranges = std::move(narrowed);
      placed = true;
      break;
    }
    if (!placed)
      return false;
  }
  return llvm::all_of(current, [](const Term *fact) { return fact->isTrue(); });
}

const Term *Checker::select(const Term *cond, const Term *thenTerm,
                            const Term *elseTerm) {
  if (std::optional<bool> known = decide(cond))
    return *known ? thenTerm : elseTerm;
  return terms.ite(cond, thenTerm, elseTerm);
}

const Term *Checker::freshValue(StringRef name, unsigned bits) {
  const Term *sym = terms.freshSym(name);
  if (!bits)
    return sym;
  Interval range = {TermInt(0), TermInt(1)};
  if (bits > 1)
    range = {-pow2(bits - 1), pow2(bits - 1) - 1};
  symbolRanges[sym] = range;
  kernelFacts.push_back(
      {terms.inRange(sym, terms.cst(*range.lo), terms.cst(*range.hi + 1)), {}});
  return sym;
}

//===----------------------------------------------------------------------===//
// Two's complement
//===----------------------------------------------------------------------===//

const Term *Checker::wrapSigned(const Term *term, unsigned bits) {
  TermInt half = pow2(bits - 1);
  Interval range = rangeOf(term);
  if (range.lo && range.hi && *range.lo >= -half && *range.hi < half)
    return term;
  // Within one period either side: a case split, which the solver handles
  // better than a remainder by 2^bits.
  const Term *period = terms.cst(2 * half);
  if (range.lo && range.hi && *range.lo >= -3 * half && *range.hi < 3 * half)
    return select(terms.le(terms.cst(half), term), terms.sub(term, period),
                  select(terms.lt(term, terms.cst(-half)),
                         terms.add(term, period), term));
  return terms.sub(
      terms.mod(terms.add(term, terms.cst(half)), terms.cst(2 * half)),
      terms.cst(half));
}

const Term *Checker::toUnsigned(const Term *term, unsigned bits) {
  Interval range = rangeOf(term);
  if (range.lo && *range.lo >= 0)
    return term;
  const Term *shifted = terms.add(term, terms.cst(pow2(bits)));
  if (range.hi && *range.hi < 0)
    return shifted;
  // `term` is a signed `bits`-bit value: negative ones read 2^bits higher.
  return terms.ite(terms.lt(term, terms.cst(0)), shifted, term);
}

const Term *Checker::boolToInt(const Term *flag, bool isSigned) {
  return terms.ite(flag, terms.cst(isSigned ? -1 : 1), terms.cst(0));
}

/// floor(a / b) for b != 0 of either sign.
const Term *Checker::floorDivide(const Term *a, const Term *b) {
  return select(terms.lt(terms.cst(0), b), terms.div(a, b),
                terms.div(terms.neg(a), terms.neg(b)));
}

/// a / b rounded towards zero, for b != 0 of either sign.
const Term *Checker::truncDivide(const Term *a, const Term *b) {
  const Term *zero = terms.cst(0);
  const Term *positive = select(terms.le(zero, a), terms.div(a, b),
                                terms.neg(terms.div(terms.neg(a), b))); // b > 0
  const Term *negative =
      select(terms.le(zero, a), terms.neg(terms.div(a, terms.neg(b))),
             terms.div(terms.neg(a), terms.neg(b))); // b < 0
  return select(terms.lt(zero, b), positive, negative);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// Shift amounts and masks the model handles: a constant operand.
static std::optional<TermInt> constantOf(const Term *term) {
  if (term && term->isConst())
    return term->getValue();
  return std::nullopt;
}

const Term *Checker::integerValue(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumOperands() == 0)
    return nullptr;
  Value result = op->getResult(0);
  unsigned bits = bitsOf(result.getType());
  unsigned inBits = bitsOf(op->getOperand(0).getType());
  if (!bits || !inBits)
    return nullptr;
  auto operand = [&](unsigned i) { return valueTerm(op->getOperand(i)); };
  // i1 values are booleans; as integers they read 0 / -1 (signed) or 0 / 1.
  auto asInt = [&](unsigned i, bool isSigned) {
    const Term *t = operand(i);
    return inBits == 1 ? boolToInt(t, isSigned) : t;
  };
  auto sInt = [&](unsigned i) { return asInt(i, true); };
  auto uInt = [&](unsigned i) {
    return inBits == 1 ? asInt(i, false) : toUnsigned(operand(i), inBits);
  };
  auto wrap = [&](const Term *t) { return wrapSigned(t, bits); };
  // 2^amount for a shift by a constant amount below the width, else null.
  auto shiftFactor = [&]() -> const Term * {
    std::optional<TermInt> amount = constantOf(uInt(1));
    if (!amount || *amount >= bits)
      return nullptr;
    return terms.cst(pow2(unsigned(*amount)));
  };

  if (bits == 1 && inBits == 1) {
    // Boolean algebra on i1.
    if (isa<arith::AndIOp, arith::MulIOp>(op))
      return terms.land(operand(0), operand(1));
    if (isa<arith::OrIOp>(op))
      return terms.lor(operand(0), operand(1));
    if (isa<arith::XOrIOp, arith::AddIOp, arith::SubIOp>(op))
      return terms.lnot(terms.eq(operand(0), operand(1)));
  }
  // Other ops on i1 (division, shifts) are not modelled.
  if (bits == 1 && !isa<arith::CmpIOp, arith::SelectOp, arith::TruncIOp,
                        arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return nullptr;
  return llvm::TypeSwitch<Operation *, const Term *>(op)
      .Case([&](arith::CmpIOp cmp) -> const Term * {
        using P = arith::CmpIPredicate;
        P pred = cmp.getPredicate();
        if (inBits == 1 && (pred == P::eq || pred == P::ne)) {
          const Term *same = terms.eq(operand(0), operand(1));
          return pred == P::eq ? same : terms.lnot(same);
        }
        bool isUnsigned = pred == P::ult || pred == P::ule || pred == P::ugt ||
                          pred == P::uge;
        const Term *a = isUnsigned ? uInt(0) : sInt(0);
        const Term *b = isUnsigned ? uInt(1) : sInt(1);
        switch (pred) {
        case P::eq:
          return terms.eq(a, b);
        case P::ne:
          return terms.lnot(terms.eq(a, b));
        case P::slt:
        case P::ult:
          return terms.lt(a, b);
        case P::sle:
        case P::ule:
          return terms.le(a, b);
        case P::sgt:
        case P::ugt:
          return terms.lt(b, a);
        case P::sge:
        case P::uge:
          return terms.le(b, a);
        }
        return nullptr;
      })
      .Case([&](arith::SelectOp) -> const Term * {
        if (bitsOf(op->getOperand(1).getType()) == 1)
          return terms.ite(operand(0), operand(1), operand(2));
        return select(operand(0), operand(1), operand(2));
      })
      .Case([&](arith::AddIOp) { return wrap(terms.add(sInt(0), sInt(1))); })
      .Case([&](arith::SubIOp) { return wrap(terms.sub(sInt(0), sInt(1))); })
      .Case([&](arith::MulIOp) { return wrap(terms.mul(sInt(0), sInt(1))); })
      .Case([&](arith::DivSIOp) { return wrap(truncDivide(sInt(0), sInt(1))); })
      .Case([&](arith::RemSIOp) {
        const Term *a = sInt(0), *b = sInt(1);
        return terms.sub(a, terms.mul(b, truncDivide(a, b)));
      })
      .Case([&](arith::FloorDivSIOp) {
        return wrap(floorDivide(sInt(0), sInt(1)));
      })
      .Case([&](arith::CeilDivSIOp) {
        return wrap(terms.neg(floorDivide(terms.neg(sInt(0)), sInt(1))));
      })
      .Case([&](arith::DivUIOp) { return wrap(terms.div(uInt(0), uInt(1))); })
      .Case([&](arith::RemUIOp) { return wrap(terms.mod(uInt(0), uInt(1))); })
      .Case([&](arith::CeilDivUIOp) {
        const Term *b = uInt(1);
        return wrap(
            terms.div(terms.add(uInt(0), terms.sub(b, terms.cst(1))), b));
      })
      .Case([&](arith::MinSIOp) { return terms.min(sInt(0), sInt(1)); })
      .Case([&](arith::MaxSIOp) { return terms.max(sInt(0), sInt(1)); })
      .Case([&](arith::MinUIOp) {
        return select(terms.le(uInt(0), uInt(1)), sInt(0), sInt(1));
      })
      .Case([&](arith::MaxUIOp) {
        return select(terms.le(uInt(0), uInt(1)), sInt(1), sInt(0));
      })
      .Case<arith::ExtSIOp>([&](auto) { return sInt(0); })
      .Case<arith::ExtUIOp>([&](auto) { return uInt(0); })
      .Case<arith::TruncIOp>([&](auto) -> const Term * {
        if (bits == 1)
          return terms.eq(terms.mod(sInt(0), terms.cst(2)), terms.cst(1));
        return wrap(sInt(0));
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp>(
          [&](auto) -> const Term * {
            bool isUnsigned = isa<arith::IndexCastUIOp>(op);
            if (bits == 1)
              return terms.eq(terms.mod(sInt(0), terms.cst(2)), terms.cst(1));
            if (bits < inBits)
              return wrap(sInt(0));
            // Between equal widths (index and i64) both casts keep the bits.
            if (bits == inBits)
              return sInt(0);
            return isUnsigned ? uInt(0) : sInt(0);
          })
      .Case([&](arith::ShLIOp) -> const Term * {
        const Term *factor = shiftFactor();
        return factor ? wrap(terms.mul(sInt(0), factor)) : nullptr;
      })
      .Case([&](arith::ShRSIOp) -> const Term * {
        const Term *factor = shiftFactor();
        return factor ? terms.div(sInt(0), factor) : nullptr;
      })
      .Case([&](arith::ShRUIOp) -> const Term * {
        const Term *factor = shiftFactor();
        return factor ? wrap(terms.div(uInt(0), factor)) : nullptr;
      })
      .Case([&](arith::AndIOp) -> const Term * {
        // x & (2^k - 1) keeps the low k bits; x & 0 = 0; x & -1 = x.
        for (unsigned i = 0; i < 2; ++i) {
          std::optional<TermInt> mask = constantOf(operand(i));
          if (!mask)
            continue;
          if (*mask == -1)
            return sInt(1 - i);
          if (*mask >= 0 && ((*mask + 1) & *mask) == 0)
            return wrap(terms.mod(sInt(1 - i), terms.cst(*mask + 1)));
        }
        return nullptr;
      })
      .Case<arith::OrIOp, arith::XOrIOp>([&](auto) -> const Term * {
        for (unsigned i = 0; i < 2; ++i)
          if (constantOf(operand(i)) == TermInt(0))
            return sInt(1 - i);
        return nullptr;
      })
      .Default([](Operation *) { return nullptr; });
}
