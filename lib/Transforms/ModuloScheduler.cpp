//===- ModuloScheduler.cpp - Modulo scheduling of pipelined K loops ------===//
//
// The loop body as a modulo-scheduling problem (ops with latencies and
// resource occupancies, dependences with iteration distances, rings whose
// depth bounds slot reuse), solved two ways: an iterative greedy scheduler
// (the heuristic's initiation interval) and an exact one with Z3 that finds
// the minimum II and then the fewest stages, and explains failure with an
// unsat core.
//
// Each op's start time is t = stage * II + r with 0 <= r < II; the stage is
// 0 for the copies and their offsets and depth - 1 for the rest, the shape
// the expansion (tile-pipeline) carries out.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/PipelineModel.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <z3++.h>

using namespace mlir;
using namespace tessera;

static const char *const resourceNames[] = {"global-memory", "tensor-core",
                                            "shared-memory", "vector"};

StringRef tessera::getResourceName(Resource resource) {
  return resourceNames[static_cast<unsigned>(resource)];
}

llvm::SetVector<Operation *> tessera::getCopySlice(scf::ForOp loop) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist;
  for (Operation &op : body->without_terminator())
    if (isa<tile::CopyOp>(op)) {
      slice.insert(&op);
      llvm::append_range(worklist, op.getOperands());
    }
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (def && def->getBlock() == body && slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  return slice;
}

ModuloProblem tessera::buildModuloProblem(scf::ForOp loop,
                                          const LatencyModel &model) {
  ModuloProblem problem;
  problem.maxStages = tile::TileDialect::PipelineAttrHelper(loop.getContext())
                          .getAttr(loop)
                          .getStages();
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> early = getCopySlice(loop);
  DenseMap<Operation *, unsigned> index;
  for (Operation &op : body->without_terminator()) {
    ModuloProblem::Node node{&op, 0, {}, early.contains(&op)};
    auto latency =
        tile::TileDialect::LatencyAttrHelper(op.getContext()).getAttr(&op);
    node.latency = latency ? latency.getInt() : estimateLatency(&op, model);
    for (auto [resource, cycles] : estimateOccupancy(&op, model))
      node.occupancy[static_cast<unsigned>(resource)] = cycles;
    index[&op] = problem.nodes.size();
    problem.nodes.push_back(node);
  }

  // The body op that holds `user` (it may sit in a nested region).
  auto nodeOf = [&](Operation *user) -> std::optional<unsigned> {
    Operation *top = body->findAncestorOpInBlock(*user);
    if (!top || !index.count(top))
      return std::nullopt;
    return index[top];
  };
  for (auto [from, node] : llvm::enumerate(problem.nodes))
    for (Value result : node.op->getResults())
      for (Operation *user : result.getUsers())
        if (std::optional<unsigned> to = nodeOf(user))
          problem.edges.push_back({unsigned(from), *to, node.latency, 0});
  // Loop-carried values: yielded in one iteration, read in the next.
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (auto [operand, arg] :
       llvm::zip(yield.getOperands(), loop.getRegionIterArgs())) {
    Operation *def = operand.getDefiningOp();
    if (!def || !index.count(def))
      continue;
    for (Operation *user : arg.getUsers())
      if (std::optional<unsigned> to = nodeOf(user))
        problem.edges.push_back(
            {index[def], *to, problem.nodes[index[def]].latency, 1});
  }

  // Pipelined buffers: a load waits for the copy into its slot; the copy
  // `depth` iterations later reuses the slot once the load is done.
  llvm::SetVector<Value> buffers;
  for (auto [i, node] : llvm::enumerate(problem.nodes)) {
    auto copy = dyn_cast<tile::CopyOp>(node.op);
    if (!copy)
      continue;
    if (buffers.insert(copy.getDest()))
      problem.ringSlotBytes += copy.getDest().getType().getSizeInBytes();
    for (Operation *user : copy.getDest().getUsers())
      if (auto load = dyn_cast<tile::LoadOp>(user))
        if (std::optional<unsigned> reader = nodeOf(load)) {
          problem.edges.push_back({unsigned(i), *reader, node.latency, 0});
          problem.slotReuse.push_back({*reader, unsigned(i)});
        }
  }
  // Other shared memory of the kernel, rings of other pipelined loops at
  // their depth.
  Operation *kernel = loop->getParentOfType<tile::KernelOp>();
  if (!kernel)
    kernel = loop->getParentOp();
  kernel->walk([&](tile::AllocSharedOp alloc) {
    if (buffers.contains(alloc.getResult()))
      return;
    int64_t depth = 1;
    for (Operation *user : alloc->getUsers())
      if (auto other = user->getParentOfType<scf::ForOp>())
        if (auto policy =
                tile::TileDialect::PipelineAttrHelper(other.getContext())
                    .getAttr(other);
            policy && isa<tile::CopyOp>(user))
          depth = std::max(depth, policy.getStages());
    problem.otherSharedBytes += alloc.getType().getSizeInBytes() * depth;
  });
  return problem;
}

int64_t tessera::getResourceBoundII(const ModuloProblem &problem) {
  int64_t bound = 1;
  for (unsigned r = 0; r < kNumResources; ++r) {
    int64_t busy = 0;
    for (const ModuloProblem::Node &node : problem.nodes)
      busy += node.occupancy[r];
    bound = std::max(bound, busy);
  }
  for (const ModuloProblem::Edge &edge : problem.edges)
    if (edge.from == edge.to && edge.distance > 0)
      bound =
          std::max(bound, llvm::divideCeilSigned(edge.latency, edge.distance));
  return bound;
}

int64_t tessera::getTrivialII(const ModuloProblem &problem) {
  // Every op one after the other, each busy for its full latency.
  int64_t total = 1;
  for (const ModuloProblem::Node &node : problem.nodes) {
    total += node.latency;
    for (int64_t cycles : node.occupancy)
      total += cycles;
  }
  return total;
}

static int64_t stageOf(const ModuloProblem::Node &node, int64_t depth) {
  return node.early ? 0 : depth - 1;
}

std::optional<ModuloSchedule>
tessera::scheduleGreedily(const ModuloProblem &problem, int64_t depth) {
  // Iterative modulo scheduling in body order; II grows by ~1.5% per retry.
  int64_t limit = getTrivialII(problem);
  for (int64_t ii = getResourceBoundII(problem); ii <= limit;
       ii += std::max<int64_t>(1, ii / 64)) {
    ModuloSchedule schedule{ii, depth, {}};
    // Busy intervals [start, start + cycles) modulo II, per resource.
    SmallVector<std::pair<int64_t, int64_t>> busy[kNumResources];
    auto fits = [&](const ModuloProblem::Node &node, int64_t t) {
      for (unsigned r = 0; r < kNumResources; ++r) {
        int64_t cycles = node.occupancy[r];
        if (!cycles)
          continue;
        for (auto [start, length] : busy[r]) {
          int64_t gap = ((t - start) % ii + ii) % ii;
          if (gap < length || ii - gap < cycles)
            return false;
        }
      }
      return true;
    };
    bool placed = true;
    for (auto [i, node] : llvm::enumerate(problem.nodes)) {
      int64_t lo = stageOf(node, depth) * ii, t = lo;
      for (const ModuloProblem::Edge &edge : problem.edges)
        if (edge.to == i && edge.distance == 0 && edge.from < i)
          t = std::max(t, schedule.times[edge.from] + edge.latency);
      while (t < lo + ii && !fits(node, t))
        ++t;
      if (t >= lo + ii) {
        placed = false;
        break;
      }
      for (unsigned r = 0; r < kNumResources; ++r)
        if (node.occupancy[r])
          busy[r].push_back({t, node.occupancy[r]});
      schedule.times.push_back(t);
    }
    if (placed && isValidSchedule(problem, schedule))
      return schedule;
  }
  return std::nullopt;
}

bool tessera::isValidSchedule(const ModuloProblem &problem,
                              const ModuloSchedule &schedule) {
  const auto &t = schedule.times;
  for (const ModuloProblem::Edge &edge : problem.edges)
    if (t[edge.to] + edge.distance * schedule.ii < t[edge.from] + edge.latency)
      return false;
  for (auto [reader, copy] : problem.slotReuse)
    if (t[copy] + schedule.depth * schedule.ii <
        t[reader] + problem.nodes[reader].latency)
      return false;
  for (auto [i, node] : llvm::enumerate(problem.nodes))
    if (t[i] < 0 || t[i] / schedule.ii != stageOf(node, schedule.depth))
      return false;
  // The modulo reservation table: no unit serves two ops in the same cycle.
  for (unsigned res = 0; res < kNumResources; ++res) {
    SmallVector<int64_t> busy(schedule.ii, 0);
    for (auto [i, node] : llvm::enumerate(problem.nodes)) {
      if (node.occupancy[res] > schedule.ii)
        return false;
      for (int64_t c = 0; c < node.occupancy[res]; ++c)
        if (busy[(t[i] + c) % schedule.ii]++)
          return false;
    }
  }
  return true;
}

namespace {
/// One Z3 query over a problem, with every constraint named so that an
/// unsat core can say which ones conflict.
class ModuloQuery {
public:
  ModuloQuery(z3::context &ctx, const ModuloProblem &problem,
              const ModuloSolverOptions &options)
      : ctx(ctx), solver(ctx), problem(problem), options(options) {
    z3::params params(ctx);
    params.set("rlimit", options.rlimit);
    // Z3 does not check its rlimit everywhere: a wall-clock backstop.
    params.set("timeout", 60000u);
    params.set("core.minimize", true);
    solver.set(params);
  }

  /// Asserts the problem with `ii` and `depth` (numerals or variables).
  void encode(z3::expr ii, z3::expr depth) {
    SmallVector<z3::expr> r, t;
    for (auto [i, node] : llvm::enumerate(problem.nodes)) {
      r.push_back(ctx.int_const(("r" + std::to_string(i)).c_str()));
      require(r[i] >= 0 && r[i] < ii, "");
      t.push_back(node.early ? r[i] : (depth - 1) * ii + r[i]);
    }
    for (const ModuloProblem::Edge &edge : problem.edges) {
      const ModuloProblem::Node &from = problem.nodes[edge.from];
      const ModuloProblem::Node &to = problem.nodes[edge.to];
      require(t[edge.to] + ctx.int_val(edge.distance) * ii >=
                  t[edge.from] + ctx.int_val(edge.latency),
              llvm::formatv("'{0}' (latency {1}) feeds '{2}'{3}",
                            from.op->getName(), edge.latency, to.op->getName(),
                            edge.distance ? " of the next iteration" : "")
                  .str(),
              from.op);
    }
    for (auto [reader, copy] : problem.slotReuse)
      require(t[copy] + depth * ii >=
                  t[reader] + ctx.int_val(problem.nodes[reader].latency),
              llvm::formatv("'{0}' must finish (latency {1}) before the copy "
                            "`depth` iterations later overwrites its slot",
                            problem.nodes[reader].op->getName(),
                            problem.nodes[reader].latency)
                  .str(),
              problem.nodes[reader].op);
    for (unsigned res = 0; res < kNumResources; ++res) {
      StringRef unit = getResourceName(static_cast<Resource>(res));
      for (auto [i, a] : llvm::enumerate(problem.nodes)) {
        int64_t busyA = a.occupancy[res];
        if (!busyA)
          continue;
        require(ii >= ctx.int_val(busyA),
                llvm::formatv("'{0}' keeps the {1} unit busy {2} cycles",
                              a.op->getName(), unit, busyA)
                    .str(),
                a.op);
        for (unsigned j = i + 1; j < problem.nodes.size(); ++j) {
          int64_t busyB = problem.nodes[j].occupancy[res];
          if (!busyB)
            continue;
          // The busy intervals do not overlap on the circle of length II
          // (no `mod` by the II variable: that would be nonlinear).
          z3::expr gap = r[j] - r[i];
          z3::expr wrapped = z3::ite(gap >= 0, gap, gap + ii);
          require(wrapped >= ctx.int_val(busyA) &&
                      ii - wrapped >= ctx.int_val(busyB),
                  llvm::formatv("'{0}' ({1} cycles) and '{2}' ({3} cycles) "
                                "share the {4} unit",
                                a.op->getName(), busyA,
                                problem.nodes[j].op->getName(), busyB, unit)
                      .str(),
                  a.op);
        }
      }
    }
    require(depth >= 2, "pipelining needs at least 2 stages");
    require(depth <= ctx.int_val(problem.maxStages),
            llvm::formatv("the loop's #tile.pipeline allows at most {0} "
                          "stages",
                          problem.maxStages)
                .str());
    require(depth * ctx.int_val(problem.ringSlotBytes) +
                    ctx.int_val(problem.otherSharedBytes) <=
                ctx.int_val(options.maxSharedBytes),
            llvm::formatv("shared memory: stages x {0} B of rings + {1} B "
                          "else must fit max-shared-bytes = {2}",
                          problem.ringSlotBytes, problem.otherSharedBytes,
                          options.maxSharedBytes)
                .str());
  }

  z3::check_result check(ArrayRef<z3::expr> assumptions = {}) {
    z3::expr_vector vec(ctx);
    for (const z3::expr &e : assumptions)
      vec.push_back(e);
    return solver.check(vec);
  }

  ModuloSchedule schedule(z3::expr ii, int64_t depth) {
    z3::model model = solver.get_model();
    ModuloSchedule result{model.eval(ii, true).get_numeral_int64(), depth, {}};
    for (auto [i, node] : llvm::enumerate(problem.nodes)) {
      z3::expr r = ctx.int_const(("r" + std::to_string(i)).c_str());
      result.times.push_back(stageOf(node, depth) * result.ii +
                             model.eval(r, true).get_numeral_int64());
    }
    return result;
  }

  /// The names of a minimal conflicting subset, with the ops they concern.
  SmallVector<std::pair<std::string, Operation *>> core() {
    SmallVector<std::pair<std::string, Operation *>> result;
    for (const z3::expr &name : solver.unsat_core()) {
      unsigned id = std::stoul(name.decl().name().str().substr(1));
      result.push_back(labels[id]);
    }
    return result;
  }

  std::string reasonUnknown() { return solver.reason_unknown(); }

private:
  void require(const z3::expr &fact, std::string label,
               Operation *op = nullptr) {
    if (label.empty())
      return solver.add(fact);
    solver.add(fact, ("c" + std::to_string(labels.size())).c_str());
    labels.push_back({std::move(label), op});
  }

  z3::context &ctx;
  z3::solver solver;
  const ModuloProblem &problem;
  const ModuloSolverOptions &options;
  SmallVector<std::pair<std::string, Operation *>> labels;
};
} // namespace

ModuloSolverOutcome
tessera::scheduleWithSolver(const ModuloProblem &problem,
                            const ModuloSolverOptions &options) {
  ModuloSolverOutcome outcome;
  z3::context ctx;
  int64_t maxII = options.maxII ? options.maxII : getTrivialII(problem);
  // For each depth, the least II by bisection on a bound assumption; a
  // deeper ring is only taken for a strictly smaller II.
  int64_t lowerBound = getResourceBoundII(problem);
  for (int64_t depth = 2; depth <= problem.maxStages; ++depth) {
    ModuloQuery query(ctx, problem, options);
    z3::expr ii = ctx.int_const("ii");
    query.encode(ii, ctx.int_val(depth));
    int64_t lo = lowerBound,
            hi = outcome.schedule ? std::min(maxII, outcome.schedule->ii - 1)
                                  : maxII;
    while (lo <= hi) {
      int64_t mid = lo + (hi - lo) / 2;
      z3::check_result result = query.check({ii <= ctx.int_val(mid)});
      if (result == z3::unknown) {
        outcome.unknown = query.reasonUnknown();
        return outcome;
      }
      if (result == z3::unsat) {
        lo = mid + 1;
        continue;
      }
      outcome.schedule = query.schedule(ii, depth);
      hi = outcome.schedule->ii - 1;
    }
  }
  if (outcome.schedule)
    return outcome;

  // No schedule: one query at the largest II with the depth free, whose
  // unsat core names the conflicting constraints.
  ModuloQuery query(ctx, problem, options);
  z3::expr depth = ctx.int_const("depth");
  query.encode(ctx.int_val(maxII), depth);
  z3::check_result result = query.check();
  if (result == z3::unknown)
    outcome.unknown = query.reasonUnknown();
  else if (result == z3::unsat)
    outcome.core = query.core();
  return outcome;
}

void tessera::applySchedule(scf::ForOp loop, const ModuloProblem &problem,
                            const ModuloSchedule &schedule) {
  Builder builder(loop.getContext());
  // Kernel order: by offset within the II, then body order.
  SmallVector<std::pair<int64_t, unsigned>> order;
  for (auto [i, t] : llvm::enumerate(schedule.times))
    order.push_back({t % schedule.ii, i});
  llvm::sort(order);
  for (auto [position, entry] : llvm::enumerate(order)) {
    unsigned i = entry.second;
    Operation *op = problem.nodes[i].op;
    MLIRContext *context = loop.getContext();
    tile::TileDialect::StageAttrHelper(context).setAttr(
        op,
        builder.getI64IntegerAttr(stageOf(problem.nodes[i], schedule.depth)));
    tile::TileDialect::OrderAttrHelper(context).setAttr(
        op, builder.getI64IntegerAttr(position));
  }
  auto policy = tile::TileDialect::PipelineAttrHelper(loop.getContext());
  policy.setAttr(
      loop, tile::PipelineAttr::get(loop.getContext(), schedule.depth,
                                    policy.getAttr(loop).getWarpSpecialize()));
  tile::TileDialect::IiAttrHelper(loop.getContext())
      .setAttr(loop, builder.getI64IntegerAttr(schedule.ii));
}
