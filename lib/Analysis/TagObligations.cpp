//===- TagObligations.cpp - Assertions, queries and diagnostics -*- C++ -*-===//
//
// Each assertion becomes one query: decided structurally when
// its goal simplifies to true, otherwise by Z3. A failure is an error at the
// assertion with notes: the counterexample, the tags the failing elements
// carry, and the ops that wrote those elements (docs/invariants.md).
//
//===----------------------------------------------------------------------===//

#include "Checker.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir;
using namespace tessera;
using namespace tessera::analysis;

std::string Checker::valueText(const Term *term, const Outcome &outcome) {
  if (term->isConst())
    return toString(term->getValue());
  if (auto it = outcome.values.find(term); it != outcome.values.end())
    return toString(it->second);
  return terms.str(term);
}

std::string Checker::describe(const TagFn &fn, const Outcome &outcome) {
  std::string text = fn.name + "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(fn.comps, os, [&](const Term *comp) {
    os << (comp ? valueText(comp, outcome) : "⊤");
  });
  os << ')';
  return text;
}

/// `%a[0, 3]` with the counterexample's values of the element indices.
static std::string elementText(const std::string &name,
                               ArrayRef<std::string> indices) {
  return name + "[" + llvm::join(indices, ", ") + "]";
}

/// Points at the op the element's tag comes from: where it was written, or
/// for data read straight from a view, where the view's tag was bound.
static void noteOrigin(InFlightDiagnostic &diag, Operation *origin,
                       const std::string &element) {
  if (!origin)
    return;
  if (isa<tag::BindOp>(origin))
    diag.attachNote(origin->getLoc()) << element << "'s tag is bound here";
  else
    diag.attachNote(origin->getLoc()) << element << " was written here";
}

void Checker::addOriginTerms(const TagFn &fn,
                             SmallVectorImpl<const Term *> &shown) {
  for (auto [condition, writer] : fn.writers)
    shown.push_back(terms.ite(condition, terms.cst(1), terms.cst(0)));
}

Operation *Checker::originOf(const TagFn &fn, const Outcome &outcome) {
  for (auto [condition, writer] : fn.writers) {
    const Term *flag = terms.ite(condition, terms.cst(1), terms.cst(0));
    if (flag->isConst() ? flag->getValue() == 1
                        : outcome.values.lookup(flag) == 1)
      return writer;
  }
  return fn.origin;
}

void Checker::addShownTerms(const TaggedElement &element,
                            SmallVectorImpl<const Term *> &shown) {
  shown.append(element.indices.begin(), element.indices.end());
  for (const Term *comp : element.tag.comps)
    if (comp)
      shown.push_back(comp);
  addOriginTerms(element.tag, shown);
}

void Checker::explain(InFlightDiagnostic &diag, Location loc,
                      const TaggedElement &lhs, const TaggedElement &rhs,
                      const Outcome &outcome) {
  auto text = [&](const TaggedElement &element) {
    SmallVector<std::string> at;
    for (const Term *index : element.indices)
      at.push_back(valueText(index, outcome));
    return elementText(sourceNames.get(element.value), at);
  };
  std::string l = text(lhs), r = text(rhs);
  diag.attachNote(loc) << l << " carries " << describe(lhs.tag, outcome) << "; "
                       << r << " carries " << describe(rhs.tag, outcome);
  Operation *lOrigin = originOf(lhs.tag, outcome);
  Operation *rOrigin = originOf(rhs.tag, outcome);
  noteOrigin(diag, lOrigin, l);
  if (rOrigin != lOrigin)
    noteOrigin(diag, rOrigin, r);
}

bool Checker::tupleOrReport(Operation *op, Value value, const TagFn &fn) {
  if (fn.kind == TagFn::Tuple)
    return true;
  if (!failing())
    return false;
  if (fn.kind == TagFn::Bottom) {
    op->emitError() << "tag assertion failed: " << sourceNames.get(value)
                    << " carries no tag; bind its source with tag.bind, and "
                       "make sure its data is written and visible here";
    return false;
  }
  if (fn.fromUnmodelledOp) {
    InFlightDiagnostic diag =
        op->emitError() << "tag assertion failed: " << sourceNames.get(value)
                        << " has an unknown tag";
    diag.attachNote(fn.origin->getLoc())
        << "the tag checker does not model '" << fn.origin->getName()
        << "', so its result's tag is unknown";
    return false;
  }
  InFlightDiagnostic diag =
      op->emitError() << "tag assertion failed: " << sourceNames.get(value)
                      << " has conflicting provenance (⊤)";
  if (fn.origin)
    diag.attachNote(fn.origin->getLoc())
        << "tags of different origin meet here";
  return false;
}

void Checker::reportConflict(Operation *op, StringRef name, Value value,
                             const TagFn &fn) {
  if (!failing())
    return;
  InFlightDiagnostic diag = op->emitError()
                            << "tag assertion failed: component '" << name
                            << "' of " << sourceNames.get(value)
                            << " has conflicting provenance (⊤)";
  // The innermost loop around (or at) the op where the tags met that
  // widened this component.
  auto it = widened.end();
  for (Operation *at = fn.origin; at && it == widened.end();
       at = at->getParentOp())
    it = widened.find({at, name.str()});
  if (it == widened.end()) {
    if (fn.origin)
      diag.attachNote(fn.origin->getLoc())
          << "tags of different origin meet here";
    return;
  }
  const Widened &w = it->second;
  const Term *second = terms.add(w.lb, w.step);
  auto at = [&](const Term *iv) {
    return terms.str(terms.substitute(w.comp, {{w.iv, iv}}));
  };
  diag.attachNote(it->first.first->getLoc())
      << "counterexample: " << name << " differs from one iteration of this "
      << "loop to the next: " << at(w.lb) << " at " << w.iv->getName() << " = "
      << terms.str(w.lb) << ", " << at(second) << " at " << w.iv->getName()
      << " = " << terms.str(second);
}

bool Checker::prove(
    Operation *op, StringRef message, const Term *goal,
    ArrayRef<const Term *> shown,
    function_ref<void(InFlightDiagnostic &, const Outcome &)> explain) {
  if (!reporting)
    return true;
  goal = simplifyUnderFacts(goal);
  if (terms.provedByCases(goal))
    goal = terms.boolean(true);
  else if (const Term *folded = simplifyByBounds(goal);
           folded->isTrue() || provedLinearly(folded))
    goal = terms.boolean(true);
  Query query;
  query.facts.append(kernelFacts.begin(), kernelFacts.end());
  query.facts.append(facts.begin(), facts.end());
  query.goal = goal;
  query.shown.assign(shown.begin(), shown.end());
  query.functionBits = &functionBits;
  if (options.smtOutput) {
    std::string where;
    llvm::raw_string_ostream loc(where);
    op->getLoc().print(loc);
    *options.smtOutput << "; " << where << ": " << message;
    if (goal->isTrue())
      *options.smtOutput << ": proved structurally\n";
    else if (*options.smtOutput << "\n",
             failed(backend.emitSMTLIB(query, *options.smtOutput)))
      op->emitWarning("could not export this query as SMT-LIB");
  }
  if (goal->isTrue()) {
    if (vacuous(op, query))
      return false;
    ++stats.provedStructurally;
    return true;
  }
  Outcome outcome = backend.solve(query);
  if (outcome.verdict == Verdict::Proved) {
    if (vacuous(op, query))
      return false;
    ++stats.provedBySolver;
    return true;
  }
  anyFailure = true;
  ++stats.failed;
  if (outcome.verdict == Verdict::Unknown && outcome.reason == "timeout") {
    op->emitError() << "tag assertion undecided: Z3 ran past the wall-clock "
                       "backstop of "
                    << options.timeoutSeconds
                    << " s without counting its work against rlimit="
                    << options.rlimit
                    << "; raise the tag-check option 'timeout' or simplify "
                       "the assertion";
    return false;
  }
  if (outcome.verdict == Verdict::Unknown) {
    op->emitError() << "tag assertion undecided: Z3 gave up (" << outcome.reason
                    << ") within rlimit=" << options.rlimit
                    << "; raise the tag-check option 'rlimit' or simplify "
                       "the assertion";
    return false;
  }
  InFlightDiagnostic diag = op->emitError()
                            << "tag assertion failed: " << message;
  SmallVector<const Term *> symbols;
  terms.collectSymbols(goal, symbols);
  SmallVector<std::string> assignments;
  for (const Term *sym : symbols)
    if (auto it = outcome.values.find(sym); it != outcome.values.end())
      assignments.push_back(sym->getName().str() + " = " +
                            toString(it->second));
  if (assignments.empty())
    diag.attachNote(op->getLoc())
        << "counterexample: any execution (the statement is false whatever "
           "the values)";
  else
    diag.attachNote(op->getLoc())
        << "counterexample: " << llvm::join(assignments, ", ");
  explain(diag, outcome);
  // Values the checker could not interpret, and why.
  for (const Term *sym : symbols)
    if (Operation *origin = unknownOrigins.lookup(sym))
      diag.attachNote(origin->getLoc())
          << sym->getName() << " is unknown: the tag checker does not model '"
          << origin->getName() << "' here";
  return false;
}

const Term *Checker::simplifyByBounds(const Term *goal) {
  // The literals the facts state.
  llvm::DenseMap<const Term *, const Term *> known;
  SmallVector<const Term *> literals;
  std::function<void(const Term *)> add = [&](const Term *fact) {
    if (fact->getKind() == TermKind::And) {
      for (const Term *op : fact->getOperands())
        add(op);
      return;
    }
    if (fact->getKind() != TermKind::BoolConst &&
        known.try_emplace(fact, terms.boolean(true)).second)
      literals.push_back(fact);
  };
  for (const Fact &fact : llvm::concat<const Fact>(kernelFacts, facts))
    if (fact.bound.empty())
      add(fact.condition);
  // Instances of facts about every element at the goal's symbols, with the
  // plain facts' literals in them true: `p(i) or not (0 <= i < 64)` is
  // p(i) where 0 <= i < 64 holds.
  SmallVector<const Term *> symbols;
  terms.collectSymbols(goal, symbols);
  for (const Fact &fact : llvm::concat<const Fact>(kernelFacts, facts)) {
    if (fact.bound.size() != 1)
      continue;
    for (const Term *sym : symbols)
      add(terms.substitute(
          terms.substitute(fact.condition, {{fact.bound.front(), sym}}),
          known));
  }
  // Fold by bounds, operands first.
  boundLiterals = literals;
  llvm::scope_exit restore([&] { boundLiterals.clear(); });
  llvm::DenseMap<const Term *, const Term *> done;
  auto foldNode = [&](const Term *result) -> const Term * {
    // A literal the facts state may appear only once its operands are
    // simplified like the facts' own.
    if (auto it = known.find(result); it != known.end())
      return it->second;
    TermKind kind = result->getKind();
    if ((kind == TermKind::Div || kind == TermKind::Mod) &&
        result->getOperands()[1]->isConst() &&
        result->getOperands()[1]->getValue() > 0) {
      if (const Term *pinned = pinnedByBounds(
              result->getOperands()[0], result->getOperands()[1]->getValue(),
              kind == TermKind::Div))
        return pinned;
    } else if (std::optional<bool> decided = decide(result)) {
      return terms.boolean(*decided);
    } else if (kind == TermKind::Eq) {
      Interval r = rangeOf(result->getOperands()[1]);
      if ((r.lo && *r.lo > 0) || (r.hi && *r.hi < 0))
        return terms.boolean(false);
    }
    return result;
  };
  auto fold = [&](const Term *term) {
    return terms.rewriteBottomUp(term, foldNode, done);
  };
  // Folding rewrites terms the literals are about (a bounds check inside
  // a value read from a view), and each literal found may fold another:
  // the literals, folded with what is known, hold too (a few rounds).
  for (int round = 0; round < 3; ++round) {
    done.clear();
    size_t count = literals.size();
    for (size_t i = 0; i < count; ++i) {
      const Term *folded = fold(literals[i]);
      if (folded->getKind() != TermKind::BoolConst &&
          known.try_emplace(folded, terms.boolean(true)).second) {
        literals.push_back(folded);
        boundLiterals.push_back(folded);
      }
    }
    if (literals.size() == count)
      break;
  }
  done.clear();
  return fold(terms.substitute(goal, known));
}

/// A proof under contradictory facts proves nothing: reported with the
/// facts that contradict each other.
bool Checker::vacuous(Operation *op, const Query &query) {
  // The facts in scope: the kernel's, the assumptions, loop bounds and
  // branch conditions; not the ranges an obligation quantifies over (its
  // element indices), so one check serves every obligation of a scope.
  // A fact about every element of a tile is taken at its first element
  // (every tile has one): an instance the fact implies, so a contradiction
  // among the instances is one among the facts.
  Query check = query;
  check.facts.assign(kernelFacts.begin(), kernelFacts.end());
  for (const Fact &fact : facts) {
    if (!fact.origin)
      continue;
    Fact instance = fact;
    llvm::DenseMap<const Term *, const Term *> at;
    for (const Term *sym : fact.bound)
      at[sym] = terms.cst(0);
    instance.condition = terms.substitute(fact.condition, at);
    instance.bound.clear();
    check.facts.push_back(instance);
  }
  std::vector<const Term *> key;
  for (const Fact &fact : check.facts)
    key.push_back(fact.condition);
  if (auto it = satisfiable.find(key); it != satisfiable.end() && it->second)
    return false;
  if (findModel(check.facts)) {
    satisfiable[key] = true;
    return false;
  }
  check.goal = terms.boolean(false);
  check.shown.clear();
  check.instantiateAt.clear();
  // A core when the facts contradict each other; no model when they do not.
  Outcome outcome =
      backend.solve(check, 0, /*trackFacts=*/true, /*wantModel=*/false);
  bool contradiction = outcome.verdict == Verdict::Proved;
  satisfiable[key] = !contradiction;
  if (!contradiction)
    return false;
  anyFailure = true;
  ++stats.failed;
  InFlightDiagnostic diag =
      op->emitError() << "tag assertion is vacuous: the facts in scope "
                         "contradict each other, so no execution reaches it";
  for (unsigned index : outcome.core) {
    const Fact &fact = check.facts[index];
    Location loc = fact.origin ? fact.origin->getLoc() : kernel.getLoc();
    std::string what = "a fact of the kernel";
    if (auto assume = dyn_cast_or_null<tag::AssumeOp>(fact.origin))
      what = "the assumption" + (assume.getMessage()
                                     ? " '" + assume.getMessage()->str() + "'"
                                     : std::string());
    else if (isa_and_nonnull<scf::ForOp>(fact.origin))
      what = "the bounds of this loop";
    else if (fact.origin)
      what = "the condition of this branch";
    diag.attachNote(loc) << what << " (" << terms.str(fact.condition)
                         << ") is part of the contradiction";
  }
  return true;
}

void Checker::hazard(Operation *op, StringRef message, Operation *other,
                     StringRef otherNote, bool secondIteration) {
  if (!failing())
    return;
  InFlightDiagnostic diag = op->emitError() << message;
  SmallVector<std::string> assignments;
  for (auto [index, scope] : llvm::enumerate(loops)) {
    const Term *value = scope.lowerBound;
    if (secondIteration && index + 1 == loops.size())
      value = terms.add(value, scope.step);
    assignments.push_back(scope.iv->getName().str() + " = " + terms.str(value));
  }
  diag.attachNote(op->getLoc())
      << "counterexample: "
      << (assignments.empty() ? std::string("any program instance")
                              : llvm::join(assignments, ", "));
  diag.attachNote(other->getLoc()) << otherNote;
}

void Checker::addAssumption(tag::AssumeOp op) {
  if (reporting)
    ++stats.assumptions;
  const Term *condition = boolTerm(op.getCondition());
  auto tensor = dyn_cast<RankedTensorType>(op.getCondition().getType());
  if (!tensor) {
    facts.push_back({condition, {}, op});
    return;
  }
  // An assumption about a tile holds for each of its elements.
  Fact fact;
  SmallVector<const Term *> bound;
  const Term *range = terms.boolean(true);
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    bound.push_back(terms.freshSym("a" + std::to_string(d)));
    range = terms.land(range, terms.inRange(bound.back(), terms.cst(0),
                                            terms.cst(tensor.getDimSize(d))));
  }
  fact.condition = terms.implies(range, atIndices(condition, bound));
  fact.bound.assign(bound.begin(), bound.end());
  fact.origin = op;
  facts.push_back(fact);
}

void Checker::checkContract(tag::AssertContractOp op) {
  TagFn a = tagOf(op.getA()), b = tagOf(op.getB());
  if (!tupleOrReport(op, op.getA(), a) || !tupleOrReport(op, op.getB(), b))
    return;
  StringRef over = op.getContractionComponent();
  std::optional<unsigned> ia = a.find(over), ib = b.find(over);
  if (!ia || !ib) {
    if (failing())
      op->emitError() << "tag assertion failed: "
                      << sourceNames.get(!ia ? op.getA() : op.getB())
                      << "'s tag " << (!ia ? a.name : b.name)
                      << " has no component '" << over
                      << "'; name it in tag.bind or pick another with `over`";
    return;
  }
  checkOperandsAgree(op, op.getA(), op.getB(), a, b, op.getTransposeA(),
                     op.getTransposeB(), {over}, "contraction indices differ");
}

SmallVector<const Term *> Checker::freshElement(ArrayRef<int64_t> shape) {
  SmallVector<const Term *> element;
  for (auto [d, extent] : llvm::enumerate(shape)) {
    element.push_back(terms.freshSym("i" + std::to_string(d)));
    facts.push_back(
        {terms.inRange(element.back(), terms.cst(0), terms.cst(extent)), {}});
  }
  return element;
}

Checker::MmaElements Checker::mmaElements(RankedTensorType a,
                                          RankedTensorType b, bool transposeA,
                                          bool transposeB) {
  int64_t m = a.getDimSize(transposeA ? 1 : 0);
  int64_t k = a.getDimSize(transposeA ? 0 : 1);
  int64_t n = b.getDimSize(transposeB ? 0 : 1);
  MmaElements at;
  at.i = terms.freshSym("i");
  at.j = terms.freshSym("j");
  at.kk = terms.freshSym("kk");
  std::tie(at.a, at.b) =
      mmaOperandIndices(transposeA, transposeB, at.i, at.j, at.kk);
  facts.push_back({terms.inRange(at.i, terms.cst(0), terms.cst(m)), {}});
  facts.push_back({terms.inRange(at.j, terms.cst(0), terms.cst(n)), {}});
  facts.push_back({terms.inRange(at.kk, terms.cst(0), terms.cst(k)), {}});
  return at;
}

bool Checker::proveTagged(Operation *op, StringRef message, const Term *goal,
                          ArrayRef<const Term *> space,
                          const TaggedElement &lhs, const TaggedElement &rhs) {
  SmallVector<const Term *> shown(space.begin(), space.end());
  addShownTerms(lhs, shown);
  addShownTerms(rhs, shown);
  return prove(op, message, goal, shown,
               [&](InFlightDiagnostic &diag, const Outcome &outcome) {
                 explain(diag, op->getLoc(), lhs, rhs, outcome);
               });
}

/// The extent of element index `position` of a tagged value.
static const Term *extentOf(Checker &, TermContext &terms, Type type,
                            unsigned position,
                            function_ref<const Term *(unsigned)> viewDim) {
  if (isa<tile::ViewType>(type))
    return viewDim(position);
  if (auto shared = dyn_cast<tile::SharedType>(type)) {
    if (shared.isRing()) {
      if (position == 0)
        return terms.cst(shared.getStages());
      --position;
    }
    return terms.cst(shared.getShape()[position]);
  }
  return terms.cst(cast<RankedTensorType>(type).getDimSize(position));
}

void Checker::checkEquality(tag::AssertEqOp op) {
  TagFn lhs = tagOf(op.getLhs()), rhs = tagOf(op.getRhs());
  if (!tupleOrReport(op, op.getLhs(), lhs) ||
      !tupleOrReport(op, op.getRhs(), rhs))
    return;
  unsigned numDims = op.getLhsMap().getNumDims();
  SmallVector<const Term *> space, captures;
  for (unsigned d = 0; d < numDims; ++d)
    space.push_back(terms.freshSym("d" + std::to_string(d)));
  for (Value capture : op.getCaptures())
    captures.push_back(valueTerm(capture));

  size_t before = facts.size();
  const Term *yes = terms.boolean(true);
  const Term *premise = yes, *known = yes;
  // Element indices of each side, their bounds, and the compared terms.
  auto side = [&](Value value, AffineMap map, ArrayAttr components,
                  const TagFn &fn, SmallVectorImpl<const Term *> &indices,
                  SmallVectorImpl<const Term *> &compared) -> bool {
    for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
      const Term *index = affineTerm(expr, space, captures);
      const Term *extent =
          extentOf(*this, terms, value.getType(), pos,
                   [&](unsigned d) { return dimTerm(value, d); });
      indices.push_back(index);
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        facts.push_back({terms.inRange(index, terms.cst(0), extent), {}});
      else
        premise =
            terms.land(premise, terms.inRange(index, terms.cst(0), extent));
    }
    TagFn at = atIndices(fn, indices);
    known = terms.land(known, at.known ? at.known : yes);
    auto conflicting = [&](StringRef name) {
      reportConflict(op, name, value, fn);
      return false;
    };
    if (components.empty()) {
      for (auto [name, comp] : llvm::zip_equal(fn.names, at.comps))
        if (!comp)
          return conflicting(name);
      compared.assign(at.comps.begin(), at.comps.end());
      return true;
    }
    for (StringRef name : components.getAsValueRange<StringAttr>()) {
      std::optional<unsigned> index = fn.find(name);
      if (!index) {
        if (failing())
          op->emitError() << "tag assertion failed: " << sourceNames.get(value)
                          << "'s tag " << fn.name << " has no component '"
                          << name << "'";
        return false;
      }
      if (!at.comps[*index])
        return conflicting(name);
      compared.push_back(at.comps[*index]);
    }
    return true;
  };
  SmallVector<const Term *> lhsIdx, rhsIdx, lhsComps, rhsComps;
  if (!side(op.getLhs(), op.getLhsMap(), op.getLhsComponents(), lhs, lhsIdx,
            lhsComps) ||
      !side(op.getRhs(), op.getRhsMap(), op.getRhsComponents(), rhs, rhsIdx,
            rhsComps)) {
    facts.resize(before);
    return;
  }
  const Term *equal =
      terms.boolean(lhsComps.size() == rhsComps.size() &&
                    (!op.getLhsComponents().empty() || lhs.name == rhs.name));
  for (auto [l, r] : llvm::zip(lhsComps, rhsComps))
    equal = terms.land(equal, terms.eq(l, r));
  const Term *goal = terms.land(known, terms.implies(premise, equal));

  TaggedElement left{op.getLhs(), lhsIdx, atIndices(lhs, lhsIdx)};
  TaggedElement right{op.getRhs(), rhsIdx, atIndices(rhs, rhsIdx)};
  std::string message =
      op.getMessage() ? op.getMessage()->str() : "tags differ";
  proveTagged(op, message, goal, space, left, right);
  facts.resize(before);
}

void Checker::checkCondition(tag::AssertOp op) {
  const Term *condition = boolTerm(op.getCondition());
  size_t before = facts.size();
  SmallVector<const Term *> indices;
  if (auto tensor = dyn_cast<RankedTensorType>(op.getCondition().getType())) {
    indices = freshElement(tensor.getShape());
    condition = atIndices(condition, indices);
  }
  std::string message =
      op.getMessage() ? op.getMessage()->str() : "condition may be false";
  prove(op, message, condition, indices,
        [&](InFlightDiagnostic &diag, const Outcome &outcome) {
          if (indices.empty())
            return;
          SmallVector<std::string> at;
          for (const Term *t : indices)
            at.push_back(valueText(t, outcome));
          diag.attachNote(op.getLoc())
              << "it is false at element "
              << elementText(sourceNames.get(op.getCondition()), at);
        });
  facts.resize(before);
}

void Checker::checkDivisor(Operation *op) {
  Value divisor = op->getOperand(1);
  if (std::optional<int64_t> known = getConstantIntValue(divisor);
      known && *known != 0)
    return;
  const Term *value = valueTerm(divisor);
  size_t before = facts.size();
  SmallVector<const Term *> indices;
  if (auto tensor = dyn_cast<RankedTensorType>(divisor.getType())) {
    indices = freshElement(tensor.getShape());
    value = atIndices(value, indices);
  }
  std::string message =
      ("the divisor of '" + op->getName().getStringRef() + "' may be zero")
          .str();
  prove(op, message, terms.lnot(terms.eq(value, terms.cst(0))), indices,
        [&](InFlightDiagnostic &diag, const Outcome &outcome) {
          diag.attachNote(op->getLoc())
              << "the targets define no result for a division by zero: "
                 "assume or check that "
              << sourceNames.get(divisor) << " is not zero";
        });
  facts.resize(before);
}

void Checker::checkSharedCapacity() {
  int64_t total = 0;
  SmallVector<tile::AllocSharedOp> allocs;
  kernel.walk([&](tile::AllocSharedOp alloc) {
    total += alloc.getType().getSizeInBytes();
    allocs.push_back(alloc);
  });
  if (total <= options.maxSharedBytes)
    return;
  anyFailure = true;
  ++stats.failed;
  InFlightDiagnostic diag = kernel.emitError()
                            << "uses " << total
                            << " bytes of shared memory but the target has "
                            << options.maxSharedBytes
                            << "; use smaller tiles or fewer stages";
  for (tile::AllocSharedOp alloc : allocs)
    diag.attachNote(alloc.getLoc())
        << alloc.getType().getSizeInBytes() << " bytes allocated here";
}

/// Views are strided windows of memory: element (i0, ..., in) sits at
/// sum_j i_j * stride_j, the innermost stride 1 and the outer ones whatever
/// the caller passes (a sub-view of a larger tensor has its parent's), which
/// the kernel cannot see. So an access needs 64-bit offsets unless the
/// bounds of the indices and sizes (their ranges and the facts in scope)
/// keep every in-bounds element of the innermost dimension below 2^31 and
/// every outer index at 0: interval arithmetic, deterministic and without
/// the solver.
void Checker::checkOffsets(Operation *op, Value view,
                           ArrayRef<const Term *> indices, const Term *inBounds,
                           ArrayRef<int64_t> tileShape, unsigned firstElem) {
  if (!reporting)
    return;
  // Element variables before the tile's (a ring's slot) are unbounded here.
  SmallVector<int64_t> shape(firstElem, std::numeric_limits<int64_t>::max());
  shape.append(tileShape.begin(), tileShape.end());
  currentShape = shape;
  llvm::scope_exit done([&] { currentShape = {}; });
  std::optional<TermInt> largest = TermInt(0);
  for (unsigned j = indices.size(); j-- > 0 && largest;) {
    std::optional<TermInt> size = rangeOf(dimTerm(view, j)).hi;
    // In bounds, i_j < dim_j.
    std::optional<TermInt> index = rangeOf(indices[j]).hi;
    if (size && (!index || *index > *size - 1))
      index = *size - 1;
    if (!index || (j + 1 != indices.size() && *index > 0))
      largest = std::nullopt; // times a stride the kernel cannot bound
    else
      largest = std::max(*largest, *index);
  }
  unsigned bits = largest && *largest < (TermInt(1) << 31) ? 32 : 64;
  stats.offsetBits.push_back({op, bits});
}
