//===- TagMutantBench.cpp - The tag checker's kill rate on mutants --------===//
//
// Makes every mutant of the given kernels that one operator yields, checks
// each with the tag checker and reports how many it rejects (killed), how
// many of those with a counterexample, and which survive. The unmutated
// kernels must pass: a failure there is a false alarm. With --pipeline the
// kernels go through tile-pipeline first and the mutants are of its output.
//
// Operators: a view access's offset moved by one tile, two offsets swapped,
// an offset replaced by another index used as an offset (a head, an expert,
// a block), a barrier removed, an async wait allowing one more group in
// flight, a commit removed, a loop starting one step late, stepping twice
// as far or ending one step early, an MMA's accumulator reset to zero.
// Swapping or substituting equal constants is skipped (equivalent mutants).
//
// Usage: tessera-bench-mutants [--pipeline] [--list] file.mlir...
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/TagChecker.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/InitAllTessera.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace tessera;

static llvm::cl::list<std::string> inputs(llvm::cl::Positional,
                                          llvm::cl::desc("<file.mlir>..."),
                                          llvm::cl::OneOrMore);
static llvm::cl::opt<bool> pipeline("pipeline",
                                    llvm::cl::desc("Mutate tile-pipeline's "
                                                   "output"));
static llvm::cl::opt<bool> list("list",
                                llvm::cl::desc("Print every mutant's verdict"));

namespace {

/// One mutant: which op (by walk order in its kernel) and what to do to it.
struct Mutant {
  std::string label;
  unsigned opIndex;
  std::function<void(Operation *, SmallVectorImpl<Operation *> &)> apply;
};

/// The view offsets of an access and the extent of its tile along each
/// view dimension (1 for the leading dimensions the tile drops).
struct Access {
  unsigned firstOffset, numOffsets;
  SmallVector<int64_t> extents;
};

std::optional<Access> accessOf(Operation *op) {
  auto make = [](OperandRange offsets, unsigned first,
                 ArrayRef<int64_t> tile) -> std::optional<Access> {
    Access access{first, unsigned(offsets.size()), {}};
    size_t dropped = offsets.size() - std::min(offsets.size(), tile.size());
    for (size_t d = 0; d < offsets.size(); ++d)
      access.extents.push_back(d < dropped ? 1 : tile[d - dropped]);
    return access;
  };
  auto first = [&](OperandRange range) {
    return range.empty() ? 0u : range.getBeginOperandIndex();
  };
  if (auto copy = dyn_cast<tile::CopyOp>(op))
    return make(copy.getOffsets(), first(copy.getOffsets()),
                copy.getDest().getType().getShape());
  if (auto load = dyn_cast<tile::LoadOp>(op);
      load && isa<tile::ViewType>(load.getSource().getType()))
    return make(load.getIndices(), first(load.getIndices()),
                load.getResult().getType().getShape());
  if (auto store = dyn_cast<tile::StoreOp>(op);
      store && isa<tile::ViewType>(store.getDest().getType()))
    return make(store.getIndices(), first(store.getIndices()),
                store.getValue().getType().getShape());
  if (auto gather = dyn_cast<tile::GatherOp>(op))
    return make(gather.getOffsets(), first(gather.getOffsets()),
                gather.getResult().getType().getShape());
  if (auto add = dyn_cast<tile::AtomicAddOp>(op))
    return make(add.getOffsets(), first(add.getOffsets()),
                add.getValue().getType().getShape());
  return std::nullopt;
}

std::string where(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << "@";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << loc.getLine() << ":" << loc.getColumn();
  else
    os << "?";
  return text;
}

/// The value of an index computed from constants by addi, subi and muli.
std::optional<APInt> constantOf(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  std::optional<APInt> lhs = constantOf(def->getOperand(0));
  std::optional<APInt> rhs = constantOf(def->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *lhs + *rhs;
  if (isa<arith::SubIOp>(def))
    return *lhs - *rhs;
  return *lhs * *rhs;
}

/// Two offsets that are the same value, or equal constants (an equivalent
/// mutant would swap or substitute one for the other).
bool sameValue(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<APInt> x = constantOf(a), y = constantOf(b);
  return x && y && *x == *y;
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Every mutant of `kernel` the operators make.
std::vector<Mutant> mutantsOf(tile::KernelOp kernel) {
  std::vector<Mutant> mutants;
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) { ops.push_back(op); });
  DominanceInfo dominance(kernel);
  // Index values used as offsets somewhere: the candidates an offset may be
  // confused with (heads, experts, blocks), found again in a clone by the
  // op and operand that use them.
  SmallVector<std::pair<unsigned, unsigned>> offsetUses;
  SmallVector<Value> offsetValues;
  for (auto [index, op] : llvm::enumerate(ops))
    if (std::optional<Access> access = accessOf(op))
      for (unsigned i = 0; i < access->numOffsets; ++i) {
        Value value = op->getOperand(access->firstOffset + i);
        if (!llvm::is_contained(offsetValues, value)) {
          offsetValues.push_back(value);
          offsetUses.push_back({unsigned(index), access->firstOffset + i});
        }
      }

  for (auto [index, op] : llvm::enumerate(ops)) {
    unsigned at = index;
    std::string site = where(op);
    if (std::optional<Access> access = accessOf(op)) {
      for (unsigned d = 0; d < access->numOffsets; ++d) {
        unsigned operand = access->firstOffset + d;
        int64_t extent = access->extents[d];
        mutants.push_back({site + " offset " + std::to_string(d) + " + " +
                               std::to_string(extent),
                           at, [operand, extent](Operation *op, auto &) {
                             OpBuilder b(op);
                             Value shifted = arith::AddIOp::create(
                                 b, op->getLoc(), op->getOperand(operand),
                                 indexConstant(b, op->getLoc(), extent));
                             op->setOperand(operand, shifted);
                           }});
        if (d + 1 < access->numOffsets &&
            !sameValue(op->getOperand(operand), op->getOperand(operand + 1)))
          mutants.push_back({site + " offsets " + std::to_string(d) + " and " +
                                 std::to_string(d + 1) + " swapped",
                             at, [operand](Operation *op, auto &) {
                               Value lhs = op->getOperand(operand);
                               op->setOperand(operand,
                                              op->getOperand(operand + 1));
                               op->setOperand(operand + 1, lhs);
                             }});
        unsigned alternatives = 0;
        for (auto [value, use] : llvm::zip_equal(offsetValues, offsetUses)) {
          if (sameValue(value, op->getOperand(operand)) ||
              !dominance.properlyDominates(value, op) || alternatives == 3)
            continue;
          ++alternatives;
          auto [useOp, useOperand] = use;
          mutants.push_back(
              {site + " offset " + std::to_string(d) + " := offset of " +
                   where(ops[useOp]),
               at, [operand, useOp, useOperand](Operation *op, auto &ops) {
                 op->setOperand(operand, ops[useOp]->getOperand(useOperand));
               }});
        }
      }
    }
    if (isa<tile::BarrierOp, tile::AsyncCommitOp>(op))
      mutants.push_back(
          {site + " removed", at, [](Operation *op, auto &) { op->erase(); }});
    if (auto wait = dyn_cast<tile::AsyncWaitOp>(op))
      mutants.push_back({site + " pending + 1", at, [](Operation *op, auto &) {
                           auto wait = cast<tile::AsyncWaitOp>(op);
                           wait.setPending(wait.getPending() + 1);
                         }});
    if (isa<scf::ForOp>(op)) {
      // Operand `bound` (lower, upper, step) of the loop becomes itself
      // plus `sign` steps.
      auto moveBound = [&](const char *what, unsigned bound, int sign) {
        mutants.push_back(
            {site + what, at, [bound, sign](Operation *op, auto &) {
               auto loop = cast<scf::ForOp>(op);
               OpBuilder b(op);
               Value old = op->getOperand(bound), step = loop.getStep();
               Value moved =
                   sign > 0 ? arith::AddIOp::create(b, op->getLoc(), old, step)
                                  .getResult()
                            : arith::SubIOp::create(b, op->getLoc(), old, step)
                                  .getResult();
               op->setOperand(bound, moved);
             }});
      };
      moveBound(" starts one step late", 0, 1);
      moveBound(" ends one step early", 1, -1);
      moveBound(" steps twice as far", 2, 1);
    }
    if (auto mma = dyn_cast<tile::MmaOp>(op);
        mma && !mma.getAcc().getDefiningOp<arith::ConstantOp>())
      mutants.push_back(
          {site + " accumulator reset to zero", at, [](Operation *op, auto &) {
             auto mma = cast<tile::MmaOp>(op);
             OpBuilder b(op);
             auto type = mma.getAcc().getType();
             Value zero = arith::ConstantOp::create(b, op->getLoc(), type,
                                                    b.getZeroAttr(type));
             mma.getAccMutable().assign(zero);
           }});
  }
  return mutants;
}

struct Verdict {
  bool failed = false, counterexample = false;
};

Verdict check(MLIRContext &context, tile::KernelOp kernel) {
  Verdict verdict;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    for (Diagnostic &note : diag.getNotes())
      if (StringRef(note.str()).starts_with("counterexample:"))
        verdict.counterexample = true;
  });
  analysis::TagCheckOptions options;
  analysis::TagCheckSession session(&context, options);
  analysis::TagCheckStats stats;
  verdict.failed = failed(session.checkKernel(kernel, stats));
  return verdict;
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "tag-check mutant kill rate\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllPasses();
  MLIRContext context(registry);

  unsigned total = 0, invalid = 0, killed = 0, withCounterexample = 0,
           falseAlarms = 0;
  llvm::outs() << llvm::format("%-44s %7s %7s %7s %7s %7s\n", "kernel",
                               "mutants", "invalid", "killed", "w/ cex",
                               "survive");
  for (const std::string &file : inputs) {
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(file, ParserConfig(&context));
    if (!module)
      return 1;
    if (pipeline) {
      PassManager pm(&context);
      pm.addPass(createTilePipeline());
      if (failed(pm.run(*module)))
        return 1;
    }
    SmallVector<tile::KernelOp> kernels(module->getOps<tile::KernelOp>());
    for (tile::KernelOp kernel : kernels) {
      std::string name =
          (llvm::sys::path::filename(file) + ":@" + kernel.getSymName()).str();
      if (check(context, kernel).failed) {
        ++falseAlarms;
        llvm::outs() << name << ": FALSE ALARM on the unmutated kernel\n";
        continue;
      }
      unsigned kInvalid = 0, kKilled = 0, kCex = 0;
      std::vector<std::string> survivors;
      std::vector<Mutant> mutants = mutantsOf(kernel);
      for (const Mutant &mutant : mutants) {
        OwningOpRef<ModuleOp> clone = cast<ModuleOp>((*module)->clone());
        auto copy = clone->lookupSymbol<tile::KernelOp>(kernel.getSymName());
        SmallVector<Operation *> ops;
        copy.walk([&](Operation *op) { ops.push_back(op); });
        mutant.apply(ops[mutant.opIndex], ops);
        {
          ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {});
          if (failed(verify(copy))) {
            ++kInvalid;
            continue;
          }
        }
        Verdict verdict = check(context, copy);
        kKilled += verdict.failed;
        kCex += verdict.failed && verdict.counterexample;
        if (!verdict.failed)
          survivors.push_back(mutant.label);
        if (list)
          llvm::outs() << "  " << (verdict.failed ? "killed  " : "SURVIVED")
                       << (verdict.counterexample ? " (cex) " : "       ")
                       << mutant.label << "\n";
      }
      llvm::outs() << llvm::format("%-44s %7zu %7u %7u %7u %7zu\n",
                                   name.c_str(), mutants.size(), kInvalid,
                                   kKilled, kCex, survivors.size());
      if (!list)
        for (const std::string &label : survivors)
          llvm::outs() << "  survived: " << label << "\n";
      total += mutants.size() - kInvalid;
      invalid += kInvalid;
      killed += kKilled;
      withCounterexample += kCex;
    }
  }
  llvm::outs() << llvm::format(
      "total: %u valid mutants (%u invalid), %u killed (%.1f%%), %u with a "
      "counterexample (%.1f%%); %u false alarms\n",
      total, invalid, killed, total ? 100.0 * killed / total : 0.0,
      withCounterexample, total ? 100.0 * withCounterexample / total : 0.0,
      falseAlarms);
  return falseAlarms ? 1 : 0;
}
