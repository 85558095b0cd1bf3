//===- SMTQuery.h - Verification conditions as smt IR, solved by Z3 -*- C++
//-*-===//
//
// A query is "facts imply goal". It is built as upstream `smt` dialect IR
// (one smt.solver region: declarations, the facts and the negated goal as
// assertions, a check), which --tag-emit-smt exports as SMT-LIB 2, and the
// same IR is solved in process with Z3's C++ API under a deterministic
// resource limit (and a wall-clock backstop where Z3 ignores that limit).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_SMTQUERY_H
#define TESSERA_ANALYSIS_SMTQUERY_H

#include "tessera/Analysis/Term.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace tessera::analysis {

/// A fact that holds for every value of `bound` (empty: a plain fact).
/// Quantified facts reach the solver instantiated at the goal's symbols.
struct Fact {
  const Term *condition;
  llvm::SmallVector<const Term *, 2> bound;
  /// What states the fact (an assumption, a loop, a branch), for
  /// diagnostics.
  mlir::Operation *origin = nullptr;
};

struct Query {
  llvm::SmallVector<Fact> facts;
  const Term *goal = nullptr;
  /// Terms whose values a counterexample shows (e.g. tag components).
  llvm::SmallVector<const Term *> shown;
  /// More symbols to instantiate quantified facts at, besides the goal's.
  llvm::SmallVector<const Term *> instantiateAt;
  /// The width of the integers each uninterpreted function returns (data
  /// read from an iN view): every application in the query lies in the
  /// signed range of its width.
  const llvm::StringMap<unsigned> *functionBits = nullptr;
};

enum class Verdict { Proved, Refuted, Unknown };

struct Outcome {
  Verdict verdict = Verdict::Unknown;
  /// Values of the free symbols and shown terms in the counterexample.
  llvm::DenseMap<const Term *, TermInt> values;
  /// Why Z3 gave up, for Verdict::Unknown.
  std::string reason;
  /// For a proof with tracked facts: indices of facts that suffice.
  llvm::SmallVector<unsigned> core;
};

class SMTBackend {
public:
  /// One backend (one Z3 context) per compilation. `rlimit` bounds Z3's
  /// work per query deterministically; `timeoutMs` (0: none) bounds its
  /// wall-clock time, a backstop for the reasoning some Z3 versions do not
  /// count against the rlimit (Z3 4.8.12's nonlinear integer arithmetic
  /// with uninterpreted functions), whose queries would otherwise not end.
  SMTBackend(mlir::MLIRContext *context, TermContext &terms, unsigned rlimit,
             unsigned timeoutMs = 0);
  ~SMTBackend();

  /// The query as a module holding one smt.solver.
  mlir::OwningOpRef<mlir::ModuleOp> build(const Query &query);
  /// Decides the query: Proved when the facts imply the goal. `rlimit`
  /// overrides the backend's limit when non-zero; it stops every query Z3
  /// counts the work of, so that such verdicts do not depend on the
  /// machine's speed or load (the timeout stops only the others). With
  /// `trackFacts`, a proof also gives an unsat core of facts; with
  /// `wantModel`, a refutation gives the counterexample's values. Cores and
  /// models come from a Z3 context of their own (so that they do not depend
  /// on earlier queries), which costs tens of milliseconds to create: ask
  /// only when they will be shown.
  Outcome solve(const Query &query, unsigned rlimit = 0,
                bool trackFacts = false, bool wantModel = true);
  /// Writes the query as SMT-LIB 2 text.
  mlir::LogicalResult emitSMTLIB(const Query &query, llvm::raw_ostream &os);

private:
  Outcome solveUncached(const Query &query, unsigned rlimit, bool trackFacts,
                        bool wantModel);

  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace tessera::analysis

#endif // TESSERA_ANALYSIS_SMTQUERY_H
