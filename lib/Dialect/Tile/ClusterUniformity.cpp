//===- ClusterUniformity.cpp - Values every program of a cluster shares ---===//
//
// A multicast copy is issued by every program of a cluster for one window,
// and cluster mbarriers count every program's arrivals: both are correct
// only if the cluster's programs compute the same window, and run their
// loops over the same range. `assertClusterUniform` states that as
// `tag.assert`s tag-check proves or refutes: for every program `peer` of
// the launched grid in this program's cluster (a loop over the grid, whose
// induction variable tag-check takes as arbitrary), each value recomputed
// with the peer's program ids equals this program's.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/WarpSpecialize.h"

#include "tessera/Dialect/Tag/TagDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace {
/// Recomputes values with other program ids.
class PeerSlice {
public:
  PeerSlice(ArrayRef<Value> uniform) : uniform(uniform) {}

  /// `value` with each program id along `peer`'s dimensions replaced, or
  /// null where it depends on them through what cannot be recomputed (a
  /// read of memory, a loop-carried value).
  Value recompute(OpBuilder &b, Value value, IRMapping &peer) {
    if (Value known = peer.lookupOrNull(value))
      return known;
    if (!dependsOnProgram(value))
      return value;
    Operation *def = value.getDefiningOp();
    if (!def || !isMemoryEffectFree(def) || def->getNumRegions())
      return {};
    for (Value operand : def->getOperands())
      if (!recompute(b, operand, peer))
        return {};
    Operation *clone = b.clone(*def, peer);
    return clone->getResult(cast<OpResult>(value).getResultNumber());
  }

private:
  /// Whether `value` depends on a program id (or is a block argument other
  /// than the kernel's and the loops' in `uniform`, which may differ
  /// between programs).
  bool dependsOnProgram(Value value) {
    auto [it, inserted] = depends.try_emplace(value, true);
    if (!inserted)
      return it->second;
    bool result;
    if (auto arg = dyn_cast<BlockArgument>(value))
      result = !(llvm::is_contained(uniform, value) ||
                 isa<KernelOp>(arg.getOwner()->getParentOp()));
    else if (value.getDefiningOp<ProgramIdOp>())
      result = true;
    else
      result = llvm::any_of(value.getDefiningOp()->getOperands(),
                            [&](Value v) { return dependsOnProgram(v); });
    return depends[value] = result;
  }

  ArrayRef<Value> uniform;
  llvm::DenseMap<Value, bool> depends;
};
} // namespace

LogicalResult
tile::assertClusterUniform(OpBuilder &b, Location loc, KernelOp kernel,
                           ArrayRef<Value> uniform,
                           ArrayRef<std::pair<Value, std::string>> values) {
  std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster();
  if (!cluster || values.empty())
    return success();
  // A loop over each dimension the cluster spans.
  SmallVector<Value, 3> peers;
  OpBuilder::InsertionGuard guard(b);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value same;
  for (unsigned d = 0; d < 3; ++d) {
    int64_t size = d < cluster->size() ? (*cluster)[d] : 1;
    auto dim = static_cast<Dim>(d);
    Value id = ProgramIdOp::create(b, loc, b.getIndexType(), dim);
    if (size == 1) {
      peers.push_back(id);
      continue;
    }
    Value count = NumProgramsOp::create(b, loc, b.getIndexType(), dim);
    auto loop = scf::ForOp::create(b, loc, zero, count, one);
    b.setInsertionPointToStart(loop.getBody());
    Value peer = loop.getInductionVar();
    // The counterexample's name of the other program's id.
    peer.setLoc(
        NameLoc::get(b.getStringAttr(std::string("peer.") + "xyz"[d]), loc));
    peers.push_back(peer);
    Value blocks = arith::ConstantIndexOp::create(b, loc, size);
    Value inCluster =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::DivUIOp::create(b, loc, peer, blocks),
                              arith::DivUIOp::create(b, loc, id, blocks));
    same = same ? arith::AndIOp::create(b, loc, same, inCluster) : inCluster;
  }
  if (!same)
    return success();
  auto branch = scf::IfOp::create(b, loc, same);
  b.setInsertionPointToStart(branch.thenBlock());
  PeerSlice slice(uniform);
  for (auto [value, what] : values) {
    IRMapping peer;
    // Every program id op of the kernel stands for this program's ids.
    kernel.walk([&](ProgramIdOp op) {
      peer.map(op.getResult(), peers[static_cast<unsigned>(op.getDim())]);
    });
    Value recomputed = slice.recompute(b, value, peer);
    if (!recomputed)
      return mlir::emitError(loc)
             << what
             << " depends on the program through a read of memory or a "
                "value carried by a loop, so tag-check cannot show that "
                "every program of the cluster has the same";
    Value equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        recomputed, value);
    tag::AssertOp::create(b, loc, equal,
                          b.getStringAttr(what + " is the same in every "
                                                 "program of the cluster"));
  }
  return success();
}
