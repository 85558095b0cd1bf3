//===- Term.h - Symbolic integer terms for the tag checker -----*- C++ -*-===//
//
// Tags and index arithmetic are terms over symbols (program ids, loop
// induction variables, sizes, element indices) and uninterpreted functions
// (integer data loaded from views). Terms are hash-consed and kept in a
// normal form (linear parts as sorted sums), so structural equality is
// pointer equality and many obligations are decided without a solver.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_TERM_H
#define TESSERA_ANALYSIS_TERM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace tessera::analysis {

/// Term constants and coefficients. 128 bits hold every value of a 64-bit
/// integer type, 2^64, and sums and products of two such values; the
/// simplifier checks its arithmetic and does not fold what would overflow.
using TermInt = __int128;
std::string toString(TermInt value);

enum class TermKind {
  // Integers.
  Const, // value
  Sym,   // a free symbol
  Add,   // value + sum(coeffs[i] * operands[i]), operands sorted by id
  Mul,   // operands[0] * operands[1], neither constant
  Div,   // floor division by a positive divisor
  Mod,   // non-negative remainder
  Min,
  Max,
  Ite,   // operands[0] ? operands[1] : operands[2]
  Apply, // uninterpreted function `name` applied to operands
  // Booleans.
  BoolConst, // value != 0
  Eq,
  Le,
  Lt,
  And,
  Or,
  Not,
};

class Term {
public:
  TermKind getKind() const { return kind; }
  TermInt getValue() const { return value; }
  llvm::StringRef getName() const { return name; }
  llvm::ArrayRef<const Term *> getOperands() const { return operands; }
  llvm::ArrayRef<TermInt> getCoeffs() const { return coeffs; }
  /// Creation order: a deterministic order for normal forms and output.
  unsigned getId() const { return id; }
  bool isBool() const {
    return kind >= TermKind::BoolConst ||
           (kind == TermKind::Ite && operands[1]->isBool());
  }
  bool isConst() const { return kind == TermKind::Const; }
  bool isTrue() const { return kind == TermKind::BoolConst && value; }
  bool isFalse() const { return kind == TermKind::BoolConst && !value; }

private:
  friend class TermContext;
  TermKind kind;
  TermInt value = 0;
  std::string name;
  llvm::SmallVector<const Term *, 3> operands;
  llvm::SmallVector<TermInt, 3> coeffs;
  unsigned id = 0;
};

/// Owns terms. Every constructor simplifies, so equal normal forms are the
/// same object.
class TermContext {
public:
  TermContext();
  ~TermContext();
  TermContext(const TermContext &) = delete;
  TermContext &operator=(const TermContext &) = delete;

  const Term *cst(TermInt value);
  /// A fresh symbol; `name` is what diagnostics show.
  const Term *freshSym(llvm::StringRef name);
  const Term *add(const Term *lhs, const Term *rhs);
  const Term *sub(const Term *lhs, const Term *rhs);
  const Term *neg(const Term *term);
  const Term *mul(const Term *lhs, const Term *rhs);
  const Term *div(const Term *lhs, const Term *rhs);
  const Term *mod(const Term *lhs, const Term *rhs);
  const Term *min(const Term *lhs, const Term *rhs);
  const Term *max(const Term *lhs, const Term *rhs);
  const Term *ite(const Term *cond, const Term *thenTerm, const Term *elseTerm);
  const Term *apply(llvm::StringRef function,
                    llvm::ArrayRef<const Term *> args);

  const Term *boolean(bool value);
  const Term *eq(const Term *lhs, const Term *rhs);
  const Term *le(const Term *lhs, const Term *rhs);
  const Term *lt(const Term *lhs, const Term *rhs);
  const Term *land(const Term *lhs, const Term *rhs);
  const Term *lor(const Term *lhs, const Term *rhs);
  const Term *lnot(const Term *term);
  const Term *implies(const Term *lhs, const Term *rhs) {
    return lor(lnot(lhs), rhs);
  }
  /// lo <= term < hi.
  const Term *inRange(const Term *term, const Term *lo, const Term *hi) {
    return land(le(lo, term), lt(term, hi));
  }

  /// Replaces symbols by terms, re-simplifying on the way up.
  const Term *substitute(const Term *term,
                         const llvm::DenseMap<const Term *, const Term *> &map);
  /// Whether `goal` is true in every combination of truth values of the
  /// conditions of its if-then-elses (at most `splits` of them): a sound
  /// proof that treats the conditions as independent.
  bool provedByCases(const Term *goal, unsigned splits = 4);
  /// `term` rebuilt bottom-up: each node, its operands rewritten first and
  /// renormalized, replaced by `rewrite` of it; `done` memoizes nodes.
  const Term *
  rewriteBottomUp(const Term *term,
                  llvm::function_ref<const Term *(const Term *)> rewrite,
                  llvm::DenseMap<const Term *, const Term *> &done);
  /// True when `sym` occurs in `term`.
  bool mentions(const Term *term, const Term *sym);
  /// The symbols of `term`, in creation order, without duplicates.
  void collectSymbols(const Term *term,
                      llvm::SmallVectorImpl<const Term *> &symbols);
  /// The uninterpreted functions applied in `term` with their arities.
  void collectFunctions(
      const Term *term,
      llvm::SmallVectorImpl<std::pair<std::string, unsigned>> &functions);

  void print(const Term *term, llvm::raw_ostream &os) const;
  std::string str(const Term *term) const;

private:
  struct Hash {
    size_t operator()(const Term *term) const;
  };
  struct Equal {
    bool operator()(const Term *lhs, const Term *rhs) const;
  };
  const Term *unique(Term &&proto);
  /// Splits a term into (constant, [(atom, coefficient)]).
  void linearize(const Term *term, TermInt scale, TermInt &constant,
                 std::vector<std::pair<const Term *, TermInt>> &atoms);
  const Term *buildSum(TermInt constant,
                       std::vector<std::pair<const Term *, TermInt>> atoms);
  const Term *substitute(const Term *term,
                         const llvm::DenseMap<const Term *, const Term *> &map,
                         llvm::DenseMap<const Term *, const Term *> &done);
  /// `term` with `ops` for its operands.
  const Term *rebuild(const Term *term, llvm::ArrayRef<const Term *> ops);
  const Term *compare(TermKind kind, const Term *lhs, const Term *rhs);
  bool modsDiffer(const Term *difference);
  /// Checked arithmetic on constants: an overflow sets `overflowed`, and
  /// the public operation then returns a fresh symbol instead (an
  /// abstraction: nothing is proved about it that does not hold for every
  /// value).
  TermInt checked(bool overflow, TermInt result);
  TermInt checkedAdd(TermInt a, TermInt b);
  TermInt checkedMul(TermInt a, TermInt b);
  const Term *orOverflow(const Term *term);
  bool overflowed = false;

  llvm::SpecificBumpPtrAllocator<Term> allocator;
  std::unordered_set<const Term *, Hash, Equal> terms;
  unsigned nextId = 0;
};

} // namespace tessera::analysis

#endif // TESSERA_ANALYSIS_TERM_H
