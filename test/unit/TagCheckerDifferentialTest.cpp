//===- TagCheckerDifferentialTest.cpp - The checker against arith folds ---===//
//
// Random small kernels of arith integer ops (i8 .. i64 and index, signed
// and unsigned, divisions, shifts, masks, casts) with tag.assume and one
// tag.assert. The checker's verdict is compared with concrete executions
// decided by MLIR itself: the arguments are replaced by constants and the
// canonicalizer folds every op with arith's own folders. A "proved" verdict
// that some concrete input refutes (assumptions folded to true, assertion to
// false) is unsound and fails the test with the program and the input.
//
// TESSERA_DIFF_PROGRAMS (default 300) and TESSERA_DIFF_SEED (default 1)
// run it longer by hand.
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/TagChecker.h"
#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/InitAllTessera.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <random>

using namespace mlir;
using namespace tessera;

namespace {

struct IntType {
  std::string name;
  unsigned bits;
};

const IntType kTypes[] = {
    {"i8", 8}, {"i16", 16}, {"i32", 32}, {"i64", 64}, {"index", 64}};

/// A random program: kernel arguments, a body over them, and which body
/// lines are assumptions and the assertion.
struct Program {
  std::vector<std::pair<std::string, const IntType *>> args;
  std::vector<std::string> body;

  std::string symbolic() const {
    std::string params;
    for (auto &[name, type] : args)
      params += (params.empty() ? "" : ", ") + name + ": " + type->name;
    return "tile.kernel @k(" + params + ") threads(32) {\n" + lines() + "}\n";
  }
  /// The same body with each argument a constant.
  std::string concrete(llvm::ArrayRef<llvm::APInt> inputs) const {
    std::string defs;
    for (auto [arg, value] : llvm::zip_equal(args, inputs))
      defs += "  " + arg.first + " = arith.constant " +
              llvm::toString(value, 10, /*Signed=*/true) + " : " +
              arg.second->name + "\n";
    return "tile.kernel @k() threads(32) {\n" + defs + lines() + "}\n";
  }

private:
  std::string lines() const {
    std::string text;
    for (const std::string &line : body)
      text += "  " + line + "\n";
    return text + "  tile.return\n";
  }
};

class Generator {
public:
  explicit Generator(unsigned seed) : rng(seed) {}

  Program next() {
    Program program;
    pool.clear();
    counter = 0;
    prog = &program;
    // Two or three arguments of random types.
    unsigned numArgs = 2 + pick(2);
    for (unsigned i = 0; i < numArgs; ++i) {
      const IntType *type = &kTypes[pick(std::size(kTypes))];
      std::string name = "%a" + std::to_string(i);
      program.args.push_back({name, type});
      pool.push_back({name, type});
    }
    unsigned numOps = 2 + pick(6);
    for (unsigned i = 0; i < numOps; ++i)
      emitOp();
    for (unsigned i = 0, e = pick(3); i < e; ++i) {
      std::string cond = comparison(/*againstConstant=*/pick(3) != 0);
      program.body.push_back("tag.assume " + cond + " : i1");
    }
    std::string goal = pick(2) ? comparison(pick(2)) : identity();
    program.body.push_back("tag.assert " + goal + ", \"goal\" : i1");
    return program;
  }

  /// Inputs to try: boundary values and random ones.
  llvm::APInt input(const IntType *type) {
    unsigned bits = type->bits;
    switch (pick(8)) {
    case 0:
      return llvm::APInt(bits, 0);
    case 1:
      return llvm::APInt(bits, 1);
    case 2:
      return llvm::APInt::getAllOnes(bits);
    case 3:
      return llvm::APInt::getSignedMaxValue(bits) - pick(3);
    case 4:
      return llvm::APInt::getSignedMinValue(bits) + pick(3);
    case 5:
      return llvm::APInt(bits, pick(64));
    case 6:
      return -llvm::APInt(bits, pick(64));
    default:
      return llvm::APInt(64, rng()).trunc(bits);
    }
  }

  unsigned pick(unsigned n) {
    return std::uniform_int_distribution<>(0, n - 1)(rng);
  }

private:
  struct PoolValue {
    std::string name;
    const IntType *type;
  };

  std::string fresh() { return "%v" + std::to_string(counter++); }

  PoolValue some(const IntType *type = nullptr) {
    std::vector<PoolValue> choices;
    for (const PoolValue &v : pool)
      if (!type || v.type == type)
        choices.push_back(v);
    if (choices.empty())
      return constant(type);
    return choices[pick(choices.size())];
  }

  PoolValue constant(const IntType *type, std::optional<int64_t> fixed = {}) {
    llvm::APInt value =
        fixed ? llvm::APInt(64, *fixed, true).trunc(type->bits) : input(type);
    std::string name = fresh();
    prog->body.push_back(name + " = arith.constant " +
                         llvm::toString(value, 10, true) + " : " + type->name);
    return {name, type};
  }

  PoolValue define(const std::string &rhs, const IntType *type) {
    std::string name = fresh();
    prog->body.push_back(name + " = " + rhs);
    PoolValue v{name, type};
    pool.push_back(v);
    return v;
  }

  void emitOp() {
    static const char *binary[] = {
        "addi",  "subi",  "muli",       "divsi",     "divui",
        "remsi", "remui", "floordivsi", "ceildivsi", "ceildivui",
        "minsi", "maxsi", "minui",      "maxui",     "shli",
        "shrsi", "shrui", "andi",       "ori",       "xori"};
    PoolValue a = some();
    switch (pick(4)) {
    case 0: { // A cast to another width.
      const IntType *to = &kTypes[pick(std::size(kTypes))];
      if (to == a.type)
        return;
      bool isIndex = a.type->name == "index" || to->name == "index";
      std::string op;
      if (isIndex)
        op = pick(2) ? "index_cast" : "index_castui";
      else if (to->bits > a.type->bits)
        op = pick(2) ? "extsi" : "extui";
      else if (to->bits < a.type->bits)
        op = "trunci";
      else
        return;
      define("arith." + op + " " + a.name + " : " + a.type->name + " to " +
                 to->name,
             to);
      return;
    }
    case 1: { // A select on a comparison.
      std::string cond = comparison(false);
      PoolValue b = some(a.type);
      define("arith.select " + cond + ", " + a.name + ", " + b.name + " : " +
                 a.type->name,
             a.type);
      return;
    }
    default: {
      std::string op = binary[pick(std::size(binary))];
      PoolValue b;
      if (op.rfind("sh", 0) == 0) // mostly in-range shift amounts
        b = constant(a.type, pick(8) ? int64_t(pick(a.type->bits))
                                     : int64_t(a.type->bits + pick(3)));
      else if (op == "andi" && pick(2))
        b = constant(a.type, (int64_t(1) << (1 + pick(7))) - 1);
      else if (pick(2))
        b = constant(a.type);
      else
        b = some(a.type);
      define("arith." + op + " " + a.name + ", " + b.name + " : " +
                 a.type->name,
             a.type);
      return;
    }
    }
  }

  std::string comparison(bool againstConstant) {
    static const char *preds[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                  "sge", "ult", "ule", "ugt", "uge"};
    PoolValue a = some();
    PoolValue b = againstConstant ? constant(a.type) : some(a.type);
    std::string name = fresh();
    prog->body.push_back(name + " = arith.cmpi " + preds[pick(10)] + ", " +
                         a.name + ", " + b.name + " : " + a.type->name);
    return name;
  }

  /// An identity that holds in wrap-around arithmetic, or one that only
  /// holds for unbounded integers: either way the checker must not prove
  /// it where it fails.
  std::string identity() {
    PoolValue x = some();
    const IntType *t = x.type;
    std::string ty = t->name;
    auto def = [&](const std::string &rhs) {
      std::string name = fresh();
      prog->body.push_back(name + " = " + rhs);
      return name;
    };
    auto cmp = [&](const std::string &pred, const std::string &l,
                   const std::string &r) {
      return def("arith.cmpi " + pred + ", " + l + ", " + r + " : " + ty);
    };
    PoolValue c = constant(t, int64_t(1 + pick(100)));
    PoolValue y = some(t);
    switch (pick(8)) {
    case 0: { // (x - y) + y == x: true.
      std::string d = def("arith.subi " + x.name + ", " + y.name + " : " + ty);
      std::string s = def("arith.addi " + d + ", " + y.name + " : " + ty);
      return cmp("eq", s, x.name);
    }
    case 1: // x + c > x: false at the top of the range.
      return cmp("sgt",
                 def("arith.addi " + x.name + ", " + c.name + " : " + ty),
                 x.name);
    case 2: // x remui c < c (unsigned): true.
      return cmp("ult",
                 def("arith.remui " + x.name + ", " + c.name + " : " + ty),
                 c.name);
    case 3: // (x * c) divsi c == x: false when x * c wraps.
      return cmp("eq",
                 def("arith.divsi " +
                     def("arith.muli " + x.name + ", " + c.name + " : " + ty) +
                     ", " + c.name + " : " + ty),
                 x.name);
    case 4: // minui(x, y) <= x (unsigned): true.
      return cmp("ule",
                 def("arith.minui " + x.name + ", " + y.name + " : " + ty),
                 x.name);
    case 5: // x divui c <= x (unsigned): true; signed: false for negatives.
      return cmp(pick(2) ? "ule" : "sle",
                 def("arith.divui " + x.name + ", " + c.name + " : " + ty),
                 x.name);
    case 6: // remsi x, c >= 0: false for negative x.
      return cmp("sge",
                 def("arith.remsi " + x.name + ", " + c.name + " : " + ty),
                 constant(t, 0).name);
    default: { // trunc(ext(x)) == x: true for both extensions.
      if (t->bits == 64)
        return cmp("eq", x.name, x.name);
      std::string ext = pick(2) ? "extsi" : "extui";
      std::string wide =
          def("arith." + ext + " " + x.name + " : " + ty + " to i64");
      std::string back = def("arith.trunci " + wide + " : i64 to " + ty);
      return cmp("eq", back, x.name);
    }
    }
  }

  std::mt19937_64 rng;
  std::vector<PoolValue> pool;
  unsigned counter = 0;
  Program *prog = nullptr;
};

/// The folded truth of the assumptions and the assertion of a concrete
/// program: nullopt where something did not fold (division by zero, a
/// shift out of range: undefined in arith).
struct Folded {
  bool assumptionsHold = true;
  std::optional<bool> assertion;
};

std::optional<Folded> foldConcrete(MLIRContext &context,
                                   const std::string &text) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module) {
    ADD_FAILURE() << "the concrete program does not parse:\n" << text;
    return std::nullopt;
  }
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*module)))
    return std::nullopt;
  Folded folded;
  bool undecided = false;
  auto truth = [&](Value v) -> std::optional<bool> {
    IntegerAttr attr;
    if (!matchPattern(v, m_Constant(&attr)))
      return std::nullopt;
    return attr.getValue().getBoolValue();
  };
  module->walk([&](tag::AssumeOp op) {
    std::optional<bool> t = truth(op.getCondition());
    if (!t)
      undecided = true;
    else if (!*t)
      folded.assumptionsHold = false;
  });
  module->walk(
      [&](tag::AssertOp op) { folded.assertion = truth(op.getCondition()); });
  if (undecided)
    return std::nullopt;
  return folded;
}

unsigned envOr(const char *name, unsigned fallback) {
  const char *value = std::getenv(name);
  unsigned parsed;
  if (!value || llvm::StringRef(value).getAsInteger(10, parsed))
    return fallback;
  return parsed;
}

TEST(TagCheckerDifferentialTest, NoProofIsRefutedByArithFolds) {
  MLIRContext context;
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();

  unsigned programs = envOr("TESSERA_DIFF_PROGRAMS", 300);
  Generator gen(envOr("TESSERA_DIFF_SEED", 1));
  analysis::TagCheckOptions options;
  analysis::TagCheckSession session(&context, options);
  unsigned proved = 0, refuted = 0, samplesRun = 0, unsound = 0;
  for (unsigned p = 0; p < programs; ++p) {
    Program program = gen.next();
    std::string text = program.symbolic();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << text;
    bool ok;
    {
      ScopedDiagnosticHandler quiet(&context,
                                    [](Diagnostic &) { return success(); });
      analysis::TagCheckStats stats;
      tile::KernelOp kernel = *module->getOps<tile::KernelOp>().begin();
      ok = succeeded(session.checkKernel(kernel, stats));
    }
    ok ? ++proved : ++refuted;
    if (!ok)
      continue;
    // A proof: no concrete input may satisfy the assumptions and refute
    // the assertion.
    for (unsigned s = 0; s < 24; ++s) {
      SmallVector<llvm::APInt> inputs;
      for (auto &[name, type] : program.args)
        inputs.push_back(gen.input(type));
      std::optional<Folded> folded =
          foldConcrete(context, program.concrete(inputs));
      if (!folded || !folded->assertion || !folded->assumptionsHold)
        continue;
      ++samplesRun;
      if (*folded->assertion)
        continue;
      ++unsound;
      std::string values;
      for (auto [arg, v] : llvm::zip_equal(program.args, inputs))
        values += " " + arg.first + "=" + llvm::toString(v, 10, true);
      ADD_FAILURE() << "unsound proof; refuted by" << values << "\n" << text;
      break;
    }
  }
  llvm::errs() << llvm::formatv(
      "differential: {0} programs, {1} proved, {2} refuted, {3} concrete "
      "runs of proved programs, {4} unsound\n",
      programs, proved, refuted, samplesRun, unsound);
  EXPECT_EQ(unsound, 0u);
  // The generator must exercise both verdicts, or the test proves nothing.
  EXPECT_GE(proved * 10, programs) << "too few proofs to test";
  EXPECT_GE(refuted * 10, programs) << "too few refutations";
}

} // namespace
