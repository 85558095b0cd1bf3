//===- DataObligations.cpp - What data-moving ops prove by themselves -----===//
//
// Obligations that need no tag assertion in the kernel: a store (or atomic
// add) into a bound view proves that each element lands where the binding
// says its data belongs, and an MMA proves that its operands agree on every
// component they both carry (docs/invariants.md).
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

/// The names `lhs` carries that `rhs` carries too, in `lhs`'s order.
static SmallVector<StringRef> sharedNames(const TagFn &lhs, const TagFn &rhs) {
  SmallVector<StringRef> shared;
  for (StringRef name : lhs.names)
    if (rhs.find(name))
      shared.push_back(name);
  return shared;
}

static std::string signature(const TagFn &fn) {
  return fn.name + "(" + llvm::join(fn.names, ", ") + ")";
}

void Checker::checkLands(Operation *op, Value dest,
                         ArrayRef<const Term *> indices,
                         ArrayRef<int64_t> shape) {
  currentShape = shape;
  llvm::scope_exit done([&] { currentShape = {}; });
  for (auto [d, index] : llvm::enumerate(indices)) {
    Interval at = rangeOf(index);
    Interval size = rangeOf(dimTerm(dest, d));
    bool beyond = at.lo && size.hi && *at.lo >= *size.hi;
    bool before = at.hi && *at.hi < 0;
    if (!beyond && !before)
      continue;
    if (!failing())
      return;
    InFlightDiagnostic diag = op->emitError()
                              << "writes nothing: index " << d << " of "
                              << sourceNames.get(dest) << " is "
                              << (beyond ? "at least " + toString(*at.lo)
                                         : "at most " + toString(*at.hi))
                              << " for every element and program, ";
    if (beyond)
      diag << "but the dimension has at most " << toString(*size.hi)
           << " elements";
    else
      diag << "before the view's first element";
    return;
  }
}

void Checker::checkStore(Operation *op, Value dest, Value data,
                         ArrayRef<const Term *> indices, const Term *inBounds) {
  TagFn binding = tagOf(dest);
  if (binding.kind != TagFn::Tuple)
    return;
  TagFn stored = tagOf(data);
  if (stored.kind == TagFn::Bottom) {
    if (failing())
      op->emitError() << "tag assertion failed: stores "
                      << sourceNames.get(data)
                      << ", which carries no tag, into "
                      << sourceNames.get(dest) << ", whose elements are bound "
                      << "to " << signature(binding);
    return;
  }
  if (!tupleOrReport(op, data, stored))
    return;
  SmallVector<StringRef> shared = sharedNames(binding, stored);
  if (shared.empty()) {
    if (failing())
      op->emitError() << "tag assertion failed: " << sourceNames.get(data)
                      << " carries " << signature(stored)
                      << ", which shares no component with "
                      << sourceNames.get(dest) << "'s tag "
                      << signature(binding);
    return;
  }

  // Element e of the stored tile lands at indices(e) of the view.
  size_t before = facts.size();
  // The data is a register tile, or a shared buffer's tile (tile.copy_out).
  auto buffer = dyn_cast<tile::SharedType>(data.getType());
  SmallVector<const Term *> element =
      freshElement(buffer ? buffer.getShape()
                          : cast<RankedTensorType>(data.getType()).getShape());
  SmallVector<const Term *> at;
  for (const Term *index : indices)
    at.push_back(atIndices(index, element));
  TaggedElement lhs{data, element, atIndices(stored, element)};
  TaggedElement rhs{dest, at, atIndices(binding, at)};
  const Term *equal = terms.boolean(true);
  for (StringRef name : shared) {
    const Term *have = lhs.tag.comps[*stored.find(name)];
    if (!have) {
      reportConflict(op, name, data, stored);
      facts.resize(before);
      return;
    }
    equal =
        terms.land(equal, terms.eq(have, rhs.tag.comps[*binding.find(name)]));
  }
  const Term *known = lhs.tag.known ? lhs.tag.known : terms.boolean(true);
  const Term *goal =
      terms.implies(atIndices(inBounds, element), terms.land(known, equal));
  bool belongs = proveTagged(op,
                             "stored data does not belong where it lands (" +
                                 llvm::join(shared, ", ") + ")",
                             goal, element, lhs, rhs);
  // Nothing the view should hold is dropped: where the binding gives each
  // dimension of the view one component and the data carries them all, an
  // element whose components name a place inside the view must land
  // inside it (and then, by the above, at that place). Not for scatters
  // (rows given by data): relating their row values to the components
  // takes Z3 a fifth of a second (divisions by a symbol), for kernels whose
  // scatters are already checked where they land.
  auto add = dyn_cast<tile::AtomicAddOp>(op);
  if (belongs && !(add && add.getRows())) {
    const Term *names = terms.boolean(true);
    bool invertible = true, landsThere = true;
    for (unsigned d = 0; d < indices.size() && invertible; ++d) {
      std::optional<unsigned> k;
      for (unsigned c = 0; c < binding.comps.size(); ++c)
        if (binding.comps[c] == elem(d))
          k = c;
      std::optional<unsigned> have =
          k ? stored.find(binding.names[*k]) : std::nullopt;
      invertible = have && lhs.tag.comps[*have];
      if (!invertible)
        break;
      const Term *place = lhs.tag.comps[*have];
      names = terms.land(names,
                         terms.inRange(place, terms.cst(0), dimTerm(dest, d)));
      // Stored at the place its components name: in bounds exactly there.
      landsThere &= place == at[d];
    }
    if (invertible && landsThere)
      ++stats.provedStructurally;
    else if (invertible)
      proveTagged(
          op,
          "data that belongs in " + sourceNames.get(dest) + " lands outside it",
          terms.implies(terms.land(known, names), atIndices(inBounds, element)),
          element, lhs, rhs);
  }
  facts.resize(before);
}

void Checker::checkMmaOperands(tile::MmaOp op, const TagFn &a, const TagFn &b) {
  SmallVector<StringRef> shared = sharedNames(a, b);
  if (!shared.empty())
    checkOperandsAgree(
        op, op.getA(), op.getB(), a, b, op.getTransposeA(), op.getTransposeB(),
        shared,
        "the MMA's operands disagree on a component both carry (" +
            llvm::join(shared, ", ") + ")");
}

void Checker::checkOperandsAgree(Operation *op, Value a, Value b,
                                 const TagFn &aTag, const TagFn &bTag,
                                 bool transposeA, bool transposeB,
                                 ArrayRef<StringRef> names,
                                 const std::string &message) {
  size_t before = facts.size();
  MmaElements at =
      mmaElements(cast<RankedTensorType>(a.getType()),
                  cast<RankedTensorType>(b.getType()), transposeA, transposeB);
  TaggedElement lhs{a, at.a, atIndices(aTag, at.a)};
  TaggedElement rhs{b, at.b, atIndices(bTag, at.b)};
  const Term *yes = terms.boolean(true);
  const Term *goal = terms.land(lhs.tag.known ? lhs.tag.known : yes,
                                rhs.tag.known ? rhs.tag.known : yes);
  for (StringRef name : names) {
    const Term *l = lhs.tag.comps[*aTag.find(name)];
    const Term *r = rhs.tag.comps[*bTag.find(name)];
    if (!l || !r) {
      reportConflict(op, name, !l ? a : b, !l ? aTag : bTag);
      facts.resize(before);
      return;
    }
    goal = terms.land(goal, terms.eq(l, r));
  }
  proveTagged(op, message, goal, {at.i, at.j, at.kk}, lhs, rhs);
  facts.resize(before);
}
