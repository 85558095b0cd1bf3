//===- Term.cpp - Symbolic integer terms for the tag checker ----*- C++ -*-===//

#include "tessera/Analysis/Term.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace tessera::analysis;

std::string tessera::analysis::toString(TermInt value) {
  if (value == 0)
    return "0";
  bool negative = value < 0;
  // Digits of the magnitude, taken from the negative side so that the
  // minimum has one too.
  std::string digits;
  for (TermInt rest = negative ? value : -value; rest != 0; rest /= 10)
    digits.push_back(char('0' - int(rest % 10)));
  if (negative)
    digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

TermInt TermContext::checked(bool overflow, TermInt result) {
  overflowed |= overflow;
  return overflow ? 0 : result;
}

TermInt TermContext::checkedAdd(TermInt a, TermInt b) {
  TermInt result;
  return checked(__builtin_add_overflow(a, b, &result), result);
}

TermInt TermContext::checkedMul(TermInt a, TermInt b) {
  TermInt result;
  return checked(__builtin_mul_overflow(a, b, &result), result);
}

const Term *TermContext::orOverflow(const Term *term) {
  if (!overflowed)
    return term;
  overflowed = false;
  return freshSym("overflow");
}

static TermInt floorDiv(TermInt a, TermInt b) {
  TermInt q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static TermInt euclidMod(TermInt a, TermInt b) {
  TermInt r = a % b;
  return r < 0 ? r + (b < 0 ? -b : b) : r;
}

size_t TermContext::Hash::operator()(const Term *term) const {
  auto wide = [](TermInt v) {
    return llvm::hash_combine(uint64_t(v), uint64_t(v >> 64));
  };
  llvm::hash_code code =
      llvm::hash_combine(static_cast<int>(term->getKind()),
                         wide(term->getValue()), term->getName());
  for (const Term *op : term->getOperands())
    code = llvm::hash_combine(code, op->getId());
  for (TermInt coeff : term->getCoeffs())
    code = llvm::hash_combine(code, wide(coeff));
  return code;
}

bool TermContext::Equal::operator()(const Term *lhs, const Term *rhs) const {
  // Symbols are distinct objects even when their names agree.
  if (lhs->getKind() == TermKind::Sym || rhs->getKind() == TermKind::Sym)
    return lhs == rhs;
  return lhs->getKind() == rhs->getKind() &&
         lhs->getValue() == rhs->getValue() &&
         lhs->getName() == rhs->getName() &&
         lhs->getOperands() == rhs->getOperands() &&
         lhs->getCoeffs() == rhs->getCoeffs();
}

TermContext::TermContext() = default;
TermContext::~TermContext() = default;

const Term *TermContext::unique(Term &&proto) {
  auto it = terms.find(&proto);
  if (it != terms.end() && proto.kind != TermKind::Sym)
    return *it;
  Term *term = new (allocator.Allocate()) Term(std::move(proto));
  term->id = nextId++;
  terms.insert(term);
  return term;
}

const Term *TermContext::cst(TermInt value) {
  Term proto;
  proto.kind = TermKind::Const;
  proto.value = value;
  return unique(std::move(proto));
}

const Term *TermContext::freshSym(llvm::StringRef name) {
  Term proto;
  proto.kind = TermKind::Sym;
  proto.name = name.str();
  return unique(std::move(proto));
}

void TermContext::linearize(
    const Term *term, TermInt scale, TermInt &constant,
    std::vector<std::pair<const Term *, TermInt>> &atoms) {
  if (term->getKind() == TermKind::Const) {
    constant = checkedAdd(constant, checkedMul(scale, term->getValue()));
    return;
  }
  if (term->getKind() == TermKind::Add) {
    constant = checkedAdd(constant, checkedMul(scale, term->getValue()));
    for (auto [op, coeff] :
         llvm::zip_equal(term->getOperands(), term->getCoeffs()))
      atoms.emplace_back(op, checkedMul(scale, coeff));
    return;
  }
  atoms.emplace_back(term, scale);
}

const Term *
TermContext::buildSum(TermInt constant,
                      std::vector<std::pair<const Term *, TermInt>> atoms) {
  llvm::sort(atoms, [](const auto &lhs, const auto &rhs) {
    return lhs.first->getId() < rhs.first->getId();
  });
  Term proto;
  proto.kind = TermKind::Add;
  proto.value = constant;
  for (auto &[atom, coeff] : atoms) {
    if (!proto.operands.empty() && proto.operands.back() == atom) {
      proto.coeffs.back() = checkedAdd(proto.coeffs.back(), coeff);
      continue;
    }
    proto.operands.push_back(atom);
    proto.coeffs.push_back(coeff);
  }
  // Drop cancelled atoms.
  for (size_t i = proto.operands.size(); i-- > 0;) {
    if (proto.coeffs[i] != 0)
      continue;
    proto.operands.erase(proto.operands.begin() + i);
    proto.coeffs.erase(proto.coeffs.begin() + i);
  }
  // a * c * (x floordiv c) + a * (x mod c) = a * x: unpacking sub-byte
  // codes splits a column index into both. The remainder may have been
  // normalized (multiples of c dropped from x), so it is compared with
  // x mod c built the same way.
  for (size_t i = 0; i < proto.operands.size(); ++i) {
    const Term *rem = proto.operands[i];
    if (rem->getKind() != TermKind::Mod || !rem->getOperands()[1]->isConst())
      continue;
    for (size_t j = 0; j < proto.operands.size(); ++j) {
      const Term *quot = proto.operands[j];
      TermInt scaled;
      if (quot->getKind() != TermKind::Div ||
          quot->getOperands()[1] != rem->getOperands()[1] ||
          __builtin_mul_overflow(proto.coeffs[i],
                                 rem->getOperands()[1]->getValue(), &scaled) ||
          proto.coeffs[j] != scaled ||
          mod(quot->getOperands()[0], quot->getOperands()[1]) != rem)
        continue;
      std::vector<std::pair<const Term *, TermInt>> rest;
      for (size_t k = 0; k < proto.operands.size(); ++k)
        if (k != i && k != j)
          rest.emplace_back(proto.operands[k], proto.coeffs[k]);
      linearize(quot->getOperands()[0], proto.coeffs[i], constant, rest);
      return buildSum(constant, std::move(rest));
    }
  }
  if (proto.operands.empty())
    return cst(constant);
  if (constant == 0 && proto.operands.size() == 1 && proto.coeffs[0] == 1)
    return proto.operands[0];
  return unique(std::move(proto));
}

const Term *TermContext::add(const Term *lhs, const Term *rhs) {
  TermInt constant = 0;
  std::vector<std::pair<const Term *, TermInt>> atoms;
  linearize(lhs, 1, constant, atoms);
  linearize(rhs, 1, constant, atoms);
  return orOverflow(buildSum(constant, std::move(atoms)));
}

const Term *TermContext::neg(const Term *term) {
  TermInt constant = 0;
  std::vector<std::pair<const Term *, TermInt>> atoms;
  linearize(term, -1, constant, atoms);
  return orOverflow(buildSum(constant, std::move(atoms)));
}

const Term *TermContext::sub(const Term *lhs, const Term *rhs) {
  return add(lhs, neg(rhs));
}

const Term *TermContext::mul(const Term *lhs, const Term *rhs) {
  if (rhs->isConst())
    std::swap(lhs, rhs);
  if (lhs->isConst()) {
    TermInt constant = 0;
    std::vector<std::pair<const Term *, TermInt>> atoms;
    linearize(rhs, lhs->getValue(), constant, atoms);
    return orOverflow(buildSum(constant, std::move(atoms)));
  }
  if (rhs->getId() < lhs->getId())
    std::swap(lhs, rhs);
  Term proto;
  proto.kind = TermKind::Mul;
  proto.operands = {lhs, rhs};
  return unique(std::move(proto));
}

const Term *TermContext::div(const Term *lhs, const Term *rhs) {
  if (rhs->isConst() && rhs->getValue() > 0) {
    TermInt divisor = rhs->getValue();
    if (divisor == 1)
      return lhs;
    TermInt constant = 0;
    std::vector<std::pair<const Term *, TermInt>> atoms;
    linearize(lhs, 1, constant, atoms);
    // Multiples of d leave the floor: floor((d * y + d * q + x + r) / d) =
    // y + q + floor((x + r) / d) with 0 <= r < d, so that `(k - 64) floordiv
    // 64` is `(k floordiv 64) - 1`, and a sum of multiples divides exactly.
    std::vector<std::pair<const Term *, TermInt>> whole, rest;
    for (auto &atom : atoms) {
      if (atom.second % divisor == 0)
        whole.emplace_back(atom.first, atom.second / divisor);
      else
        rest.push_back(atom);
    }
    TermInt quotient = floorDiv(constant, divisor);
    if (rest.empty())
      return buildSum(quotient, std::move(whole));
    if (!whole.empty() || quotient != 0)
      return add(
          buildSum(quotient, std::move(whole)),
          div(buildSum(euclidMod(constant, divisor), std::move(rest)), rhs));
  }
  Term proto;
  proto.kind = TermKind::Div;
  proto.operands = {lhs, rhs};
  return unique(std::move(proto));
}

const Term *TermContext::mod(const Term *lhs, const Term *rhs) {
  if (rhs->isConst() && rhs->getValue() > 0) {
    TermInt divisor = rhs->getValue();
    // (x mod a) mod d = x mod d when d divides a.
    if (lhs->getKind() == TermKind::Mod && lhs->getOperands()[1]->isConst() &&
        lhs->getOperands()[1]->getValue() % divisor == 0)
      lhs = lhs->getOperands()[0];
    TermInt constant = 0;
    std::vector<std::pair<const Term *, TermInt>> atoms;
    linearize(lhs, 1, constant, atoms);
    // Multiples of the divisor do not change the remainder.
    std::vector<std::pair<const Term *, TermInt>> kept;
    for (auto &atom : atoms)
      if (euclidMod(atom.second, divisor) != 0)
        kept.emplace_back(atom.first, euclidMod(atom.second, divisor));
    if (kept.empty())
      return cst(euclidMod(constant, divisor));
    lhs = buildSum(euclidMod(constant, divisor), std::move(kept));
  }
  Term proto;
  proto.kind = TermKind::Mod;
  proto.operands = {lhs, rhs};
  return unique(std::move(proto));
}

const Term *TermContext::min(const Term *lhs, const Term *rhs) {
  if (lhs == rhs)
    return lhs;
  if (lhs->isConst() && rhs->isConst())
    return cst(std::min(lhs->getValue(), rhs->getValue()));
  if (rhs->getId() < lhs->getId())
    std::swap(lhs, rhs);
  Term proto;
  proto.kind = TermKind::Min;
  proto.operands = {lhs, rhs};
  return unique(std::move(proto));
}

const Term *TermContext::max(const Term *lhs, const Term *rhs) {
  if (lhs == rhs)
    return lhs;
  if (lhs->isConst() && rhs->isConst())
    return cst(std::max(lhs->getValue(), rhs->getValue()));
  if (rhs->getId() < lhs->getId())
    std::swap(lhs, rhs);
  Term proto;
  proto.kind = TermKind::Max;
  proto.operands = {lhs, rhs};
  return unique(std::move(proto));
}

const Term *TermContext::ite(const Term *cond, const Term *thenTerm,
                             const Term *elseTerm) {
  if (cond->isTrue() || thenTerm == elseTerm)
    return thenTerm;
  if (cond->isFalse())
    return elseTerm;
  Term proto;
  proto.kind = TermKind::Ite;
  proto.operands = {cond, thenTerm, elseTerm};
  return unique(std::move(proto));
}

const Term *TermContext::apply(llvm::StringRef function,
                               llvm::ArrayRef<const Term *> args) {
  Term proto;
  proto.kind = TermKind::Apply;
  proto.name = function.str();
  proto.operands.assign(args.begin(), args.end());
  return unique(std::move(proto));
}

const Term *TermContext::boolean(bool value) {
  Term proto;
  proto.kind = TermKind::BoolConst;
  proto.value = value;
  return unique(std::move(proto));
}

/// Whether `difference` is `(x + c) mod m - (x mod m) + k` that cannot be
/// 0: both remainders lie in [0, m) and differ by c modulo m, so their
/// difference is 0 when c is a multiple of m, else c mod m or c mod m - m.
/// (Ring slots a stage apart are told apart this way.)
bool TermContext::modsDiffer(const Term *difference) {
  if (difference->getKind() != TermKind::Add ||
      difference->getOperands().size() != 2)
    return false;
  const Term *first = difference->getOperands()[0];
  const Term *second = difference->getOperands()[1];
  TermInt firstCoeff = difference->getCoeffs()[0];
  if (firstCoeff + difference->getCoeffs()[1] != 0 ||
      (firstCoeff != 1 && firstCoeff != -1))
    return false;
  if (firstCoeff < 0)
    std::swap(first, second);
  if (first->getKind() != TermKind::Mod || second->getKind() != TermKind::Mod ||
      first->getOperands()[1] != second->getOperands()[1] ||
      !first->getOperands()[1]->isConst())
    return false;
  TermInt modulus = first->getOperands()[1]->getValue();
  const Term *offset = sub(first->getOperands()[0], second->getOperands()[0]);
  if (modulus <= 0 || !offset->isConst())
    return false;
  // first - second + k == 0 needs first - second == -k.
  TermInt residue = euclidMod(offset->getValue(), modulus);
  TermInt wanted = -difference->getValue();
  if (residue == 0)
    return wanted != 0;
  return wanted != residue && wanted != residue - modulus;
}

/// Comparisons are kept as `0 <kind> difference`, the difference with a
/// positive leading coefficient for equalities, so that a difference that
/// folds to a constant decides the comparison structurally.
const Term *TermContext::compare(TermKind kind, const Term *lhs,
                                 const Term *rhs) {
  const Term *difference = sub(rhs, lhs);
  if (difference->isConst()) {
    TermInt value = difference->getValue();
    return boolean(kind == TermKind::Eq   ? value == 0
                   : kind == TermKind::Le ? value >= 0
                                          : value > 0);
  }
  if (kind == TermKind::Eq && modsDiffer(difference))
    return boolean(false);
  if (kind == TermKind::Eq && difference->getKind() == TermKind::Add &&
      difference->getCoeffs().front() < 0)
    difference = neg(difference);
  Term proto;
  proto.kind = kind;
  proto.operands = {cst(0), difference};
  return unique(std::move(proto));
}

const Term *TermContext::eq(const Term *lhs, const Term *rhs) {
  if (lhs->isBool() || rhs->isBool()) {
    if (lhs == rhs)
      return boolean(true);
    return lor(land(lhs, rhs), land(lnot(lhs), lnot(rhs)));
  }
  return compare(TermKind::Eq, lhs, rhs);
}
const Term *TermContext::le(const Term *lhs, const Term *rhs) {
  return compare(TermKind::Le, lhs, rhs);
}
const Term *TermContext::lt(const Term *lhs, const Term *rhs) {
  return compare(TermKind::Lt, lhs, rhs);
}

/// Whether one of `lhs` and `rhs` is the negation of the other.
static bool complementary(const Term *lhs, const Term *rhs) {
  return (lhs->getKind() == TermKind::Not && lhs->getOperands()[0] == rhs) ||
         (rhs->getKind() == TermKind::Not && rhs->getOperands()[0] == lhs);
}

const Term *TermContext::land(const Term *lhs, const Term *rhs) {
  if (lhs->isFalse() || rhs->isTrue() || lhs == rhs)
    return lhs;
  if (rhs->isFalse() || lhs->isTrue())
    return rhs;
  if (complementary(lhs, rhs))
    return boolean(false);
  if (rhs->getId() < lhs->getId())
    std::swap(lhs, rhs);
  Term proto;
  proto.kind = TermKind::And;
  proto.operands = {lhs, rhs};
  return unique(std::move(proto));
}

const Term *TermContext::lor(const Term *lhs, const Term *rhs) {
  if (lhs->isTrue() || rhs->isFalse() || lhs == rhs)
    return lhs;
  if (rhs->isTrue() || lhs->isFalse())
    return rhs;
  if (complementary(lhs, rhs))
    return boolean(true);
  if (rhs->getId() < lhs->getId())
    std::swap(lhs, rhs);
  Term proto;
  proto.kind = TermKind::Or;
  proto.operands = {lhs, rhs};
  return unique(std::move(proto));
}

const Term *TermContext::lnot(const Term *term) {
  if (term->getKind() == TermKind::BoolConst)
    return boolean(!term->getValue());
  if (term->getKind() == TermKind::Not)
    return term->getOperands()[0];
  Term proto;
  proto.kind = TermKind::Not;
  proto.operands = {term};
  return unique(std::move(proto));
}

const Term *
TermContext::substitute(const Term *term,
                        const llvm::DenseMap<const Term *, const Term *> &map) {
  llvm::DenseMap<const Term *, const Term *> done;
  return substitute(term, map, done);
}

const Term *
TermContext::substitute(const Term *term,
                        const llvm::DenseMap<const Term *, const Term *> &map,
                        llvm::DenseMap<const Term *, const Term *> &done) {
  if (auto it = map.find(term); it != map.end())
    return it->second;
  if (term->getOperands().empty())
    return term;
  if (auto it = done.find(term); it != done.end())
    return it->second;
  llvm::SmallVector<const Term *, 3> ops;
  bool changed = false;
  for (const Term *op : term->getOperands()) {
    ops.push_back(substitute(op, map, done));
    changed |= ops.back() != op;
  }
  const Term *result = changed ? rebuild(term, ops) : term;
  done[term] = result;
  return result;
}

/// Whether `goal` holds in every case of the conditions of its
/// if-then-elses, each case simplified with its condition true or false.
/// Conditions are split as if independent of each other: the cases include
/// every feasible one, so a goal true in each is true.
bool TermContext::provedByCases(const Term *goal, unsigned splits) {
  if (goal->isTrue())
    return true;
  if (goal->isFalse() || splits == 0)
    return false;
  // The first condition of an if-then-else, outermost first.
  const Term *condition = nullptr;
  llvm::SmallVector<const Term *> worklist{goal};
  llvm::DenseSet<const Term *> seen;
  while (!worklist.empty() && !condition) {
    const Term *node = worklist.pop_back_val();
    if (!seen.insert(node).second)
      continue;
    if (node->getKind() == TermKind::Ite)
      condition = node->getOperands()[0];
    worklist.append(node->getOperands().rbegin(), node->getOperands().rend());
  }
  if (!condition)
    return false;
  return provedByCases(substitute(goal, {{condition, boolean(true)}}),
                       splits - 1) &&
         provedByCases(substitute(goal, {{condition, boolean(false)}}),
                       splits - 1);
}

const Term *TermContext::rebuild(const Term *term,
                                 llvm::ArrayRef<const Term *> ops) {
  switch (term->getKind()) {
  case TermKind::Add: {
    const Term *sum = cst(term->getValue());
    for (auto [op, coeff] : llvm::zip_equal(ops, term->getCoeffs()))
      sum = add(sum, mul(cst(coeff), op));
    return sum;
  }
  case TermKind::Mul:
    return mul(ops[0], ops[1]);
  case TermKind::Div:
    return div(ops[0], ops[1]);
  case TermKind::Mod:
    return mod(ops[0], ops[1]);
  case TermKind::Min:
    return min(ops[0], ops[1]);
  case TermKind::Max:
    return max(ops[0], ops[1]);
  case TermKind::Ite:
    return ite(ops[0], ops[1], ops[2]);
  case TermKind::Apply:
    return apply(term->getName(), ops);
  case TermKind::Eq:
    return eq(ops[0], ops[1]);
  case TermKind::Le:
    return le(ops[0], ops[1]);
  case TermKind::Lt:
    return lt(ops[0], ops[1]);
  case TermKind::And:
    return land(ops[0], ops[1]);
  case TermKind::Or:
    return lor(ops[0], ops[1]);
  case TermKind::Not:
    return lnot(ops[0]);
  default:
    return term;
  }
}

const Term *TermContext::rewriteBottomUp(
    const Term *term, llvm::function_ref<const Term *(const Term *)> rewrite,
    llvm::DenseMap<const Term *, const Term *> &done) {
  if (term->getOperands().empty())
    return term;
  if (auto it = done.find(term); it != done.end())
    return it->second;
  llvm::DenseMap<const Term *, const Term *> operands;
  for (const Term *op : term->getOperands())
    if (const Term *simpler = rewriteBottomUp(op, rewrite, done); simpler != op)
      operands[op] = simpler;
  const Term *result = rewrite(substitute(term, operands));
  done[term] = result;
  return result;
}

bool TermContext::mentions(const Term *term, const Term *sym) {
  if (term == sym)
    return true;
  return llvm::any_of(term->getOperands(),
                      [&](const Term *op) { return mentions(op, sym); });
}

void TermContext::collectSymbols(const Term *term,
                                 llvm::SmallVectorImpl<const Term *> &symbols) {
  if (term->getKind() == TermKind::Sym) {
    auto pos =
        llvm::lower_bound(symbols, term, [](const Term *a, const Term *b) {
          return a->getId() < b->getId();
        });
    if (pos == symbols.end() || *pos != term)
      symbols.insert(pos, term);
    return;
  }
  for (const Term *op : term->getOperands())
    collectSymbols(op, symbols);
}

void TermContext::collectFunctions(
    const Term *term,
    llvm::SmallVectorImpl<std::pair<std::string, unsigned>> &functions) {
  if (term->getKind() == TermKind::Apply) {
    std::pair<std::string, unsigned> entry(term->getName().str(),
                                           term->getOperands().size());
    if (!llvm::is_contained(functions, entry))
      functions.push_back(entry);
  }
  for (const Term *op : term->getOperands())
    collectFunctions(op, functions);
}

void TermContext::print(const Term *term, llvm::raw_ostream &os) const {
  auto binary = [&](llvm::StringRef op) {
    os << '(';
    print(term->getOperands()[0], os);
    os << ' ' << op << ' ';
    print(term->getOperands()[1], os);
    os << ')';
  };
  switch (term->getKind()) {
  case TermKind::Const:
    os << toString(term->getValue());
    return;
  case TermKind::Sym:
    os << term->getName();
    return;
  case TermKind::Add: {
    bool first = true;
    for (auto [op, coeff] :
         llvm::zip_equal(term->getOperands(), term->getCoeffs())) {
      if (!first)
        os << (coeff < 0 ? " - " : " + ");
      else if (coeff < 0)
        os << '-';
      TermInt magnitude = coeff < 0 ? -coeff : coeff;
      if (magnitude != 1)
        os << toString(magnitude) << '*';
      print(op, os);
      first = false;
    }
    if (term->getValue() > 0)
      os << " + " << toString(term->getValue());
    else if (term->getValue() < 0)
      os << " - " << toString(-term->getValue());
    return;
  }
  case TermKind::Mul:
    return binary("*");
  case TermKind::Div:
    return binary("floordiv");
  case TermKind::Mod:
    return binary("mod");
  case TermKind::Min:
  case TermKind::Max:
  case TermKind::Apply: {
    os << (term->getKind() == TermKind::Min   ? llvm::StringRef("min")
           : term->getKind() == TermKind::Max ? llvm::StringRef("max")
                                              : term->getName())
       << '(';
    llvm::interleaveComma(term->getOperands(), os,
                          [&](const Term *op) { print(op, os); });
    os << ')';
    return;
  }
  case TermKind::Ite:
    os << '(';
    print(term->getOperands()[0], os);
    os << " ? ";
    print(term->getOperands()[1], os);
    os << " : ";
    print(term->getOperands()[2], os);
    os << ')';
    return;
  case TermKind::BoolConst:
    os << (term->getValue() ? "true" : "false");
    return;
  case TermKind::Eq:
    return binary("==");
  case TermKind::Le:
    return binary("<=");
  case TermKind::Lt:
    return binary("<");
  case TermKind::And:
    return binary("&&");
  case TermKind::Or:
    return binary("||");
  case TermKind::Not:
    os << '!';
    print(term->getOperands()[0], os);
    return;
  }
}

std::string TermContext::str(const Term *term) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(term, os);
  return text;
}
