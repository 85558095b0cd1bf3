//===- TagMemory.cpp - Tags through memory: views, shared buffers
//----------===//
//
// The transfer functions of the ops that move data: tags bound to views,
// copies, loads, gathers, stores and atomic adds (with the offset and store
// obligations they raise), shared buffers and rings with their hazard state,
// and the synchronisation ops that retire asynchronous copies and make
// writes visible.
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

void Checker::readView(Operation *reader, Value source,
                       TypedValue<RankedTensorType> result,
                       ArrayRef<const Term *> indices, const Term *inBounds) {
  checkOffsets(reader, source, indices, inBounds, result.getType().getShape(),
               0);
  TagFn data = atIndices(tagOf(source), indices);
  data.origin = reader;
  tags[result] = data;
  // Integer data read from memory is an unknown function of its position
  //; out of bounds it reads as the padding.
  if (unsigned bits = bitsOf(result.getType()); bits > 1) {
    std::string function = sourceNames.get(source).substr(1);
    functionBits[function] = bits;
    const Term *read = terms.apply(function, indices);
    values[result] = terms.ite(inBounds, read, terms.cst(0));
  }
}

std::pair<SmallVector<const Term *>, SmallVector<const Term *>>
Checker::mmaOperandIndices(bool transposeA, bool transposeB, const Term *i,
                           const Term *j, const Term *kk) {
  SmallVector<const Term *> aIndex{i, kk}, bIndex{kk, j};
  if (transposeA)
    std::swap(aIndex[0], aIndex[1]);
  if (transposeB)
    std::swap(bIndex[0], bIndex[1]);
  return {aIndex, bIndex};
}

SmallVector<const Term *> Checker::viewIndices(Value view, ValueRange offsets,
                                               unsigned tileRank,
                                               unsigned firstElem,
                                               const Term *&inBounds) {
  unsigned rank = offsets.size();
  SmallVector<const Term *> indices;
  inBounds = terms.boolean(true);
  for (unsigned d = 0; d < rank; ++d) {
    const Term *index = valueTerm(offsets[d]);
    if (d + tileRank >= rank)
      index = terms.add(index, elem(firstElem + d + tileRank - rank));
    indices.push_back(index);
    inBounds = terms.land(inBounds,
                          terms.inRange(index, terms.cst(0), dimTerm(view, d)));
  }
  return indices;
}

//===----------------------------------------------------------------------===//
// Shared buffers
//===----------------------------------------------------------------------===//

/// `ring` with the elements where `isSlot` holds (e0 is the slot of every
/// element) replaced by `data`'s: per-slot provenance.
TagFn Checker::overwriteSlot(const TagFn &ring, TagFn data, const Term *isSlot,
                             Operation *writer) {
  const Term *yes = terms.boolean(true);
  auto orTrue = [&](const Term *t) { return t ? t : yes; };
  data.writers = {{isSlot, writer}};
  if (ring.kind == TagFn::Bottom) {
    data.known = terms.land(isSlot, orTrue(data.known));
    return data;
  }
  if (ring.kind != TagFn::Tuple || ring.name != data.name ||
      ring.names != data.names)
    return TagFn::top(writer);
  for (auto [comp, old] : llvm::zip_equal(data.comps, ring.comps))
    comp = comp && old ? terms.ite(isSlot, comp, old) : nullptr;
  data.known = terms.ite(isSlot, orTrue(data.known), orTrue(ring.known));
  data.writers.append(ring.writers.begin(), ring.writers.end());
  return data;
}

void Checker::writeBuffer(Value buffer, Value slot, TagFn data,
                          Operation *writer, bool async) {
  BufferState &state = buffers[buffer];
  const Term *slotTerm = slot ? valueTerm(slot) : nullptr;
  auto reading = llvm::find_if(state.hazard.pending, [&](auto &copy) {
    return copy.reads && mayAlias(copy.slot, slotTerm);
  });
  if (reading != state.hazard.pending.end())
    hazard(writer,
           "write-after-read race: " + sourceNames.get(buffer) +
               " is overwritten while its asynchronous copy out may still "
               "read it",
           reading->op,
           "the copy out, not yet retired by tile.async_wait and a barrier",
           reading->carried);
  else if (state.hazard.unsyncedRead)
    hazard(writer,
           "write-after-read race: " + sourceNames.get(buffer) +
               " is overwritten while other threads may still read it",
           state.hazard.unsyncedRead, "the earlier read, with no barrier since",
           state.hazard.fromBackEdge);
  data.origin = writer;
  // What a ring's or a staged buffer's writer wrote, for the loop's
  // invariant.
  ringWrites[writer] = {data, slot ? valueTerm(slot) : nullptr};
  if (!slot)
    state.tag = data;
  else
    state.tag = overwriteSlot(state.tag, data,
                              terms.eq(elem(0), valueTerm(slot)), writer);
  if (async) {
    state.hazard.pending.push_back(
        {writer, slot ? valueTerm(slot) : nullptr, -1});
  } else {
    state.hazard.unsyncedWrite = writer;
  }
}

TagFn Checker::readBuffer(Value buffer, Value slot, Operation *reader) {
  BufferState &state = buffers[buffer];
  const Term *slotTerm = slot ? valueTerm(slot) : nullptr;
  auto inFlight = llvm::find_if(state.hazard.pending, [&](auto &copy) {
    return !copy.reads && mayAlias(copy.slot, slotTerm);
  });
  if (inFlight != state.hazard.pending.end())
    hazard(reader,
           "read of " + sourceNames.get(buffer) +
               " before its asynchronous copy is complete",
           inFlight->op,
           "the copy, not yet retired by tile.async_wait and a barrier",
           state.hazard.fromBackEdge);
  else if (state.hazard.unsyncedWrite)
    hazard(reader,
           "read-after-write race: " + sourceNames.get(buffer) +
               " is read before a barrier makes the write visible",
           state.hazard.unsyncedWrite, "the write, with no barrier since",
           state.hazard.fromBackEdge);
  state.hazard.unsyncedRead = reader;
  TagFn fn = state.tag;
  if (!slot)
    return fn;
  // Element (r, c) of the loaded tile is element (slot, r, c) of the ring.
  auto type = cast<tile::SharedType>(buffer.getType());
  SmallVector<const Term *> indices = {valueTerm(slot)};
  for (unsigned i = 0; i < type.getRank(); ++i)
    indices.push_back(elem(i));
  // Substitution is simultaneous, so e0 -> slot, e1 -> e0, ... is safe.
  return atIndices(fn, indices);
}

/// Whether slots `a` and `b` of a ring may be the same (null: the whole
/// buffer): decided structurally, else by Z3 under the facts in scope.
bool Checker::mayAlias(const Term *a, const Term *b) {
  if (!a || !b || a == b)
    return true;
  const Term *distinct = terms.lnot(terms.eq(a, b));
  if (terms.provedByCases(distinct))
    return false;
  // Values under which they are the same (a ring slot read in one
  // iteration and written in another), satisfying the facts that share
  // symbols with them, directly or through each other. The other facts
  // constrain other symbols; if they contradict each other, no execution
  // gets here and "may alias" is as good an answer as any.
  const Term *same = terms.lnot(distinct);
  SmallVector<const Term *> symbols;
  terms.collectSymbols(same, symbols);
  llvm::DenseSet<const Term *> related(symbols.begin(), symbols.end());
  SmallVector<const Fact *> rest;
  for (const Fact &fact : kernelFacts)
    rest.push_back(&fact);
  for (const Fact &fact : facts)
    rest.push_back(&fact);
  SmallVector<Fact> witness{{same, {}}};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Fact *&fact : rest) {
      if (!fact)
        continue;
      symbols.clear();
      terms.collectSymbols(fact->condition, symbols);
      if (llvm::none_of(symbols,
                        [&](const Term *sym) { return related.count(sym); }))
        continue;
      related.insert(symbols.begin(), symbols.end());
      witness.push_back(*fact);
      fact = nullptr;
      grew = true;
    }
  }
  if (findModel(witness))
    return true;
  Query query;
  query.facts.append(kernelFacts.begin(), kernelFacts.end());
  query.facts.append(facts.begin(), facts.end());
  query.goal = distinct;
  query.functionBits = &functionBits;
  return backend
             .solve(query, /*rlimit=*/0, /*trackFacts=*/false,
                    /*wantModel=*/false)
             .verdict != Verdict::Proved;
}

void Checker::barrier() {
  for (auto &[buffer, state] : buffers) {
    state.hazard.unsyncedWrite = nullptr;
    state.hazard.unsyncedRead = nullptr;
    state.hazard.fromBackEdge = false;
  }
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

void Checker::transfer(tag::BindOp bind) {
  SmallVector<const Term *> dimTerms, symTerms;
  for (unsigned i = 0; i < bind.getMap().getNumDims(); ++i)
    dimTerms.push_back(elem(i));
  for (Value capture : bind.getCaptures())
    symTerms.push_back(valueTerm(capture));
  TagFn fn;
  fn.kind = TagFn::Tuple;
  fn.name = bind.getName().str();
  fn.origin = bind;
  for (auto [name, expr] :
       llvm::zip_equal(bind.getComponents().getAsValueRange<StringAttr>(),
                       bind.getMap().getResults())) {
    fn.names.push_back(name.str());
    fn.comps.push_back(affineTerm(expr, dimTerms, symTerms));
  }
  if (isa<tile::SharedType>(bind.getValue().getType()))
    buffers[bind.getValue()].tag = fn;
  else
    tags[bind.getValue()] = fn;
}

void Checker::transfer(tile::CopyOp copy) {
  auto dest = copy.getDest().getType();
  unsigned first = dest.isRing() ? 1 : 0;
  const Term *inBounds;
  SmallVector<const Term *> indices = viewIndices(
      copy.getSource(), copy.getOffsets(), dest.getRank(), first, inBounds);
  Value rows = copy.getRows();
  if (!rows) {
    checkOffsets(copy, copy.getSource(), indices, inBounds, dest.getShape(),
                 first);
    TagFn data = atIndices(tagOf(copy.getSource()), indices);
    writeBuffer(copy.getDest(), copy.getSlot(), data, copy, copy.getAsync());
    return;
  }
  // A gathering copy: the tile's row e (e_first) reads offset + rows[e],
  // whose bounds are the data's business (out of range reads the pad), as
  // for tile.gather; the row carries its index's tag too.
  unsigned rowDim = copy.getOffsets().size() - dest.getRank();
  SmallVector<const Term *> rowAt = {elem(first)};
  indices[rowDim] = terms.add(valueTerm(copy.getOffsets()[rowDim]),
                              atIndices(valueTerm(rows), rowAt));
  TagFn data = atIndices(tagOf(copy.getSource()), indices);
  TagFn chosen = tagOf(rows);
  if (chosen.kind == TagFn::Tuple)
    data = join(data, atIndices(chosen, rowAt), copy);
  writeBuffer(copy.getDest(), copy.getSlot(), data, copy, copy.getAsync());
}

void Checker::transfer(tile::CopyOutOp copy) {
  Value source = copy.getSource();
  TagFn data = readBuffer(source, copy.getSlot(), copy);
  if (copy.getAsync())
    buffers[source].hazard.pending.push_back(
        {copy, copy.getSlot() ? valueTerm(copy.getSlot()) : nullptr, -1,
         /*reads=*/true});
  ArrayRef<int64_t> shape = copy.getSource().getType().getShape();
  const Term *inBounds;
  SmallVector<const Term *> indices =
      viewIndices(copy.getDest(), copy.getOffsets(), shape.size(), 0, inBounds);
  checkOffsets(copy, copy.getDest(), indices, inBounds, shape, 0);
  checkLands(copy, copy.getDest(), indices, shape);
  // The stores' obligations on the tile read (a ring's slot): the buffer
  // holds just that tile while they are checked.
  TagFn whole = std::exchange(buffers[source].tag, data);
  checkStore(copy, copy.getDest(), source, indices, inBounds);
  buffers[source].tag = whole;
}

void Checker::transfer(tile::LoadOp load) {
  Value source = load.getSource();
  if (isa<tile::SharedType>(source.getType())) {
    Value slot = load.getIndices().empty() ? Value() : load.getIndices()[0];
    tags[load.getResult()] = readBuffer(source, slot, load);
    return;
  }
  const Term *inBounds;
  SmallVector<const Term *> indices =
      viewIndices(source, load.getIndices(),
                  load.getResult().getType().getRank(), 0, inBounds);
  readView(load, source, load.getResult(), indices, inBounds);
}

void Checker::transfer(tile::GatherOp gather) {
  Value source = gather.getSource();
  unsigned rank = gather.getOffsets().size();
  unsigned tileRank = gather.getResult().getType().getRank();
  const Term *inBounds;
  SmallVector<const Term *> indices =
      viewIndices(source, gather.getOffsets(), tileRank, 0, inBounds);
  // The row dimension reads offset + rows[e0] instead of offset + e0.
  unsigned rowDim = rank - tileRank;
  indices[rowDim] = terms.add(valueTerm(gather.getOffsets()[rowDim]),
                              valueTerm(gather.getRows()));
  inBounds = terms.boolean(true);
  for (unsigned d = 0; d < rank; ++d)
    inBounds = terms.land(
        inBounds, terms.inRange(indices[d], terms.cst(0), dimTerm(source, d)));
  readView(gather, source, gather.getResult(), indices, inBounds);
  // Row e0 was chosen by rows[e0]: it carries that index's tag too.
  TagFn chosen = tagOf(gather.getRows());
  if (chosen.kind == TagFn::Tuple)
    tags[gather.getResult()] = join(tagOf(gather.getResult()), chosen, gather);
}

void Checker::transfer(tile::StoreOp store) {
  if (isa<tile::SharedType>(store.getDest().getType())) {
    Value slot = store.getIndices().empty() ? Value() : store.getIndices()[0];
    TagFn data = tagOf(store.getValue());
    // A ring's elements are (slot, e0, e1, ...): the tile's e0 is its e1.
    if (slot) {
      SmallVector<const Term *> shifted;
      for (unsigned i = 0; i < store.getValue().getType().getRank(); ++i)
        shifted.push_back(elem(i + 1));
      data = atIndices(data, shifted);
    }
    writeBuffer(store.getDest(), slot, data, store, /*async=*/false);
    return;
  }
  RankedTensorType value = store.getValue().getType();
  const Term *inBounds;
  SmallVector<const Term *> indices = viewIndices(
      store.getDest(), store.getIndices(), value.getRank(), 0, inBounds);
  checkOffsets(store, store.getDest(), indices, inBounds, value.getShape(), 0);
  checkLands(store, store.getDest(), indices, value.getShape());
  checkStore(store, store.getDest(), store.getValue(), indices, inBounds);
  checkStoredSums(store, store.getValue());
}

void Checker::transfer(tile::AtomicAddOp add) {
  RankedTensorType value = add.getValue().getType();
  const Term *inBounds;
  SmallVector<const Term *> indices = viewIndices(
      add.getDest(), add.getOffsets(), value.getRank(), 0, inBounds);
  if (add.getRows()) {
    // Row r goes to row offset + rows[r] of the view.
    unsigned rowDim = indices.size() - value.getRank();
    indices[rowDim] = terms.add(valueTerm(add.getOffsets()[rowDim]),
                                valueTerm(add.getRows()));
    inBounds = terms.boolean(true);
    for (unsigned d = 0; d < indices.size(); ++d)
      inBounds = terms.land(inBounds, terms.inRange(indices[d], terms.cst(0),
                                                    dimTerm(add.getDest(), d)));
  }
  checkOffsets(add, add.getDest(), indices, inBounds, value.getShape(), 0);
  checkLands(add, add.getDest(), indices, value.getShape());
  checkStore(add, add.getDest(), add.getValue(), indices, inBounds);
  checkStoredSums(add, add.getValue());
}

void Checker::transfer(tile::BarrierOp) { barrier(); }

void Checker::transfer(tile::AsyncCommitOp) {
  for (auto &[buffer, state] : buffers)
    for (PendingCopy &copy : state.hazard.pending)
      ++copy.groupsAfter;
}

void Checker::transfer(tile::AsyncWaitOp wait) {
  int64_t pending = wait.getPendingAttr().getInt();
  for (auto &[buffer, state] : buffers) {
    auto retired = [&](const PendingCopy &copy) {
      return copy.groupsAfter >= pending;
    };
    for (const PendingCopy &copy : state.hazard.pending)
      if (retired(copy))
        (copy.reads ? state.hazard.unsyncedRead : state.hazard.unsyncedWrite) =
            copy.op;
    llvm::erase_if(state.hazard.pending, retired);
  }
}

void Checker::transfer(tag::ResetOp reset) {
  buffers[reset.getBuffer()] = BufferState();
}
