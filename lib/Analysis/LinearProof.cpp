//===- LinearProof.cpp - Linear arithmetic proofs without Z3 --------------===//
//
// A goal that is linear in its atoms once its if-then-elses, minimums and
// maximums are split into cases is proved case by case: the facts in scope,
// the case's conditions and the negated goal are refuted by Fourier-Motzkin
// elimination. Sound for integers: an integer solution is a rational one
// (each constraint's constant is rounded down after dividing out the gcd of
// its coefficients, which no integer solution can violate), and every term
// that is not linear (a product, quotient, remainder, data read from a view)
// is an opaque atom bounded by what rangeOf proves of it. A case that
// cannot be decided so is not a proof: the goal goes to Z3.
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <map>

using namespace mlir;

namespace tessera::analysis {

namespace {

/// constant + sum(coeff * atom) >= 0, atoms sorted by id.
struct Constraint {
  TermInt constant = 0;
  SmallVector<std::pair<const Term *, TermInt>, 4> atoms;
};

/// A disjunction of conjunctions of constraints.
using Conjunction = std::vector<Constraint>;
using Dnf = std::vector<Conjunction>;

/// The formula that always holds: one empty conjunction.
Dnf alwaysTrue() { return Dnf(1); }

/// `lhs and rhs`, multiplied out.
Dnf conjoin(const Dnf &lhs, const Dnf &rhs) {
  Dnf product;
  for (const Conjunction &left : lhs)
    for (const Conjunction &right : rhs) {
      product.push_back(left);
      product.back().insert(product.back().end(), right.begin(), right.end());
    }
  return product;
}

// Limits that keep a failed attempt cheap; reaching one only means Z3
// decides the goal.
constexpr unsigned kMaxSplits = 6;
constexpr size_t kMaxConstraints = 256;
constexpr size_t kMaxDisjuncts = 16;
constexpr unsigned kMaxRefutations = 128;

TermInt gcdOf(TermInt a, TermInt b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    TermInt r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/// `scale * term` added into `c`; false on overflow.
bool addLinear(const Term *term, TermInt scale, Constraint &c) {
  auto addAtom = [&](const Term *atom, TermInt coeff) {
    TermInt product;
    if (__builtin_mul_overflow(coeff, scale, &product))
      return false;
    for (auto &[existing, value] : c.atoms)
      if (existing == atom)
        return !__builtin_add_overflow(value, product, &value);
    c.atoms.push_back({atom, product});
    return true;
  };
  if (term->isConst()) {
    TermInt product;
    return !__builtin_mul_overflow(term->getValue(), scale, &product) &&
           !__builtin_add_overflow(c.constant, product, &c.constant);
  }
  if (term->getKind() != TermKind::Add)
    return addAtom(term, 1);
  TermInt product;
  if (__builtin_mul_overflow(term->getValue(), scale, &product) ||
      __builtin_add_overflow(c.constant, product, &c.constant))
    return false;
  for (auto [atom, coeff] :
       llvm::zip_equal(term->getOperands(), term->getCoeffs()))
    if (!addAtom(atom, coeff))
      return false;
  return true;
}

/// Drops zero coefficients, sorts, divides by the coefficients' gcd and
/// rounds the constant down (exact for integer atoms).
void normalize(Constraint &c) {
  llvm::erase_if(c.atoms, [](auto &atom) { return atom.second == 0; });
  llvm::sort(c.atoms, [](auto &a, auto &b) {
    return a.first->getId() < b.first->getId();
  });
  TermInt g = 0;
  for (auto &atom : c.atoms)
    g = gcdOf(g, atom.second);
  if (g > 1) {
    for (auto &atom : c.atoms)
      atom.second /= g;
    c.constant = floorDivInt(c.constant, g);
  }
}

/// `0 <= d`, `0 < d` or `0 == d` (negated when `negated`) as a DNF of
/// constraints; nullopt if it is not such a comparison.
std::optional<Dnf> comparison(const Term *literal, bool negated) {
  TermKind kind = literal->getKind();
  if (kind != TermKind::Le && kind != TermKind::Lt && kind != TermKind::Eq)
    return std::nullopt;
  const Term *d = literal->getOperands()[1];
  // d + shift >= 0, scaled by sign.
  auto single = [&](TermInt sign, TermInt shift) -> std::optional<Dnf> {
    Constraint c;
    if (!addLinear(d, sign, c) ||
        __builtin_add_overflow(c.constant, shift, &c.constant))
      return std::nullopt;
    return Dnf(1, Conjunction{c});
  };
  if (kind == TermKind::Eq) {
    if (!negated) {
      std::optional<Dnf> ge = single(1, 0), le = single(-1, 0);
      if (!ge || !le)
        return std::nullopt;
      return Dnf(1, Conjunction{ge->front().front(), le->front().front()});
    }
    std::optional<Dnf> above = single(1, -1), below = single(-1, -1);
    if (!above || !below)
      return std::nullopt;
    return Dnf{above->front(), below->front()}; // two disjuncts
  }
  bool strict = kind == TermKind::Lt;
  if (!negated)
    return single(1, strict ? -1 : 0); // d >= 0 or d - 1 >= 0
  return single(-1, strict ? 0 : -1);  // -d >= 0 or -d - 1 >= 0
}

/// `formula` (negated when `negated`) in disjunctive normal form over
/// comparisons; nullopt if it holds anything else or grows too large.
std::optional<Dnf> toDnf(const Term *formula, bool negated) {
  switch (formula->getKind()) {
  case TermKind::BoolConst:
    if ((formula->getValue() != 0) != negated)
      return alwaysTrue();
    return Dnf();
  case TermKind::Not:
    return toDnf(formula->getOperands()[0], !negated);
  case TermKind::And:
  case TermKind::Or: {
    // A conjunction (an And, or a negated Or) multiplies out.
    bool conjunction = (formula->getKind() == TermKind::And) != negated;
    Dnf result = conjunction ? alwaysTrue() : Dnf();
    for (const Term *op : formula->getOperands()) {
      std::optional<Dnf> part = toDnf(op, negated);
      if (!part)
        return std::nullopt;
      if (conjunction)
        result = conjoin(result, *part);
      else
        result.insert(result.end(), part->begin(), part->end());
      if (result.size() > kMaxDisjuncts)
        return std::nullopt;
    }
    return result;
  }
  default:
    return comparison(formula, negated);
  }
}

/// Whether the constraints have no rational solution, by Fourier-Motzkin
/// elimination with integer rounding. False says nothing.
bool refuted(std::vector<Constraint> constraints) {
  while (true) {
    // Normalize, keep the tightest constraint per coefficient vector, and
    // stop at a constant contradiction.
    std::map<std::vector<std::pair<unsigned, TermInt>>, Constraint> tightest;
    for (Constraint &c : constraints) {
      normalize(c);
      if (c.atoms.empty()) {
        if (c.constant < 0)
          return true;
        continue;
      }
      std::vector<std::pair<unsigned, TermInt>> key;
      for (auto [atom, coeff] : c.atoms)
        key.push_back({atom->getId(), coeff});
      auto [it, inserted] = tightest.try_emplace(key, c);
      if (!inserted && c.constant < it->second.constant)
        it->second = c;
    }
    constraints.clear();
    for (auto &entry : tightest)
      constraints.push_back(std::move(entry.second));
    if (constraints.empty())
      return false;
    // Eliminate the atom with the fewest new constraints.
    llvm::MapVector<const Term *, std::pair<size_t, size_t>> signs;
    for (const Constraint &c : constraints)
      for (auto [atom, coeff] : c.atoms) {
        auto &[positive, negative] = signs[atom];
        ++(coeff > 0 ? positive : negative);
      }
    const Term *pick = nullptr;
    size_t best = 0;
    for (auto &[atom, count] : signs) {
      size_t cost = count.first * count.second;
      if (!pick || cost < best) {
        pick = atom;
        best = cost;
      }
    }
    std::vector<Constraint> next, positive, negative;
    for (Constraint &c : constraints) {
      auto it = llvm::find_if(c.atoms,
                              [&](auto &atom) { return atom.first == pick; });
      if (it == c.atoms.end())
        next.push_back(std::move(c));
      else
        (it->second > 0 ? positive : negative).push_back(std::move(c));
    }
    // An atom bounded on one side only can always satisfy its constraints.
    for (const Constraint &p : positive)
      for (const Constraint &n : negative) {
        TermInt a = llvm::find_if(p.atoms, [&](auto &atom) {
                      return atom.first == pick;
                    })->second;
        TermInt b = -llvm::find_if(n.atoms, [&](auto &atom) {
                       return atom.first == pick;
                     })->second;
        // b * p + a * n cancels the atom; a combination that overflows is
        // dropped (fewer constraints only weaken the refutation).
        Constraint sum;
        bool ok = true;
        for (auto [from, factor] : {std::pair(&p, b), std::pair(&n, a)}) {
          TermInt product;
          ok = ok &&
               !__builtin_mul_overflow(from->constant, factor, &product) &&
               !__builtin_add_overflow(sum.constant, product, &sum.constant);
          for (auto [atom, coeff] : from->atoms) {
            if (!ok)
              break;
            if (atom == pick)
              continue;
            ok = !__builtin_mul_overflow(coeff, factor, &product);
            if (!ok)
              break;
            const Term *summand = atom;
            auto existing = llvm::find_if(
                sum.atoms, [&](auto &entry) { return entry.first == summand; });
            if (existing == sum.atoms.end())
              sum.atoms.push_back({summand, product});
            else
              ok = !__builtin_add_overflow(existing->second, product,
                                           &existing->second);
          }
        }
        if (ok)
          next.push_back(std::move(sum));
        if (next.size() > kMaxConstraints)
          return false;
      }
    constraints = std::move(next);
  }
}

/// The first if-then-else condition, minimum or maximum in `term`,
/// outermost first.
const Term *findSplit(const Term *term) {
  SmallVector<const Term *> worklist{term};
  llvm::DenseSet<const Term *> seen;
  while (!worklist.empty()) {
    const Term *node = worklist.pop_back_val();
    if (!seen.insert(node).second)
      continue;
    if (node->getKind() == TermKind::Ite || node->getKind() == TermKind::Min ||
        node->getKind() == TermKind::Max)
      return node;
    worklist.append(node->getOperands().rbegin(), node->getOperands().rend());
  }
  return nullptr;
}

} // namespace

bool Checker::provedLinearly(const Term *goal) {
  if (goal->isTrue())
    return true;
  // The facts in scope that share symbols with the goal, directly or
  // through other such facts.
  // Each plain fact with its symbols; taken ones leave the list.
  SmallVector<std::pair<const Term *, SmallVector<const Term *>>> plain;
  for (const Fact &fact : llvm::concat<const Fact>(kernelFacts, facts))
    if (fact.bound.empty() && !fact.condition->isTrue()) {
      plain.push_back({fact.condition, {}});
      terms.collectSymbols(fact.condition, plain.back().second);
    }
  SmallVector<const Term *> goalSymbols;
  terms.collectSymbols(goal, goalSymbols);
  llvm::DenseSet<const Term *> symbols(goalSymbols.begin(), goalSymbols.end());
  SmallVector<const Term *> hypotheses;
  for (bool grew = true; grew;) {
    grew = false;
    llvm::erase_if(plain, [&](const auto &entry) {
      const auto &[fact, factSymbols] = entry;
      if (llvm::none_of(factSymbols,
                        [&](const Term *sym) { return symbols.count(sym); }))
        return false;
      hypotheses.push_back(fact);
      symbols.insert(factSymbols.begin(), factSymbols.end());
      grew = true;
      return true;
    });
  }
  unsigned budget = kMaxRefutations;
  return provedLinearly(goal, hypotheses, kMaxSplits, budget);
}

bool Checker::provedLinearly(const Term *goal,
                             ArrayRef<const Term *> hypotheses, unsigned splits,
                             unsigned &budget) {
  // Split on the goal's if-then-elses first, then on the hypotheses'. Past
  // the limit the rest stay opaque atoms (bounded by their hull).
  const Term *split = findSplit(goal);
  for (const Term *fact : hypotheses)
    if (!split)
      split = findSplit(fact);
  if (split && splits > 0) {
    // Each case: what replaces the split node, and the case's condition.
    SmallVector<std::tuple<const Term *, const Term *, const Term *>, 2> cases;
    ArrayRef<const Term *> ops = split->getOperands();
    if (split->getKind() == TermKind::Ite) {
      cases.push_back({ops[0], terms.boolean(true), ops[0]});
      cases.push_back({ops[0], terms.boolean(false), terms.lnot(ops[0])});
    } else {
      bool isMin = split->getKind() == TermKind::Min;
      const Term *firstSmaller = terms.le(ops[0], ops[1]);
      cases.push_back({split, isMin ? ops[0] : ops[1], firstSmaller});
      cases.push_back(
          {split, isMin ? ops[1] : ops[0], terms.lnot(firstSmaller)});
    }
    for (auto [from, to, condition] : cases) {
      llvm::DenseMap<const Term *, const Term *> map = {{from, to}};
      SmallVector<const Term *> caseFacts;
      for (const Term *fact : hypotheses)
        caseFacts.push_back(terms.substitute(fact, map));
      caseFacts.push_back(condition);
      if (!provedLinearly(terms.substitute(goal, map), caseFacts, splits - 1,
                          budget))
        return false;
    }
    return true;
  }
  // No splits left: hypotheses and the negated goal, refuted in every
  // disjunct. A hypothesis that is not linear is left out (weaker facts
  // prove less, never more).
  std::optional<Dnf> negatedGoal = toDnf(goal, /*negated=*/true);
  if (!negatedGoal)
    return false;
  Dnf facts = alwaysTrue();
  for (const Term *fact : hypotheses) {
    std::optional<Dnf> part = toDnf(fact, /*negated=*/false);
    if (!part || part->empty()) {
      if (part) // A false fact: the case cannot happen.
        return true;
      continue;
    }
    Dnf product = conjoin(facts, *part);
    if (product.size() > kMaxDisjuncts)
      continue; // Too many cases: leave this fact out.
    facts = std::move(product);
  }
  for (const auto &factCase : facts)
    for (const auto &goalCase : *negatedGoal) {
      std::vector<Constraint> constraints(factCase.begin(), factCase.end());
      constraints.insert(constraints.end(), goalCase.begin(), goalCase.end());
      // Every atom's bounds, from its symbols' ranges and the facts.
      llvm::SetVector<const Term *> atoms;
      for (const Constraint &c : constraints)
        for (auto [atom, coeff] : c.atoms)
          atoms.insert(atom);
      for (const Term *atom : atoms) {
        Interval range = rangeOf(atom);
        if (range.lo)
          constraints.push_back({-*range.lo, {{atom, 1}}});
        if (range.hi)
          constraints.push_back({*range.hi, {{atom, -1}}});
      }
      if (budget == 0 || !refuted(std::move(constraints)))
        return false;
      --budget;
    }
  return true;
}

} // namespace tessera::analysis
