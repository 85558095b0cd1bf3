//===- TagState.h - Abstract state of the tag checker ----------*- C++ -*-===//
//
// Private to lib/Analysis: the per-element tag of a value (docs/invariants.md)
// and the hazard state of a shared buffer.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_ANALYSIS_TAGSTATE_H
#define TESSERA_LIB_ANALYSIS_TAGSTATE_H

#include "tessera/Analysis/Term.h"

#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace tessera::analysis {

/// The tag of every element of a value, as terms over the element index
/// variables e0, e1, ... (a ring's slot is e0).
struct TagFn {
  enum Kind { Bottom, Top, Tuple } kind = Bottom;
  std::string name;
  llvm::SmallVector<std::string, 4> names;
  llvm::SmallVector<const Term *, 4> comps;
  /// Where false, nothing is known about the element (⊥), e.g. ring slots
  /// not written yet. Null means true.
  const Term *known = nullptr;
  /// The op that wrote the data, or where conflicting tags met.
  mlir::Operation *origin = nullptr;
  /// ⊤ from an op the checker does not model (`origin`), not from a
  /// conflict.
  bool fromUnmodelledOp = false;
  /// For data from ring slots: the writers, each with the condition on the
  /// element indices under which it wrote the element (first match wins).
  llvm::SmallVector<std::pair<const Term *, mlir::Operation *>, 2> writers;

  static TagFn top(mlir::Operation *origin) {
    TagFn fn;
    fn.kind = Top;
    fn.origin = origin;
    return fn;
  }
  /// ⊤ because `origin` is an op the checker does not model.
  static TagFn unmodelled(mlir::Operation *origin) {
    TagFn fn = top(origin);
    fn.fromUnmodelledOp = true;
    return fn;
  }
  std::optional<unsigned> find(llvm::StringRef component) const {
    for (unsigned i = 0; i < names.size(); ++i)
      if (names[i] == component)
        return i;
    return std::nullopt;
  }
  bool sameAs(const TagFn &other) const {
    return kind == other.kind && name == other.name && names == other.names &&
           comps == other.comps && known == other.known;
  }
};

/// One MMA's addition to an accumulator: element (e0, e1) summed the
/// contracted component's values `value`, a term over the element indices,
/// `kk` in [0, extent) and the induction variables of `loops` (outermost
/// first), once for each point of that space.
struct SumPart {
  std::string component;
  const Term *value;
  const Term *kk;
  int64_t extent;
  struct Level {
    const Term *iv, *lb, *ub, *step;
    bool operator==(const Level &other) const {
      return iv == other.iv && lb == other.lb && ub == other.ub &&
             step == other.step;
    }
  };
  llvm::SmallVector<Level, 1> loops;
  mlir::Operation *mma;
  bool operator==(const SumPart &other) const {
    return component == other.component && value == other.value &&
           kk == other.kk && extent == other.extent && loops == other.loops &&
           mma == other.mma;
  }
};

/// What a tile has accumulated (docs/invariants.md): the MMAs' parts, the
/// loop iteration arguments it carries, or why it is not known.
struct Sums {
  llvm::SmallVector<SumPart, 2> parts;
  /// Iteration arguments (loop, index) whose running value this includes.
  llvm::SmallVector<std::pair<mlir::Operation *, unsigned>, 1> carried;
  /// Where what was summed stopped being known, and why.
  mlir::Operation *unknownAt = nullptr;
  std::string why;

  bool operator==(const Sums &other) const {
    return parts == other.parts && carried == other.carried &&
           unknownAt == other.unknownAt;
  }
  bool empty() const { return parts.empty() && carried.empty() && !unknownAt; }
  /// Adds what `other` summed (element-wise sums and products).
  void merge(const Sums &other) {
    if (unknownAt)
      return;
    if (other.unknownAt) {
      *this = other;
      return;
    }
    for (const SumPart &part : other.parts)
      if (!llvm::is_contained(parts, part))
        parts.push_back(part);
    for (auto arg : other.carried)
      if (!llvm::is_contained(carried, arg))
        carried.push_back(arg);
  }
};

/// An asynchronous copy not yet retired by tile.async_wait: into `slot` of a
/// ring (null: the whole buffer), or out of it when it `reads` it
/// (tile.copy_out), with `groupsAfter` commits since its own (-1: its group
/// is still open).
struct PendingCopy {
  mlir::Operation *op;
  const Term *slot;
  int groupsAfter;
  bool reads = false;
  /// It came around a loop's back edge (barriers since do not retire it).
  bool carried = false;
  bool operator==(const PendingCopy &other) const {
    return op == other.op && slot == other.slot &&
           groupsAfter == other.groupsAfter && reads == other.reads &&
           carried == other.carried;
  }
};

/// Who may still touch a shared buffer (docs/invariants.md): a set of
/// possibilities, so that joins at loop heads and branches are unions.
struct Hazard {
  /// A synchronous write (or a retired copy) not yet made visible by a
  /// barrier.
  mlir::Operation *unsyncedWrite = nullptr;
  llvm::SmallVector<PendingCopy, 2> pending;
  /// A read not yet followed by a barrier.
  mlir::Operation *unsyncedRead = nullptr;
  /// The state came around a loop's back edge (the race needs a second
  /// iteration).
  bool fromBackEdge = false;

  bool operator==(const Hazard &other) const {
    return unsyncedWrite == other.unsyncedWrite && pending == other.pending &&
           unsyncedRead == other.unsyncedRead;
  }
  void join(const Hazard &other) {
    if (!unsyncedWrite)
      unsyncedWrite = other.unsyncedWrite;
    for (const PendingCopy &copy : other.pending)
      if (!llvm::is_contained(pending, copy))
        pending.push_back(copy);
    if (!unsyncedRead)
      unsyncedRead = other.unsyncedRead;
  }
};

struct BufferState {
  TagFn tag;
  Hazard hazard;
};

} // namespace tessera::analysis

#endif // TESSERA_LIB_ANALYSIS_TAGSTATE_H
