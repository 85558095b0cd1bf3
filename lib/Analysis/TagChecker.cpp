//===- TagChecker.cpp - The checker's driver and loops ----------*- C++ -*-===//
//
// Runs the walk over a kernel and handles control flow: loops by induction
// (docs/invariants.md) and branches by path conditions and joins.
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "tessera/Dialect/Tile/WarpSpecialize.h"
#include "tessera/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

int64_t tessera::analysis::getMaxSharedBytes(StringRef chip) {
  const TargetInfo *target = lookupTarget(chip);
  return target ? target->maxSharedBytes : -1;
}

struct TagCheckSession::Impl {
  TagCheckOptions options;
  TermContext terms;
  SMTBackend backend;
  Impl(MLIRContext *context, const TagCheckOptions &options)
      : options(options),
        backend(context, terms, options.rlimit, options.timeoutSeconds * 1000) {
  }
};

TagCheckSession::TagCheckSession(MLIRContext *context,
                                 const TagCheckOptions &options)
    : impl(std::make_unique<Impl>(context, options)) {}

TagCheckSession::~TagCheckSession() = default;

LogicalResult TagCheckSession::checkKernel(tile::KernelOp kernel,
                                           TagCheckStats &stats) {
  if (kernel.getBody().empty() ||
      kernel.getBody().front().getOps<tile::WarpSpecializeOp>().empty()) {
    Checker checker(kernel, impl->options, stats, impl->terms, impl->backend);
    return checker.run();
  }
  // A warp-specialized kernel is checked as its roles' loops interleaved,
  // with the hand-over protocol's obligations (FuseRoles.cpp), in a copy;
  // what the checker records about ops is then said of the originals.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(kernel.getLoc());
  if (auto module = kernel->getParentOfType<ModuleOp>())
    scratch.get()->setAttrs(module->getAttrDictionary());
  IRMapping toCopy, toFused;
  auto copy = cast<tile::KernelOp>(kernel->clone(toCopy));
  scratch->push_back(copy);
  // Diagnostics name source locations; the copy's ops are not the user's.
  MLIRContext *context = kernel.getContext();
  bool printOps = context->shouldPrintOpOnDiagnostic();
  context->printOpOnDiagnostic(false);
  llvm::scope_exit restore([&] { context->printOpOnDiagnostic(printOps); });
  IRRewriter rewriter(context);
  auto roles = *copy.getBody().front().getOps<tile::WarpSpecializeOp>().begin();
  if (failed(tile::fuseWarpSpecialize(roles, rewriter, tile::FuseMode::Checked,
                                      &toFused)))
    return failure();
  TagCheckStats copyStats;
  Checker checker(copy, impl->options, copyStats, impl->terms, impl->backend);
  LogicalResult result = checker.run();
  DenseMap<Operation *, Operation *> original;
  for (auto [from, to] : toCopy.getOperationMap())
    original[to] = from;
  for (auto [from, to] : toFused.getOperationMap())
    if (Operation *source = original.lookup(from))
      original[to] = source;
  stats.provedStructurally += copyStats.provedStructurally;
  stats.provedBySolver += copyStats.provedBySolver;
  stats.failed += copyStats.failed;
  stats.assumptions += copyStats.assumptions;
  for (auto [op, bits] : copyStats.offsetBits)
    if (Operation *source = original.lookup(op))
      stats.offsetBits.push_back({source, bits});
  return result;
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
  // lb <= iv < ub, within the bounds of lb and ub.
  Interval ivRange = {rangeOf(lb).lo, rangeOf(ub).hi};
  if (ivRange.hi)
    *ivRange.hi -= 1;
  symbolRanges[iv] = ivRange;
  // A loop from a multiple of its constant step visits only multiples.
  if (step->isConst() && step->getValue() > 1 && lb->isConst() &&
      lb->getValue() % step->getValue() == 0)
    symbolMultiples[iv] = step->getValue();
  size_t factsBefore = facts.size();
  facts.push_back({terms.inRange(iv, lb, ub), {}, loop});
  facts.push_back({terms.lt(terms.cst(0), step), {}, loop});
  facts.push_back(
      {terms.eq(terms.mod(terms.sub(iv, lb), step), terms.cst(0)), {}, loop});
  loops.push_back({iv, lb, step});
  size_t loopFacts = facts.size();

  llvm::SetVector<Value> written;
  collectWrittenBuffers(loop.getRegion(), written);
  SmallVector<RingPlan> rings = planRings(loop);
  // The rings' state before the loop, for the entry obligation.
  llvm::DenseMap<Value, BufferState> beforeLoop;
  for (const RingPlan &ring : rings)
    beforeLoop[ring.buffer] = buffers[ring.buffer];

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
    enterLoopSums(loop);
    for (auto &[buffer, state] : buffers) {
      state.hazard = entryHazards.lookup(buffer);
      if (written.contains(buffer))
        state.tag = TagFn();
    }
    // A pipelined ring holds, at the head of iteration %k, what the last
    // stages - 1 iterations copied into it (once the first walk has seen
    // the copy).
    for (const RingPlan &ring : rings)
      if (ringWrites.count(ring.writer)) {
        BufferState head = ringState(ring, loop, iv);
        buffers[ring.buffer].tag = head.tag;
        buffers[ring.buffer].hazard.pending = head.hazard.pending;
      }
    facts.resize(loopFacts);
    // Values carried around the loop are unknown at the head, but for
    // inductions: their value at iteration (iv - lb) / step.
    for (auto [index, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      values.erase(arg);
      if (const Term *closed =
              inductionValue(loop, index, terms.div(terms.sub(iv, lb), step)))
        values[arg] = closed;
    }

    reporting = outerReporting && reportNow;
    if (failed(processBlock(*loop.getBody())))
      return failure();
    // The body must leave each ring as the next iteration expects it.
    if (reporting)
      for (const RingPlan &ring : rings)
        checkRingState(ring, loop, ringState(ring, loop, terms.add(iv, step)),
                       buffers[ring.buffer],
                       "is not maintained by the loop body");

    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    bool stable = true;
    SmallVector<bool> changed;
    for (auto [fn, next] : llvm::zip_equal(carried, yield.getOperands())) {
      TagFn joined = join(fn, tagOf(next), loop);
      // A component that depends on the iteration widens to ⊤.
      for (auto [name, comp] : llvm::zip_equal(joined.names, joined.comps))
        if (comp && terms.mentions(comp, iv)) {
          widened[{loop.getOperation(), name}] = {comp, iv, lb, step};
          comp = nullptr;
        }
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
      // Copies still in flight at the end of the body: a pipelined ring's
      // are described by its invariant; others, whose slot depends on the
      // iteration, may be in any slot at the next head.
      Value current = buffer;
      bool planned = llvm::any_of(
          rings, [&](const RingPlan &ring) { return ring.buffer == current; });
      if (planned)
        end.pending.clear();
      for (PendingCopy &copy : end.pending) {
        if (copy.slot && terms.mentions(copy.slot, iv))
          copy.slot = nullptr;
        copy.carried = true;
      }
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
    // Outside a reporting walk (an enclosing loop's walk toward its own
    // fixpoint) the fixpoint's state is all that is needed: walking it again
    // would compute the same state. So each loop of a nest is walked twice
    // per reporting walk of its parent, not twice per walk: quadratic in
    // the depth, not exponential.
    if (stable && !outerReporting)
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
  loops.pop_back();
  facts.resize(factsBefore);
  // The copies before the loop must leave each ring as its first iteration
  // expects it.
  if (reporting)
    for (const RingPlan &ring : rings)
      checkRingState(ring, loop, ringState(ring, loop, lb),
                     beforeLoop[ring.buffer], "does not hold on loop entry");

  // After the loop: the carried tags, and buffers holding the data of some
  // iteration (⊤ unless rewritten).
  for (auto [result, fn] : llvm::zip_equal(loop.getResults(), carried))
    tags[result] = fn;
  for (Value buffer : written)
    buffers[buffer].tag = TagFn::top(loop);
  // Inductions after the last iteration: max(0, ceil((ub - lb) / step)).
  const Term *trips = terms.max(
      terms.cst(0),
      terms.div(terms.add(terms.sub(ub, lb), terms.sub(step, terms.cst(1))),
                step));
  for (auto [index, result] : llvm::enumerate(loop.getResults()))
    if (const Term *closed = inductionValue(loop, index, trips))
      values[result] = closed;
  exitLoopSums(loop, iv, lb, ub, step);
  return success();
}

/// `%a + d`, `d + %a` or `%a - d` with `d` defined outside the loop: at
/// iteration n the argument is wrap(init + d * n) (init - d * n), exact in
/// two's complement because wrapping commutes with addition.
const Term *Checker::inductionValue(scf::ForOp loop, unsigned index,
                                    const Term *count) {
  BlockArgument arg = loop.getRegionIterArgs()[index];
  unsigned bits = bitsOf(arg.getType());
  if (!arg.getType().isIntOrIndex() || bits < 2)
    return nullptr;
  Value next = loop.getBody()->getTerminator()->getOperand(index);
  const Term *init = valueTerm(loop.getInitArgs()[index]);
  if (next == arg)
    return init;
  Operation *def = next.getDefiningOp();
  if (!def || def->getBlock() != loop.getBody())
    return nullptr;
  const Term *delta = nullptr;
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    Value other = add.getLhs() == arg   ? add.getRhs()
                  : add.getRhs() == arg ? add.getLhs()
                                        : Value();
    if (other && loop.isDefinedOutsideOfLoop(other))
      delta = valueTerm(other);
  } else if (auto sub = dyn_cast<arith::SubIOp>(def)) {
    if (sub.getLhs() == arg && loop.isDefinedOutsideOfLoop(sub.getRhs()))
      delta = terms.sub(terms.cst(0), valueTerm(sub.getRhs()));
  }
  if (!delta)
    return nullptr;
  return wrapSigned(terms.add(init, terms.mul(delta, count)), bits);
}

/// Whether `value` is, at every iteration of `loop`, a function of its
/// induction variable alone: defined outside the loop, the induction
/// variable, or pure arithmetic on such values. A ring's invariant shifts
/// the induction variable only, so only such offsets may describe it.
static bool isInductionFunction(Value value, scf::ForOp loop) {
  if (loop.isDefinedOutsideOfLoop(value) || value == loop.getInductionVar())
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != loop.getBody() || def->getNumRegions() ||
      !isa<arith::ArithDialect>(def->getDialect()) || !isPure(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isInductionFunction(operand, loop);
  });
}

/// Rings the loop fills with exactly one asynchronous copy in its body
/// (software-pipelined rings), and buffers it refills with exactly one
/// tile.store, at the top level of the body, of a tile loaded from a view
/// (the next iteration's tile, staged in registers).
SmallVector<Checker::RingPlan> Checker::planRings(scf::ForOp loop) {
  SmallVector<RingPlan> plans;
  llvm::DenseMap<Value, int> writes;
  loop.getBody()->walk([&](Operation *op) {
    if (auto copy = dyn_cast<tile::CopyOp>(op))
      ++writes[copy.getDest()];
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      ++writes[store.getDest()];
  });
  auto ofInduction = [&](ValueRange offsets) {
    return llvm::all_of(offsets, [&](Value offset) {
      return isInductionFunction(offset, loop);
    });
  };
  int commits = 0;
  for (Operation &op : *loop.getBody())
    commits += isa<tile::AsyncCommitOp>(op);
  for (Operation &op : *loop.getBody()) {
    if (auto store = dyn_cast<tile::StoreOp>(op)) {
      auto shared = dyn_cast<tile::SharedType>(store.getDest().getType());
      // The next iteration's tile: loaded from a view, or gathered from one
      // by loop-invariant rows.
      Operation *load = store.getValue().getDefiningOp();
      bool fromView = false;
      if (auto plain = dyn_cast_if_present<tile::LoadOp>(load))
        fromView = isa<tile::ViewType>(plain.getSource().getType()) &&
                   ofInduction(plain.getIndices());
      else if (auto gather = dyn_cast_if_present<tile::GatherOp>(load))
        fromView = ofInduction(gather.getOffsets()) &&
                   loop.isDefinedOutsideOfLoop(gather.getRows());
      // Buffers copied out hold results, not the next iteration's operands.
      bool copiedOut = llvm::any_of(store.getDest().getUsers(),
                                    llvm::IsaPred<tile::CopyOutOp>);
      if (!shared || shared.isRing() || writes[store.getDest()] != 1 ||
          !fromView || copiedOut || load->getBlock() != loop.getBody())
        continue;
      plans.push_back({store.getDest(), store, 2, 0, commits, true});
      continue;
    }
    auto copy = dyn_cast<tile::CopyOp>(op);
    if (!copy || !copy.getAsync() || !copy.getDest().getType().isRing() ||
        writes[copy.getDest()] != 1 || !ofInduction(copy.getOffsets()) ||
        (copy.getRows() && !ofInduction(copy.getRows())))
      continue;
    // A copy the same iteration waits for (the hand-over of a
    // warp-specialized loop) leaves nothing in flight: the default
    // invariant, nothing known at the head, is the exact one.
    if (llvm::any_of(llvm::make_range(std::next(copy->getIterator()),
                                      loop.getBody()->end()),
                     [](Operation &next) {
                       auto wait = dyn_cast<tile::AsyncWaitOp>(next);
                       return wait && wait.getPending() == 0;
                     }))
      continue;
    RingPlan plan{copy.getDest(), copy, copy.getDest().getType().getStages(), 0,
                  commits};
    for (Operation *next = copy->getNextNode(); next;
         next = next->getNextNode())
      plan.commitsAfterCopy += isa<tile::AsyncCommitOp>(next);
    plans.push_back(plan);
  }
  return plans;
}

/// What `ring` holds at the head of the iteration at `at`: for j = 1 ..
/// stages - 1, the copy of the iteration at `at` - j * step, into its slot,
/// still in flight with the commits made since. A staged buffer holds what
/// the store of the iteration at `at` - step wrote, complete.
BufferState Checker::ringState(const RingPlan &ring, scf::ForOp loop,
                               const Term *at) {
  const auto &[data, slot] = ringWrites.lookup(ring.writer);
  const Term *iv = values.lookup(loop.getInductionVar());
  const Term *step = valueTerm(loop.getStep());
  BufferState state;
  for (int64_t j = ring.stages - 1; j >= 1; --j) {
    llvm::DenseMap<const Term *, const Term *> shift = {
        {iv, terms.sub(at, terms.mul(terms.cst(j), step))}};
    TagFn written = data;
    for (const Term *&comp : written.comps)
      if (comp)
        comp = terms.substitute(comp, shift);
    if (data.known)
      written.known = terms.substitute(data.known, shift);
    if (ring.staged) {
      written.writers = {{terms.boolean(true), ring.writer}};
      state.tag = written;
      continue;
    }
    const Term *writtenSlot = terms.substitute(slot, shift);
    // The most recent copy (j = 1) is merged last, so it wins a slot.
    state.tag = overwriteSlot(state.tag, written,
                              terms.eq(elem(0), writtenSlot), ring.writer);
    state.hazard.pending.push_back(
        {ring.writer, writtenSlot,
         ring.commitsAfterCopy - 1 + int(j - 1) * ring.commitsPerIteration});
  }
  return state;
}

/// Reports at the loop where `actual` differs from what the ring should
/// hold (`expected`): in any slot and element it should know, or in the
/// copies it should have in flight.
void Checker::checkRingState(const RingPlan &ring, scf::ForOp loop,
                             const BufferState &expected,
                             const BufferState &actual, StringRef what) {
  std::string name = sourceNames.get(ring.buffer);
  std::string message = std::string(ring.staged ? "the staging invariant of "
                                                : "the ring invariant of ") +
                        name + " " + what.str();
  for (const PendingCopy &copy : expected.hazard.pending) {
    bool found = llvm::any_of(actual.hazard.pending, [&](auto &other) {
      return other.slot == copy.slot && other.groupsAfter == copy.groupsAfter;
    });
    if (!found) {
      anyFailure = true;
      ++stats.failed;
      InFlightDiagnostic diag = loop.emitError() << message;
      diag.attachNote(loop.getLoc())
          << "counterexample: slot " << terms.str(copy.slot) << " of " << name
          << " should have a copy in flight "
          << (copy.groupsAfter < 0
                  ? std::string("in the open commit group")
                  : "with " + std::to_string(copy.groupsAfter) +
                        " commit groups after it")
          << ", and has none; check the prologue, the commits and the waits";
      return;
    }
  }
  const TagFn &want = expected.tag, &have = actual.tag;
  // Untagged data (no tag.bind on the source) has no invariant to prove.
  if (want.kind != TagFn::Tuple)
    return;
  if (have.kind != TagFn::Tuple || have.name != want.name ||
      have.names != want.names) {
    anyFailure = true;
    ++stats.failed;
    loop.emitError() << message << ": " << name << " does not hold the tiles "
                     << (ring.staged ? "of the previous iteration's store"
                                     : "of the ring's copy");
    return;
  }
  auto shape = cast<tile::SharedType>(ring.buffer.getType()).getShape();
  // A ring's elements are (slot, e0, e1, ...); a staged buffer's (e0, ...).
  SmallVector<const Term *> index;
  size_t before = facts.size();
  if (!ring.staged) {
    index.push_back(terms.freshSym("slot"));
    facts.push_back(
        {terms.inRange(index[0], terms.cst(0), terms.cst(ring.stages)), {}});
  }
  for (auto [d, size] : llvm::enumerate(shape)) {
    index.push_back(terms.freshSym("e" + std::to_string(d)));
    facts.push_back(
        {terms.inRange(index.back(), terms.cst(0), terms.cst(size)), {}});
  }
  TagFn w = atIndices(want, index), h = atIndices(have, index);
  const Term *yes = terms.boolean(true);
  auto orTrue = [&](const Term *t) { return t ? t : yes; };
  const Term *same = yes;
  for (auto [a, b] : llvm::zip_equal(w.comps, h.comps))
    same = terms.land(same, a && b ? terms.eq(a, b) : terms.boolean(a == b));
  const Term *goal =
      terms.implies(orTrue(w.known), terms.land(orTrue(h.known), same));
  SmallVector<const Term *> shown(index.begin(), index.end());
  prove(loop, message, goal, shown,
        [&](InFlightDiagnostic &diag, const Outcome &outcome) {
          Diagnostic &note = diag.attachNote(loop.getLoc());
          if (!ring.staged)
            note << "slot " << valueText(index[0], outcome) << " ";
          note << "should hold " << describe(w, outcome) << " but holds "
               << describe(h, outcome);
        });
  facts.resize(before);
}

/// Branches are walked with their path condition as a fact, from the same
/// state. Assumptions made in a branch hold after it only under its path
/// condition; results are ite of the branches' values, and tags and buffers
/// join.
LogicalResult
Checker::processBranches(Operation *op,
                         ArrayRef<std::pair<Block *, const Term *>> branches) {
  llvm::DenseMap<Value, BufferState> before = buffers;
  SmallVector<llvm::DenseMap<Value, BufferState>, 2> after;
  SmallVector<SmallVector<TagFn, 4>, 2> yieldedTags;
  SmallVector<SmallVector<const Term *, 4>, 2> yieldedValues;
  const Term *afterFacts = terms.boolean(false);
  size_t factsBefore = facts.size();
  for (auto [block, path] : branches) {
    buffers = before;
    facts.push_back({path, {}, op});
    const Term *assumed = path;
    SmallVector<TagFn, 4> tagsOut;
    SmallVector<const Term *, 4> valuesOut;
    if (block) {
      if (failed(processBlock(*block)))
        return failure();
      for (size_t i = factsBefore + 1; i < facts.size(); ++i)
        if (facts[i].bound.empty())
          assumed = terms.land(assumed, facts[i].condition);
      for (Value v : block->getTerminator()->getOperands()) {
        tagsOut.push_back(tagOf(v));
        valuesOut.push_back(bitsOf(v.getType()) ? valueTerm(v) : nullptr);
      }
    }
    facts.resize(factsBefore);
    afterFacts = terms.lor(afterFacts, assumed);
    after.push_back(buffers);
    yieldedTags.push_back(tagsOut);
    yieldedValues.push_back(valuesOut);
  }
  // One of the branches ran, with what it assumed.
  if (!afterFacts->isTrue())
    facts.push_back({afterFacts, {}, op});
  buffers = after.front();
  for (auto &state : llvm::drop_begin(after))
    for (auto &[buffer, other] : state) {
      BufferState &mine = buffers[buffer];
      mine.tag = join(mine.tag, other.tag, op);
      mine.hazard.join(other.hazard);
    }
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    TagFn fn;
    for (auto &branchTags : yieldedTags)
      if (i < branchTags.size())
        fn = join(fn, branchTags[i], op);
    tags[result] = fn;
    if (!bitsOf(result.getType()))
      continue;
    // The last branch is the default; the others are chosen by their path.
    const Term *value = yieldedValues.back()[i];
    for (size_t b = branches.size() - 1; b-- > 0;)
      value = bitsOf(result.getType()) == 1
                  ? terms.ite(branches[b].second, yieldedValues[b][i], value)
                  : select(branches[b].second, yieldedValues[b][i], value);
    values[result] = value;
  }
  SmallVector<Block *, 2> blocks;
  for (auto [block, path] : branches)
    if (block)
      blocks.push_back(block);
  branchSums(op, blocks);
  return success();
}

LogicalResult Checker::processIf(scf::IfOp branch) {
  const Term *cond = boolTerm(branch.getCondition());
  return processBranches(branch, {{branch.thenBlock(), cond},
                                  {branch.elseBlock(), terms.lnot(cond)}});
}

LogicalResult Checker::processSwitch(scf::IndexSwitchOp op) {
  const Term *arg = valueTerm(op.getArg());
  SmallVector<std::pair<Block *, const Term *>> branches;
  const Term *none = terms.boolean(true);
  for (auto [value, region] :
       llvm::zip_equal(op.getCases(), op.getCaseRegions())) {
    const Term *hit = terms.eq(arg, terms.cst(value));
    // A repeated case value never runs its later region.
    branches.push_back({&region.front(), terms.land(none, hit)});
    none = terms.land(none, terms.lnot(hit));
  }
  branches.push_back({&op.getDefaultBlock(), none});
  return processBranches(op, branches);
}

LogicalResult Checker::processExecuteRegion(scf::ExecuteRegionOp op) {
  if (!op.getRegion().hasOneBlock())
    return op.emitError("the tag checker does not model scf.execute_region "
                        "with more than one block; use one block or scf.if");
  Block &block = op.getRegion().front();
  if (failed(processBlock(block)))
    return failure();
  for (auto [result, v] :
       llvm::zip_equal(op.getResults(), block.getTerminator()->getOperands())) {
    tags[result] = tagOf(v);
    if (bitsOf(v.getType()))
      values[result] = valueTerm(v);
  }
  return success();
}
