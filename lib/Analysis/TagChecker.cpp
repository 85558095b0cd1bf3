//===- TagChecker.cpp - The checker's driver and loops ----------*- C++ -*-===//
//
// Runs the walk over a kernel and handles control flow: loops by induction
// (TAGS.md §3) and branches by join.
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

int64_t tessera::analysis::getMaxSharedBytes(StringRef chip) {
  return llvm::StringSwitch<int64_t>(chip)
      .Case("sm_90a", 232448)
      .Case("sm_80", 166912)
      .Cases({"gfx942", "gfx90a"}, 65536)
      .Case("host", 232448)
      .Default(-1);
}

struct TagCheckSession::Impl {
  TagCheckOptions options;
  TermContext terms;
  SMTBackend backend;
  Impl(MLIRContext *context, const TagCheckOptions &options)
      : options(options), backend(context, terms, options.rlimit) {}
};

TagCheckSession::TagCheckSession(MLIRContext *context,
                                 const TagCheckOptions &options)
    : impl(std::make_unique<Impl>(context, options)) {}

TagCheckSession::~TagCheckSession() = default;

LogicalResult TagCheckSession::checkKernel(tile::KernelOp kernel,
                                           TagCheckStats &stats) {
  Checker checker(kernel, impl->options, stats, impl->terms, impl->backend);
  return checker.run();
}

LogicalResult Checker::run() {
  checkSharedCapacity();
  if (failed(processBlock(kernel.getBody().front())))
    return failure();
  return failure(anyFailure);
}

/// The shared buffers an op region writes (copies and stores into them).
static void collectWrittenBuffers(Region &region,
                                  llvm::SetVector<Value> &written) {
  region.walk([&](Operation *op) {
    if (auto copy = dyn_cast<tile::CopyOp>(op))
      written.insert(copy.getDest());
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      if (isa<tile::SharedType>(store.getDest().getType()))
        written.insert(store.getDest());
  });
}

/// A loop is checked once for an arbitrary iteration %k (k-induction with
/// k = 1): %k is a symbol bounded by the loop range; buffers the body writes
/// hold nothing known at the start of an iteration (the default invariant);
/// iteration arguments and hazards reach a fixpoint over the back edge, and
/// a tag that depends on %k widens to ⊤.
LogicalResult Checker::processFor(scf::ForOp loop) {
  const Term *lb = valueTerm(loop.getLowerBound());
  const Term *ub = valueTerm(loop.getUpperBound());
  const Term *step = valueTerm(loop.getStep());
  const Term *iv = terms.freshSym(sourceNames.get(loop.getInductionVar()));
  values[loop.getInductionVar()] = iv;
  size_t factsBefore = facts.size();
  facts.push_back({terms.inRange(iv, lb, ub), {}});
  facts.push_back({terms.lt(terms.cst(0), step), {}});
  facts.push_back(
      {terms.eq(terms.mod(terms.sub(iv, lb), step), terms.cst(0)), {}});
  loops.push_back({iv, lb, step});
  size_t loopFacts = facts.size();

  llvm::SetVector<Value> written;
  collectWrittenBuffers(loop.getRegion(), written);

  SmallVector<TagFn, 4> carried;
  for (Value init : loop.getInitArgs())
    carried.push_back(tagOf(init));
  // Hazards at the loop head: the entry state, then joined with the state
  // at the end of the body.
  llvm::DenseMap<Value, Hazard> entryHazards;
  for (auto &[buffer, state] : buffers)
    entryHazards[buffer] = state.hazard;

  bool outerReporting = reporting;
  bool reportNow = false;
  constexpr int maxPasses = 4;
  for (int pass = 0;; ++pass) {
    for (auto [arg, fn] : llvm::zip_equal(loop.getRegionIterArgs(), carried))
      tags[arg] = fn;
    for (auto &[buffer, state] : buffers) {
      state.hazard = entryHazards.lookup(buffer);
      if (written.contains(buffer))
        state.tag = TagFn();
    }
    facts.resize(loopFacts);
    // Values carried around the loop are unknown at the head.
    for (Value arg : loop.getRegionIterArgs())
      values.erase(arg);

    reporting = outerReporting && reportNow;
    if (failed(processBlock(*loop.getBody())))
      return failure();

    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    bool stable = true;
    SmallVector<bool> changed;
    for (auto [fn, next] : llvm::zip_equal(carried, yield.getOperands())) {
      TagFn joined = join(fn, tagOf(next), loop);
      // A component that depends on the iteration widens to ⊤.
      for (const Term *&comp : joined.comps)
        if (comp && terms.mentions(comp, iv))
          comp = nullptr;
      if (joined.valid && terms.mentions(joined.valid, iv))
        joined.valid = nullptr;
      if (joined.known && terms.mentions(joined.known, iv))
        joined.known = nullptr;
      changed.push_back(!joined.sameAs(fn));
      stable &= !changed.back();
      fn = joined;
    }
    for (auto &[buffer, state] : buffers) {
      Hazard head = entryHazards.lookup(buffer);
      Hazard end = state.hazard;
      end.fromBackEdge = true;
      Hazard joined = head;
      joined.join(end);
      if (!(joined == head)) {
        joined.fromBackEdge = true;
        entryHazards[buffer] = joined;
        stable = false;
      }
    }
    if (reportNow)
      break;
    // Not converged: whatever still changes is ⊤.
    if (!stable && pass + 2 >= maxPasses)
      for (auto [fn, grew] : llvm::zip_equal(carried, changed))
        if (grew && fn.kind == TagFn::Tuple)
          fn = TagFn::top(loop);
    // Walk once more over the fixpoint, this time reporting.
    reportNow = stable || pass + 2 >= maxPasses;
  }
  reporting = outerReporting;

  // After the loop: the carried tags, and buffers holding the data of some
  // iteration (⊤ unless rewritten).
  for (auto [result, fn] : llvm::zip_equal(loop.getResults(), carried))
    tags[result] = fn;
  for (Value buffer : written)
    buffers[buffer].tag = TagFn::top(loop);
  loops.pop_back();
  facts.resize(factsBefore);
  return success();
}

LogicalResult Checker::processIf(scf::IfOp branch) {
  llvm::DenseMap<Value, BufferState> before = buffers;
  if (failed(processBlock(*branch.thenBlock())))
    return failure();
  llvm::DenseMap<Value, BufferState> afterThen = buffers;
  SmallVector<TagFn, 4> thenTags;
  for (Value v : branch.thenYield().getOperands())
    thenTags.push_back(tagOf(v));
  buffers = before;
  SmallVector<TagFn, 4> elseTags(thenTags.size());
  if (branch.elseBlock()) {
    if (failed(processBlock(*branch.elseBlock())))
      return failure();
    for (auto [i, v] : llvm::enumerate(branch.elseYield().getOperands()))
      elseTags[i] = tagOf(v);
  }
  for (auto &[buffer, state] : afterThen) {
    BufferState &other = buffers[buffer];
    other.tag = join(state.tag, other.tag, branch);
    other.hazard.join(state.hazard);
  }
  for (auto [result, thenFn, elseFn] :
       llvm::zip_equal(branch.getResults(), thenTags, elseTags))
    tags[result] = join(thenFn, elseFn, branch);
  return success();
}
