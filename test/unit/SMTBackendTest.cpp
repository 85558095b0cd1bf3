//===- SMTBackendTest.cpp - Limits on the checker's Z3 queries ---*- C++
//-*-===//
//
// Z3 4.8.12 (Debian 12's) does not count the work of its nonlinear integer
// reasoning against the rlimit when the query also applies an
// uninterpreted function: factoring a semiprime read through one never
// stops at the limit. The backend's wall-clock backstop makes such a query
// undecided ("timeout") instead of endless; the rlimit still decides the
// queries whose work Z3 counts.
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/SMTQuery.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <chrono>

using namespace tessera::analysis;

namespace {

/// x > 1, y > 1, x * y = f(0), f(0) = 1000000007 * 1000000009 imply x = 1?
/// (No: Z3 would have to find a factor.)
Query factoring(TermContext &t) {
  const Term *x = t.freshSym("x"), *y = t.freshSym("y");
  const Term *n = t.apply("f", {t.cst(0)});
  Query query;
  query.facts.push_back({t.lt(t.cst(1), x)});
  query.facts.push_back({t.lt(t.cst(1), y)});
  query.facts.push_back({t.eq(t.mul(x, y), n)});
  query.facts.push_back({t.eq(n, t.cst(TermInt(1000000007) * 1000000009))});
  query.goal = t.eq(x, t.cst(1));
  return query;
}

TEST(SMTBackend, TheBackstopStopsQueriesThatIgnoreTheRlimit) {
  mlir::MLIRContext context;
  TermContext terms;
  SMTBackend backend(&context, terms, /*rlimit=*/4000000, /*timeoutMs=*/1000);
  auto start = std::chrono::steady_clock::now();
  Outcome outcome = backend.solve(factoring(terms));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // Undecided within seconds: at the backstop ("timeout") with Z3 4.8.12,
  // at the rlimit with a Z3 that counts this work.
  EXPECT_EQ(outcome.verdict, Verdict::Unknown) << outcome.reason;
  EXPECT_LT(seconds, 20.0);
}

TEST(SMTBackend, TheRlimitStillDecidesWhatItCounts) {
  // A linear query stopped by a tiny rlimit is "canceled", not a timeout,
  // whatever the backstop.
  mlir::MLIRContext context;
  TermContext terms;
  SMTBackend backend(&context, terms, /*rlimit=*/1, /*timeoutMs=*/60000);
  const Term *x = terms.freshSym("x"), *y = terms.freshSym("y");
  Query query;
  query.facts.push_back({terms.lt(x, y)});
  query.facts.push_back({terms.lt(y, terms.add(x, terms.cst(2)))});
  query.goal = terms.eq(y, terms.add(x, terms.cst(1)));
  Outcome outcome = backend.solve(query);
  ASSERT_EQ(outcome.verdict, Verdict::Unknown);
  EXPECT_NE(outcome.reason, "timeout");
}

} // namespace
