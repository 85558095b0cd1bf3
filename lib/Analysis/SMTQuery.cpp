//===- SMTQuery.cpp - Verification conditions as smt IR, solved by Z3 -----===//

#include "tessera/Analysis/SMTQuery.h"

#include "mlir/Dialect/SMT/IR/SMTOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Target/SMTLIB/ExportSMTLIB.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>
#include <map>
#include <vector>

#include <z3++.h>

using namespace mlir;
using namespace tessera::analysis;

namespace {
/// Marks the assertion of query fact i (for unsat cores).
constexpr llvm::StringLiteral kFactAttr = "tessera.fact";

/// SMT-LIB symbols: letters, digits and '_', not starting with a digit.
std::string smtName(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_') ? c : '_';
  while (!out.empty() && out.front() == '_')
    out.erase(out.begin());
  if (out.empty() || llvm::isDigit(out.front()))
    out = "v" + out;
  return out;
}

/// Translates terms into smt ops inside the solver region.
class TermToSMT {
public:
  /// Functions are declared once, at the start of `solverBlock`, and shared
  /// with the translators of quantifier bodies.
  TermToSMT(OpBuilder &builder, TermContext &terms, Block *solverBlock,
            llvm::StringMap<Value> &functions)
      : builder(builder), terms(terms), loc(builder.getUnknownLoc()),
        solverBlock(solverBlock), functions(functions) {}

  Value translate(const Term *term) {
    if (auto it = cache.find(term); it != cache.end())
      return it->second;
    Value value = translateUncached(term);
    cache[term] = value;
    return value;
  }

  void declare(const Term *sym) {
    if (cache.count(sym))
      return;
    auto decl = smt::DeclareFunOp::create(
        builder, loc, smt::IntType::get(builder.getContext()),
        builder.getStringAttr(smtName(sym->getName())));
    cache[sym] = decl;
  }

  llvm::DenseMap<const Term *, Value> cache;

private:
  Value intConst(TermInt value) {
    uint64_t words[2] = {uint64_t(value), uint64_t(value >> 64)};
    llvm::APInt wide(128, words);
    // The narrowest signed width that holds the value.
    unsigned bits = std::max(64u, wide.getSignificantBits());
    return smt::IntConstantOp::create(
        builder, loc,
        builder.getIntegerAttr(builder.getIntegerType(bits), wide.trunc(bits)));
  }

  Value function(llvm::StringRef name, unsigned arity) {
    std::string key = name.str() + "/" + std::to_string(arity);
    if (auto it = functions.find(key); it != functions.end())
      return it->second;
    MLIRContext *ctx = builder.getContext();
    SmallVector<Type> domain(arity, smt::IntType::get(ctx));
    auto type = smt::SMTFuncType::get(ctx, domain, smt::IntType::get(ctx));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(solverBlock);
    Value decl = smt::DeclareFunOp::create(
        builder, loc, type, builder.getStringAttr(smtName(name)));
    functions[key] = decl;
    return decl;
  }

  Value translateUncached(const Term *term) {
    SmallVector<Value> ops;
    for (const Term *op : term->getOperands())
      ops.push_back(translate(op));
    switch (term->getKind()) {
    case TermKind::Const:
      return intConst(term->getValue());
    case TermKind::Sym:
      declare(term);
      return cache[term];
    case TermKind::Add: {
      SmallVector<Value> summands;
      for (auto [op, coeff] : llvm::zip_equal(ops, term->getCoeffs()))
        summands.push_back(
            coeff == 1 ? op
                       : smt::IntMulOp::create(builder, loc,
                                               ValueRange{intConst(coeff), op})
                             .getResult());
      if (term->getValue() != 0)
        summands.push_back(intConst(term->getValue()));
      if (summands.size() == 1)
        return summands.front();
      return smt::IntAddOp::create(builder, loc, summands);
    }
    case TermKind::Mul:
      return smt::IntMulOp::create(builder, loc, ops);
    case TermKind::Div:
      return smt::IntDivOp::create(builder, loc, ops[0], ops[1]);
    case TermKind::Mod:
      return smt::IntModOp::create(builder, loc, ops[0], ops[1]);
    case TermKind::Min:
    case TermKind::Max: {
      Value le = smt::IntCmpOp::create(builder, loc, smt::IntPredicate::le,
                                       ops[0], ops[1]);
      bool isMin = term->getKind() == TermKind::Min;
      return smt::IteOp::create(builder, loc, le, isMin ? ops[0] : ops[1],
                                isMin ? ops[1] : ops[0]);
    }
    case TermKind::Ite:
      return smt::IteOp::create(builder, loc, ops[0], ops[1], ops[2]);
    case TermKind::Apply:
      return smt::ApplyFuncOp::create(
          builder, loc, function(term->getName(), ops.size()), ops);
    case TermKind::BoolConst:
      return smt::BoolConstantOp::create(builder, loc, term->getValue() != 0);
    case TermKind::Eq:
      return smt::EqOp::create(builder, loc, ops[0], ops[1]);
    case TermKind::Le:
      return smt::IntCmpOp::create(builder, loc, smt::IntPredicate::le, ops[0],
                                   ops[1]);
    case TermKind::Lt:
      return smt::IntCmpOp::create(builder, loc, smt::IntPredicate::lt, ops[0],
                                   ops[1]);
    case TermKind::And:
      return smt::AndOp::create(builder, loc, ops);
    case TermKind::Or:
      return smt::OrOp::create(builder, loc, ops);
    case TermKind::Not:
      return smt::NotOp::create(builder, loc, ops[0]);
    }
    llvm_unreachable("unknown term kind");
  }

  OpBuilder &builder;
  TermContext &terms;
  Location loc;
  Block *solverBlock;
  llvm::StringMap<Value> &functions;
};

/// Interprets smt ops with Z3's C++ API.
class SMTToZ3 {
public:
  explicit SMTToZ3(z3::context &ctx) : ctx(ctx) {}

  z3::expr get(Value value) { return values.at(value); }

  /// Translates the ops of `block`; returns the yielded value, if any.
  std::optional<z3::expr> run(Block &block, z3::solver &solver,
                              z3::check_result &result) {
    for (Operation &op : block) {
      if (auto yield = dyn_cast<smt::YieldOp>(op))
        return yield.getValues().empty()
                   ? std::nullopt
                   : std::optional<z3::expr>(get(yield.getValues()[0]));
      if (auto assertOp = dyn_cast<smt::AssertOp>(op)) {
        auto index = assertOp->getAttrOfType<IntegerAttr>(kFactAttr);
        if (trackFacts && index) {
          std::string name = "fact!" + std::to_string(index.getInt()) + "!" +
                             std::to_string(nextFresh++);
          solver.add(get(assertOp.getInput()), name.c_str());
        } else {
          solver.add(get(assertOp.getInput()));
        }
        continue;
      }
      if (isa<smt::CheckOp>(op)) {
        result = solver.check();
        continue;
      }
      values.try_emplace(op.getResult(0), translate(op));
    }
    return std::nullopt;
  }

  llvm::DenseMap<Value, z3::expr> values;
  bool trackFacts = false;

private:
  z3::expr translate(Operation &op) {
    auto operands = [&]() {
      z3::expr_vector vec(ctx);
      for (Value v : op.getOperands())
        vec.push_back(get(v));
      return vec;
    };
    return llvm::TypeSwitch<Operation *, z3::expr>(&op)
        .Case([&](smt::DeclareFunOp decl) -> z3::expr {
          std::string name = decl.getNamePrefix().value_or("f").str() + "!" +
                             std::to_string(nextFresh++);
          if (auto fn = dyn_cast<smt::SMTFuncType>(decl.getType())) {
            z3::sort_vector domain(ctx);
            for (size_t i = 0; i < fn.getDomainTypes().size(); ++i)
              domain.push_back(ctx.int_sort());
            functions.try_emplace(
                decl.getResult(),
                z3::function(name.c_str(), domain, ctx.int_sort()));
            return ctx.bool_val(true); // placeholder, never read as a value
          }
          return ctx.int_const(name.c_str());
        })
        .Case([&](smt::IntConstantOp c) {
          const llvm::APInt &value = c.getValue();
          if (value.getSignificantBits() <= 64)
            return ctx.int_val(value.getSExtValue());
          return ctx.int_val(llvm::toString(value, 10, true).c_str());
        })
        .Case([&](smt::BoolConstantOp c) { return ctx.bool_val(c.getValue()); })
        .Case([&](smt::IntAddOp) { return z3::sum(operands()); })
        .Case([&](smt::IntMulOp) {
          z3::expr_vector ops = operands();
          z3::expr product = ops[0];
          for (unsigned i = 1; i < ops.size(); ++i)
            product = product * ops[i];
          return product;
        })
        .Case(
            [&](smt::IntSubOp o) { return get(o.getLhs()) - get(o.getRhs()); })
        .Case(
            [&](smt::IntDivOp o) { return get(o.getLhs()) / get(o.getRhs()); })
        .Case([&](smt::IntModOp o) {
          return z3::mod(get(o.getLhs()), get(o.getRhs()));
        })
        .Case([&](smt::IntCmpOp o) {
          z3::expr lhs = get(o.getLhs()), rhs = get(o.getRhs());
          switch (o.getPred()) {
          case smt::IntPredicate::lt:
            return lhs < rhs;
          case smt::IntPredicate::le:
            return lhs <= rhs;
          case smt::IntPredicate::gt:
            return lhs > rhs;
          case smt::IntPredicate::ge:
            return lhs >= rhs;
          }
          llvm_unreachable("unknown predicate");
        })
        .Case([&](smt::EqOp) {
          z3::expr_vector ops = operands();
          return ops[0] == ops[1];
        })
        .Case([&](smt::IteOp o) {
          return z3::ite(get(o.getCond()), get(o.getThenValue()),
                         get(o.getElseValue()));
        })
        .Case([&](smt::NotOp o) { return !get(o.getInput()); })
        .Case([&](smt::AndOp) { return z3::mk_and(operands()); })
        .Case([&](smt::OrOp) { return z3::mk_or(operands()); })
        .Case([&](smt::ApplyFuncOp o) {
          z3::expr_vector args(ctx);
          for (Value v : o.getArgs())
            args.push_back(get(v));
          return functions.at(o.getFunc())(args);
        })
        .Default([&](Operation *) -> z3::expr {
          llvm_unreachable("smt op outside the subset Tessera emits");
        });
  }

  z3::context &ctx;
  llvm::DenseMap<Value, z3::func_decl> functions;
  unsigned nextFresh = 0;
};
/// A Z3 integer numeral as a TermInt, if it is one and fits.
std::optional<TermInt> parseNumeral(const z3::expr &numeral) {
  if (!numeral.is_numeral())
    return std::nullopt;
  std::string text = numeral.get_decimal_string(0);
  bool negative = !text.empty() && text.front() == '-';
  TermInt value = 0;
  for (char c : llvm::StringRef(text).drop_front(negative ? 1 : 0)) {
    if (!llvm::isDigit(c) || __builtin_mul_overflow(value, 10, &value) ||
        __builtin_sub_overflow(value, c - '0', &value))
      return std::nullopt;
  }
  if (!negative && __builtin_sub_overflow(0, value, &value))
    return std::nullopt;
  return value;
}
} // namespace

struct SMTBackend::Impl {
  MLIRContext *context;
  TermContext &terms;
  unsigned rlimit, timeoutMs;
  /// Created on the first query: a context costs tens of milliseconds.
  std::optional<z3::context> z3;
  /// Term -> smt value of the last build, for reading the model.
  llvm::DenseMap<const Term *, Value> lastValues;
  /// Outcomes of the queries asked so far. Terms are unique, so a query is
  /// its terms' addresses (with the options that shape its outcome); loops
  /// and ring slots ask the same question many times.
  std::map<std::vector<uintptr_t>, Outcome> outcomes;

  Impl(MLIRContext *context, TermContext &terms, unsigned rlimit,
       unsigned timeoutMs)
      : context(context), terms(terms), rlimit(rlimit), timeoutMs(timeoutMs) {}
};

SMTBackend::SMTBackend(MLIRContext *context, TermContext &terms,
                       unsigned rlimit, unsigned timeoutMs)
    : impl(std::make_unique<Impl>(context, terms, rlimit, timeoutMs)) {
  context->getOrLoadDialect<smt::SMTDialect>();
}

SMTBackend::~SMTBackend() = default;

OwningOpRef<ModuleOp> SMTBackend::build(const Query &query) {
  MLIRContext *ctx = impl->context;
  OpBuilder builder(ctx);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto solver = smt::SolverOp::create(builder, loc, TypeRange{}, ValueRange{});
  Block *body = builder.createBlock(&solver.getBodyRegion());
  builder.setInsertionPointToEnd(body);

  llvm::StringMap<Value> functions;
  TermToSMT translator(builder, impl->terms, body, functions);
  TermContext &terms = impl->terms;
  // Facts quantified over tile elements are instantiated at the goal's
  // symbols: a weaker but sound set of ground facts. Z3's quantifier engine
  // would find proofs in more cases but not the same model on every run.
  SmallVector<const Term *> goalSymbols, ground;
  SmallVector<unsigned> groundIndex;
  terms.collectSymbols(query.goal, goalSymbols);
  for (const Term *extra : query.instantiateAt)
    terms.collectSymbols(extra, goalSymbols);
  for (auto [index, fact] : llvm::enumerate(query.facts)) {
    if (fact.bound.empty()) {
      ground.push_back(fact.condition);
      groundIndex.push_back(index);
      continue;
    }
    SmallVector<size_t> choice(fact.bound.size(), 0);
    for (unsigned count = 0; !goalSymbols.empty() && count < 256; ++count) {
      llvm::DenseMap<const Term *, const Term *> map;
      for (auto [sym, index] : llvm::zip_equal(fact.bound, choice))
        map[sym] = goalSymbols[index];
      ground.push_back(terms.substitute(fact.condition, map));
      groundIndex.push_back(index);
      size_t digit = 0;
      while (digit < choice.size() && ++choice[digit] == goalSymbols.size())
        choice[digit++] = 0;
      if (digit == choice.size())
        break;
    }
  }
  // Declare the free symbols first, in creation order, for stable output.
  SmallVector<const Term *> symbols;
  for (const Term *fact : ground)
    terms.collectSymbols(fact, symbols);
  terms.collectSymbols(query.goal, symbols);
  for (const Term *shown : query.shown)
    terms.collectSymbols(shown, symbols);
  for (const Term *sym : symbols)
    translator.declare(sym);
  for (auto [fact, index] : llvm::zip_equal(ground, groundIndex))
    if (!fact->isTrue())
      smt::AssertOp::create(builder, loc, translator.translate(fact))
          ->setAttr(kFactAttr, builder.getI32IntegerAttr(index));
  // Integers read from an iN view lie in iN's signed range.
  if (query.functionBits) {
    SmallVector<const Term *> applies;
    llvm::DenseSet<const Term *> seen;
    std::function<void(const Term *)> collect = [&](const Term *term) {
      if (!seen.insert(term).second)
        return;
      if (term->getKind() == TermKind::Apply)
        applies.push_back(term);
      for (const Term *operand : term->getOperands())
        collect(operand);
    };
    for (const Term *fact : ground)
      collect(fact);
    collect(query.goal);
    for (const Term *shown : query.shown)
      collect(shown);
    for (const Term *apply : applies) {
      auto it = query.functionBits->find(apply->getName());
      if (it == query.functionBits->end() || it->second == 0 || it->second > 64)
        continue;
      TermInt half = TermInt(1) << (it->second - 1);
      const Term *range =
          terms.inRange(apply, terms.cst(-half), terms.cst(half));
      if (!range->isTrue())
        smt::AssertOp::create(builder, loc, translator.translate(range));
    }
  }
  Value goal = translator.translate(query.goal);
  smt::AssertOp::create(builder, loc, smt::NotOp::create(builder, loc, goal));
  for (const Term *shown : query.shown)
    translator.translate(shown);

  auto check = smt::CheckOp::create(builder, loc, TypeRange{});
  for (Region *region : {&check.getSatRegion(), &check.getUnknownRegion(),
                         &check.getUnsatRegion()}) {
    OpBuilder::InsertionGuard guard(builder);
    builder.createBlock(region);
    smt::YieldOp::create(builder, loc, ValueRange{});
  }
  smt::YieldOp::create(builder, loc, ValueRange{});
  impl->lastValues = translator.cache;
  return module;
}

/// Solves the query `solverOp` holds in `z3`; `terms` maps the terms whose
/// values a counterexample shows to their smt values.
static Outcome solveIn(z3::context &z3, smt::SolverOp solverOp, unsigned rlimit,
                       unsigned timeoutMs, bool trackFacts,
                       const llvm::DenseMap<const Term *, Value> &terms) {
  z3::solver solver(z3);
  z3::params params(z3);
  params.set("rlimit", rlimit);
  if (timeoutMs)
    params.set("timeout", timeoutMs);
  solver.set(params);
  SMTToZ3 interpreter(z3);
  interpreter.trackFacts = trackFacts;
  z3::check_result result = z3::unknown;
  interpreter.run(solverOp.getBodyRegion().front(), solver, result);

  Outcome outcome;
  if (result == z3::unsat) {
    outcome.verdict = Verdict::Proved;
    if (trackFacts) {
      z3::expr_vector core = solver.unsat_core();
      for (unsigned i = 0; i < core.size(); ++i) {
        // fact!<index>!<n>
        std::string text = core[i].decl().name().str();
        llvm::StringRef name(text);
        unsigned index;
        if (!name.split('!').second.split('!').first.getAsInteger(10, index) &&
            !llvm::is_contained(outcome.core, index))
          outcome.core.push_back(index);
      }
      llvm::sort(outcome.core);
    }
    return outcome;
  }
  if (result == z3::unknown) {
    outcome.verdict = Verdict::Unknown;
    outcome.reason = solver.reason_unknown();
    return outcome;
  }
  outcome.verdict = Verdict::Refuted;
  z3::model model = solver.get_model();
  // Evaluate in a fixed order, not the map's (which follows addresses).
  SmallVector<std::pair<const Term *, Value>> entries(terms.begin(),
                                                      terms.end());
  llvm::sort(entries, [](const auto &a, const auto &b) {
    return a.first->getId() < b.first->getId();
  });
  for (auto &[term, value] : entries) {
    if (term->isBool() || !interpreter.values.count(value))
      continue;
    z3::expr evaluated = model.eval(interpreter.get(value), true);
    if (std::optional<TermInt> number = parseNumeral(evaluated))
      outcome.values[term] = *number;
  }
  return outcome;
}

/// What identifies `query` among those of one backend.
static std::vector<uintptr_t> queryKey(const Query &query, unsigned rlimit,
                                       bool trackFacts, bool wantModel) {
  auto address = [](const void *pointer) {
    return reinterpret_cast<uintptr_t>(pointer);
  };
  std::vector<uintptr_t> key{rlimit,
                             trackFacts,
                             wantModel,
                             address(query.functionBits),
                             address(query.goal),
                             query.facts.size(),
                             query.shown.size()};
  for (const Fact &fact : query.facts) {
    key.push_back(address(fact.condition));
    key.push_back(fact.bound.size());
    for (const Term *bound : fact.bound)
      key.push_back(address(bound));
  }
  for (const Term *term : query.shown)
    key.push_back(address(term));
  for (const Term *term : query.instantiateAt)
    key.push_back(address(term));
  return key;
}

Outcome SMTBackend::solve(const Query &query, unsigned rlimit, bool trackFacts,
                          bool wantModel) {
  rlimit = rlimit ? rlimit : impl->rlimit;
  std::vector<uintptr_t> key = queryKey(query, rlimit, trackFacts, wantModel);
  if (auto it = impl->outcomes.find(key); it != impl->outcomes.end())
    return it->second;
  Outcome outcome = solveUncached(query, rlimit, trackFacts, wantModel);
  impl->outcomes.emplace(std::move(key), outcome);
  return outcome;
}

Outcome SMTBackend::solveUncached(const Query &query, unsigned rlimit,
                                  bool trackFacts, bool wantModel) {
  OwningOpRef<ModuleOp> module = build(query);
  auto solverOp = cast<smt::SolverOp>(module->getBody()->front());
  if (!impl->z3)
    impl->z3.emplace();
  Outcome outcome = solveIn(*impl->z3, solverOp, rlimit, impl->timeoutMs,
                            trackFacts, impl->lastValues);
  // A verdict is the same in any context, but a model or an unsat core can
  // depend on the terms earlier queries left in the shared one: those come
  // from a context of their own (slow to create: only when asked for).
  if ((wantModel && outcome.verdict == Verdict::Refuted) ||
      (trackFacts && outcome.verdict == Verdict::Proved)) {
    z3::context fresh;
    outcome = solveIn(fresh, solverOp, rlimit, impl->timeoutMs, trackFacts,
                      impl->lastValues);
  }
  return outcome;
}

LogicalResult SMTBackend::emitSMTLIB(const Query &query,
                                     llvm::raw_ostream &os) {
  OwningOpRef<ModuleOp> module = build(query);
  smt::SMTEmissionOptions emission;
  emission.inlineSingleUseValues = true;
  return smt::exportSMTLIB(module.get(), os, emission);
}
