//===- TermTest.cpp - The checker's term simplifier -------------*- C++ -*-===//

#include "tessera/Analysis/Term.h"

#include "gtest/gtest.h"

using namespace tessera::analysis;

namespace {
class TermTest : public ::testing::Test {
protected:
  TermContext t;
  const Term *k = t.freshSym("k");
  const Term *i = t.freshSym("i");
};

TEST_F(TermTest, LinearFormsAreCanonical) {
  // (k + 64) + i and i + (64 + k) are the same object.
  const Term *a = t.add(t.add(k, t.cst(64)), i);
  const Term *b = t.add(i, t.add(t.cst(64), k));
  EXPECT_EQ(a, b);
  EXPECT_EQ(t.sub(a, a), t.cst(0));
  EXPECT_EQ(t.mul(t.cst(2), t.add(k, k)), t.mul(k, t.cst(4)));
  EXPECT_EQ(t.str(t.sub(t.add(k, t.cst(3)), t.mul(t.cst(2), i))),
            "k - 2*i + 3");
}

TEST_F(TermTest, ComparisonsFoldWhenTheDifferenceIsConstant) {
  const Term *base = t.add(k, i);
  EXPECT_TRUE(t.eq(t.add(base, t.cst(1)), t.add(t.cst(1), base))->isTrue());
  EXPECT_TRUE(t.eq(t.add(base, t.cst(1)), base)->isFalse());
  EXPECT_TRUE(t.lt(base, t.add(base, t.cst(1)))->isTrue());
  EXPECT_TRUE(t.le(t.add(base, t.cst(2)), base)->isFalse());
  // x == y and y == x are one term.
  EXPECT_EQ(t.eq(k, i), t.eq(i, k));
  EXPECT_FALSE(t.eq(k, i)->isTrue());
}

TEST_F(TermTest, DivisionAndRemainderByConstants) {
  EXPECT_EQ(t.div(t.cst(-7), t.cst(2)), t.cst(-4)); // floor, not truncation
  EXPECT_EQ(t.mod(t.cst(-7), t.cst(2)), t.cst(1));  // non-negative
  // (128 k + 64) floordiv 64 = 2 k + 1; (64 k + 3) mod 64 = 3.
  EXPECT_EQ(t.div(t.add(t.mul(t.cst(128), k), t.cst(64)), t.cst(64)),
            t.add(t.mul(t.cst(2), k), t.cst(1)));
  EXPECT_EQ(t.mod(t.add(t.mul(t.cst(64), k), t.cst(3)), t.cst(64)), t.cst(3));
  // Multiples of the divisor drop out of a remainder that stays symbolic.
  EXPECT_EQ(t.mod(t.add(t.mul(t.cst(64), k), i), t.cst(64)),
            t.mod(i, t.cst(64)));
  // A quotient that is not exact stays a term.
  EXPECT_EQ(t.div(t.add(k, i), t.cst(2))->getKind(), TermKind::Div);
}

TEST_F(TermTest, QuotientsShedMultiplesOfTheDivisor) {
  const Term *c64 = t.cst(64), *c3 = t.cst(3);
  // (k - 64) floordiv 64 = (k floordiv 64) - 1: the previous tile's slot.
  EXPECT_EQ(t.div(t.sub(k, c64), c64), t.sub(t.div(k, c64), t.cst(1)));
  // (128 i + k + 70) floordiv 64 = 2 i + 1 + (k + 6) floordiv 64.
  EXPECT_EQ(t.div(t.add(t.mul(t.cst(128), i), t.add(k, t.cst(70))), c64),
            t.add(t.add(t.mul(t.cst(2), i), t.cst(1)),
                  t.div(t.add(k, t.cst(6)), c64)));
  // -1 leaves floor(-1 / 3) = -1 and remainder 2.
  EXPECT_EQ(t.div(t.sub(k, t.cst(1)), c3),
            t.sub(t.div(t.add(k, t.cst(2)), c3), t.cst(1)));
  // Nothing to shed: the quotient stays as written.
  EXPECT_EQ(t.div(t.add(k, t.cst(2)), c3)->getKind(), TermKind::Div);
}

TEST_F(TermTest, RemaindersOfOneValueAStepApartDiffer) {
  const Term *c3 = t.cst(3), *slot = t.div(k, t.cst(64));
  const Term *s0 = t.mod(slot, c3), *s1 = t.mod(t.add(slot, t.cst(1)), c3),
             *s2 = t.mod(t.add(slot, t.cst(2)), c3);
  EXPECT_TRUE(t.eq(s0, s1)->isFalse());
  EXPECT_TRUE(t.eq(s2, s0)->isFalse());
  // (x + 3) mod 3 is x mod 3.
  EXPECT_EQ(t.mod(t.add(slot, c3), c3), s0);
  // s1 - s0 is 1 or -2: either may be asked, neither refuted, and
  // s1 - s0 == 2 can be refuted.
  EXPECT_FALSE(t.eq(t.sub(s1, s0), t.cst(1))->isFalse());
  EXPECT_FALSE(t.eq(t.sub(s1, s0), t.cst(-2))->isFalse());
  EXPECT_TRUE(t.eq(t.sub(s1, s0), t.cst(2))->isFalse());
  // Different values, or different moduli: not decided.
  EXPECT_FALSE(t.eq(s0, t.mod(i, c3))->isFalse());
  EXPECT_FALSE(t.eq(s0, t.mod(t.add(slot, t.cst(1)), t.cst(4)))->isFalse());
}

TEST_F(TermTest, CasesOfConditionsProveRingSlotGoals) {
  // The slot written a stage ahead holds the tile of k + 128, the one
  // written a stage before k + 64: a read from a slot that is one of the
  // two sees the same tile whichever way the slot is chosen.
  const Term *slot = t.freshSym("slot"), *quotient = t.div(k, t.cst(64));
  auto at = [&](int64_t ahead) {
    return t.eq(t.mod(t.add(quotient, t.cst(ahead)), t.cst(3)), slot);
  };
  auto tile = [&](int64_t offset) { return t.add(k, t.cst(offset)); };
  const Term *written = t.ite(at(2), tile(128), tile(64));
  const Term *read = t.ite(at(2), tile(128), t.ite(at(1), tile(64), tile(0)));
  const Term *either = t.lor(at(2), at(1));
  EXPECT_TRUE(t.provedByCases(t.implies(either, t.eq(written, read))));
  // Without the restriction to those two slots it is false (slot 0 reads
  // tile k, written holds k + 64), and not proved.
  EXPECT_FALSE(t.provedByCases(t.eq(written, read)));
  // A goal that needs more splits than allowed is not proved either.
  EXPECT_FALSE(t.provedByCases(t.implies(either, t.eq(written, read)), 1));
  // p or not p; p and not p.
  EXPECT_TRUE(t.lor(at(0), t.lnot(at(0)))->isTrue());
  EXPECT_TRUE(t.land(t.lnot(at(0)), at(0))->isFalse());
}

TEST_F(TermTest, QuotientAndRemainderRecombine) {
  // 2 (x floordiv 2) + x mod 2 = x, also scaled and inside a larger sum:
  // what unpacking a byte of two nibbles does to a column index.
  const Term *two = t.cst(2), *x = t.add(k, i);
  EXPECT_EQ(t.add(t.mul(two, t.div(x, two)), t.mod(x, two)), x);
  const Term *scaled = t.add(t.mul(t.cst(6), t.div(k, t.cst(2))),
                             t.add(t.mul(t.cst(3), t.mod(k, t.cst(2))), i));
  EXPECT_EQ(scaled, t.add(t.mul(t.cst(3), k), i));
  // The remainder drops multiples of the divisor from its dividend
  // ((128 k + i) mod 2 is i mod 2); the quotient of the same dividend
  // still recombines with it: 2 ((128 k + i) floordiv 2) + i mod 2.
  const Term *column = t.add(t.mul(t.cst(128), k), i);
  EXPECT_EQ(t.mod(column, two), t.mod(i, two));
  EXPECT_EQ(t.add(t.mul(two, t.div(column, two)), t.mod(i, two)), column);
  // Not the same divisor or not the matching coefficient: no change; nor a
  // remainder of a different dividend.
  EXPECT_NE(t.add(t.mul(two, t.div(k, t.cst(4))), t.mod(k, t.cst(4))), k);
  EXPECT_NE(t.add(t.div(k, two), t.mod(k, two)), k);
  EXPECT_NE(t.add(t.mul(two, t.div(column, two)), t.mod(k, two)), column);
}

TEST_F(TermTest, SubstitutionIsSimultaneousAndResimplifies) {
  const Term *e0 = t.freshSym("e0"), *e1 = t.freshSym("e1");
  const Term *swap = t.sub(e0, e1);
  llvm::DenseMap<const Term *, const Term *> map = {{e0, e1}, {e1, e0}};
  EXPECT_EQ(t.substitute(swap, map), t.sub(e1, e0));
  llvm::DenseMap<const Term *, const Term *> same = {{e0, k}, {e1, k}};
  EXPECT_EQ(t.substitute(swap, same), t.cst(0));
}

TEST_F(TermTest, BooleansAndSelection) {
  const Term *c = t.lt(k, i);
  EXPECT_EQ(t.land(c, t.boolean(true)), c);
  EXPECT_TRUE(t.land(c, t.boolean(false))->isFalse());
  EXPECT_EQ(t.lnot(t.lnot(c)), c);
  EXPECT_EQ(t.ite(t.boolean(true), k, i), k);
  EXPECT_EQ(t.ite(c, k, k), k);
  EXPECT_TRUE(t.mentions(t.ite(c, t.cst(1), t.cst(0)), i));
}

TEST_F(TermTest, UninterpretedFunctionsAreUniqued) {
  const Term *a = t.apply("ids", {t.add(k, t.cst(1))});
  const Term *b = t.apply("ids", {t.add(t.cst(1), k)});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, t.apply("ids", {k}));
  llvm::SmallVector<std::pair<std::string, unsigned>> functions;
  t.collectFunctions(t.add(a, t.apply("experts", {k, i})), functions);
  ASSERT_EQ(functions.size(), 2u);
}

TEST_F(TermTest, SymbolsWithTheSameNameAreDistinct) {
  const Term *other = t.freshSym("k");
  EXPECT_NE(other, k);
  EXPECT_FALSE(t.eq(other, k)->isTrue());
}
} // namespace
