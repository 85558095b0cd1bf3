//===- Checker.h - The tag checker's walk over one kernel ------*- C++ -*-===//
//
// Private to lib/Analysis. TagTransfer.cpp holds the transfer functions and
// the walk; TagObligations.cpp turns assertions into queries and failures
// into diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_ANALYSIS_CHECKER_H
#define TESSERA_LIB_ANALYSIS_CHECKER_H

#include "TagState.h"

#include "tessera/Analysis/SMTQuery.h"
#include "tessera/Analysis/SourceNames.h"
#include "tessera/Analysis/TagChecker.h"
#include "tessera/Dialect/Tag/TagDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>
#include <vector>

namespace tessera::analysis {

/// Floor and ceiling of a / b (b != 0) on term integers.
TermInt floorDivInt(TermInt a, TermInt b);
TermInt ceilDivInt(TermInt a, TermInt b);

class Checker {
public:
  Checker(tile::KernelOp kernel, const TagCheckOptions &options,
          TagCheckStats &stats, TermContext &terms, SMTBackend &backend);
  mlir::LogicalResult run();
  /// Inclusive bounds; a missing bound is infinite.
  struct Interval {
    std::optional<TermInt> lo, hi;
  };
  /// The bit width of an integer or index type (or element type), 0 for
  /// other types and integers wider than 64 bits.
  static unsigned bitsOf(mlir::Type type);

private:
  // --- Terms of values (TagTransfer.cpp) ---------------------------------
  const Term *elem(unsigned index);
  /// The term of an index/integer/i1 value (element-wise for tensors).
  const Term *valueTerm(mlir::Value value);
  const Term *boolTerm(mlir::Value value);
  std::pair<const Term *, const Term *> programGrid(int dim);
  /// A fresh symbol in [lo, hi], a fact of the whole kernel.
  const Term *rangedSymbol(llvm::StringRef name, TermInt lo, TermInt hi);
  /// The term of a persistent kernel's argument the runtime passes
  /// (tile.grid): the launched grid's size or the programs started; null
  /// for other values.
  const Term *persistentArgument(mlir::Value value);
  /// Models tile.tile_coords: coordinates inside the grid.
  void tileCoords(tile::TileCoordsOp op);
  const Term *dimTerm(mlir::Value view, unsigned dim);
  const Term *affineTerm(mlir::AffineExpr expr,
                         llvm::ArrayRef<const Term *> dims,
                         llvm::ArrayRef<const Term *> symbols);
  /// Renames element variables e0.. to `indices`.
  const Term *atIndices(const Term *term, llvm::ArrayRef<const Term *> indices);
  TagFn atIndices(const TagFn &fn, llvm::ArrayRef<const Term *> indices);
  /// Element e of `result` is element `indices`(e) of `input`: its tag and,
  /// for integer tiles, its value.
  void forwardElements(mlir::Value result, mlir::Value input,
                       llvm::ArrayRef<const Term *> indices);
  /// The tile `result` that `reader` reads from view `source` at `indices`:
  /// offsets checked, tags at the positions read (in bounds or not),
  /// integer data as an unknown function of its position.
  void readView(mlir::Operation *reader, mlir::Value source,
                mlir::TypedValue<mlir::RankedTensorType> result,
                llvm::ArrayRef<const Term *> indices, const Term *inBounds);
  /// The indices of element (i, kk) of an MMA's a and (kk, j) of its b,
  /// with its transposes applied.
  static std::pair<llvm::SmallVector<const Term *>,
                   llvm::SmallVector<const Term *>>
  mmaOperandIndices(bool transposeA, bool transposeB, const Term *i,
                    const Term *j, const Term *kk);

  // --- Integer semantics (IntSemantics.cpp) ------------------------------
  /// Bounds of `term` from its symbols' ranges and the facts in scope.
  Interval rangeOf(const Term *term);
  Interval rangeOfNode(const Term *term);
  std::optional<bool> decide(const Term *cond);
  /// `x floordiv c` (`quotient`) or `x mod c` (c > 0) as a term without the
  /// division when the bounds of `x` lie within one multiple of c; null
  /// otherwise.
  const Term *pinnedByBounds(const Term *x, TermInt c, bool quotient);
  /// `goal` with what the facts in scope decide in it replaced: the
  /// literals they state (conjuncts of plain facts, and of facts about
  /// every element instantiated at the goal's symbols) become true, and
  /// remainders, quotients and comparisons by constants whose operands'
  /// bounds (the symbols', the data's, the literals') pin them are folded.
  const Term *simplifyByBounds(const Term *goal);
  /// The literals simplifyByBounds holds true while it folds (rangeOf
  /// refines any term's bounds by them).
  llvm::SmallVector<const Term *> boundLiterals;
  /// `term` with its divisions and remainders by constants simplified by
  /// what the facts in scope say: multiples of the divisor (a loop's
  /// induction variable over a multiple of its step) leave the remainder,
  /// and a quotient or remainder the bounds pin to one value is that value.
  const Term *simplifyUnderFacts(const Term *term);
  /// Whether `goal` follows from the facts in scope by linear arithmetic,
  /// its (and their) if-then-elses, minimums and maximums split into cases
  /// (LinearProof.cpp). False says nothing.
  bool provedLinearly(const Term *goal);
  bool provedLinearly(const Term *goal, llvm::ArrayRef<const Term *> hypotheses,
                      unsigned splits, unsigned &budget);
  /// Whether a few candidate values of the symbols (each within its bounds
  /// given the values chosen before it) make every one of `facts` true: a
  /// model found without Z3. False says nothing.
  bool findModel(llvm::ArrayRef<Fact> facts);
  /// ite(cond, a, b), or a or b when bounds decide `cond`.
  const Term *select(const Term *cond, const Term *thenTerm,
                     const Term *elseTerm);
  /// A fresh symbol for a `bits`-wide integer (0: unbounded).
  const Term *freshValue(llvm::StringRef name, unsigned bits);
  /// The signed `bits`-bit value congruent to `term` modulo 2^bits.
  const Term *wrapSigned(const Term *term, unsigned bits);
  /// The unsigned reading of the signed `bits`-bit value `term`.
  const Term *toUnsigned(const Term *term, unsigned bits);
  const Term *boolToInt(const Term *flag, bool isSigned);
  const Term *floorDivide(const Term *a, const Term *b);
  const Term *truncDivide(const Term *a, const Term *b);
  /// The value of an arith integer op's result, or null if not modelled.
  const Term *integerValue(mlir::Operation *op);
  /// An unknown value for `value`, remembered as made unknown by `op`.
  const Term *unknownValue(mlir::Value value, mlir::Operation *op);

  // --- Tags of values ----------------------------------------------------
  TagFn tagOf(mlir::Value value);
  TagFn join(const TagFn &lhs, const TagFn &rhs, mlir::Operation *at);
  /// Indices into a view for a tile of the given rank at `offsets`,
  /// element variables starting at `firstElem`; and the in-bounds term.
  llvm::SmallVector<const Term *>
  viewIndices(mlir::Value view, mlir::ValueRange offsets, unsigned tileRank,
              unsigned firstElem, const Term *&inBounds);

  // --- The walk ----------------------------------------------------------
  mlir::LogicalResult processBlock(mlir::Block &block);
  mlir::LogicalResult processOp(mlir::Operation *op);
  mlir::LogicalResult processTags(mlir::Operation *op);
  mlir::LogicalResult processFor(mlir::scf::ForOp loop);
  /// Iteration argument `index` of `loop` after `count` iterations, when
  /// each iteration keeps it or moves it by a loop-invariant amount; null
  /// for any other.
  const Term *inductionValue(mlir::scf::ForOp loop, unsigned index,
                             const Term *count);
  /// A ring the loop fills with one asynchronous copy per iteration, or a
  /// buffer it refills at the end of each iteration (`staged`: a tile.store
  /// of the next iteration's tile, loaded from a view into registers).
  struct RingPlan {
    mlir::Value buffer;
    mlir::Operation *writer;
    int64_t stages;
    int commitsAfterCopy, commitsPerIteration;
    bool staged = false;
  };
  llvm::SmallVector<RingPlan> planRings(mlir::scf::ForOp loop);
  BufferState ringState(const RingPlan &ring, mlir::scf::ForOp loop,
                        const Term *at);
  void checkRingState(const RingPlan &ring, mlir::scf::ForOp loop,
                      const BufferState &expected, const BufferState &actual,
                      llvm::StringRef what);
  mlir::LogicalResult processIf(mlir::scf::IfOp branch);
  mlir::LogicalResult processSwitch(mlir::scf::IndexSwitchOp op);
  mlir::LogicalResult processExecuteRegion(mlir::scf::ExecuteRegionOp op);
  mlir::LogicalResult processBranches(
      mlir::Operation *op,
      llvm::ArrayRef<std::pair<mlir::Block *, const Term *>> branches);
  void processValues(mlir::Operation *op);
  void processElementwise(mlir::Operation *op);
  void processMma(tile::MmaOp op);
  // Transfer functions, one per op (processTags dispatches). Memory and
  // synchronisation (TagMemory.cpp):
  void transfer(tag::BindOp bind);
  void transfer(tile::CopyOp copy);
  void transfer(tile::CopyOutOp copy);
  void transfer(tile::LoadOp load);
  void transfer(tile::GatherOp gather);
  void transfer(tile::StoreOp store);
  void transfer(tile::AtomicAddOp add);
  void transfer(tile::BarrierOp);
  void transfer(tile::AsyncCommitOp);
  void transfer(tile::AsyncWaitOp wait);
  void transfer(tag::ResetOp reset);
  // Tiles computed from tiles (TagTransfer.cpp):
  void transfer(tile::UnpackOp unpack);
  void transfer(tile::ConvertLayoutOp convert);
  void transfer(tile::BroadcastOp broadcast);
  void transfer(tile::ReduceOp reduce);
  void transfer(tile::SelectOp select);
  void transfer(tile::DequantOp dequant);
  void transfer(tile::QuantOp quant);
  TagFn overwriteSlot(const TagFn &ring, TagFn data, const Term *isSlot,
                      mlir::Operation *writer);
  void writeBuffer(mlir::Value buffer, mlir::Value slot, TagFn data,
                   mlir::Operation *writer, bool async);
  TagFn readBuffer(mlir::Value buffer, mlir::Value slot,
                   mlir::Operation *reader);
  void barrier();
  bool mayAlias(const Term *slotA, const Term *slotB);

  // --- Obligations (TagObligations.cpp) ----------------------------------
  void addAssumption(tag::AssumeOp op);
  void checkContract(tag::AssertContractOp op);
  void checkEquality(tag::AssertEqOp op);
  void checkCondition(tag::AssertOp op);
  /// A division's or remainder's divisor is never zero (an obligation:
  /// the targets define no result for it).
  void checkDivisor(mlir::Operation *op);
  void checkSharedCapacity();

  // --- Reductions (Reductions.cpp) ---------------------------------------
  /// What an op's tile result summed: that of its same-shaped tile operands.
  void propagateSums(mlir::Operation *op);
  void addMmaSums(tile::MmaOp op, const TagFn &a, const TagFn &b);
  /// Iteration arguments carry themselves; results add each iteration's
  /// parts over the loop's range to the initial value's.
  void enterLoopSums(mlir::scf::ForOp loop);
  void exitLoopSums(mlir::scf::ForOp loop, const Term *iv, const Term *lb,
                    const Term *ub, const Term *step);
  void branchSums(mlir::Operation *op, llvm::ArrayRef<mlir::Block *> blocks);
  void checkComplete(tag::AssertCompleteOp op);
  /// No value (in [lo, hi) if given; of component `only` if not empty) is
  /// summed twice into element `element` of `value`.
  void checkSummedOnce(mlir::Operation *op, mlir::Value value,
                       llvm::ArrayRef<const Term *> element, const Term *lo,
                       const Term *hi, llvm::StringRef only);
  void checkStoredSums(mlir::Operation *op, mlir::Value data);
  std::optional<std::pair<TermInt, TermInt>> slopes(const SumPart &part);
  bool injective(const SumPart &part);
  const Term *coversStructurally(const SumPart &part,
                                 llvm::ArrayRef<const Term *> element,
                                 const Term *lo, const Term *hi);

  // --- Obligations of data-moving ops (DataObligations.cpp) --------------
  /// A store (or atomic add) of a `shape` tile at `indices` into view
  /// `dest` writes something: fails when, by the intervals of the indices
  /// and the view's sizes, some dimension's index is out of bounds for
  /// every element and every program (nothing would be written, and no tag
  /// obligation could see it).
  void checkLands(mlir::Operation *op, mlir::Value dest,
                  llvm::ArrayRef<const Term *> indices,
                  llvm::ArrayRef<int64_t> shape);
  /// Element e of `data` lands at `indices`(e) of view `dest`: where in
  /// bounds, it carries the components `dest`'s binding gives that place;
  /// and an element whose components name a place inside the view lands
  /// inside it (not for scatters).
  void checkStore(mlir::Operation *op, mlir::Value dest, mlir::Value data,
                  llvm::ArrayRef<const Term *> indices, const Term *inBounds);
  /// The operands of an MMA agree on every component both carry.
  void checkMmaOperands(tile::MmaOp op, const TagFn &a, const TagFn &b);
  /// Element (i, kk) of `a` and (kk, j) of `b` agree on `names`.
  void checkOperandsAgree(mlir::Operation *op, mlir::Value a, mlir::Value b,
                          const TagFn &aTag, const TagFn &bTag, bool transposeA,
                          bool transposeB,
                          llvm::ArrayRef<llvm::StringRef> names,
                          const std::string &message);
  /// Records whether every element offset of a view access fits in 32 bits.
  void checkOffsets(mlir::Operation *op, mlir::Value view,
                    llvm::ArrayRef<const Term *> indices, const Term *inBounds,
                    llvm::ArrayRef<int64_t> tileShape, unsigned firstElem);
  /// Counts a failure about to be reported; false (and nothing counted)
  /// while diagnostics are off.
  bool failing() {
    if (!reporting)
      return false;
    anyFailure = true;
    ++stats.failed;
    return true;
  }
  /// Fresh indices i0, i1, ... of an element of a tile of `shape`, with
  /// their ranges pushed as facts.
  llvm::SmallVector<const Term *> freshElement(llvm::ArrayRef<int64_t> shape);
  /// Fresh element indices i, j, kk of an MMA's space, with their ranges
  /// pushed as facts, and the indices of a's and b's elements there.
  struct MmaElements {
    const Term *i, *j, *kk;
    llvm::SmallVector<const Term *> a, b;
  };
  MmaElements mmaElements(mlir::RankedTensorType a, mlir::RankedTensorType b,
                          bool transposeA, bool transposeB);
  /// Proves `goal` under the facts in scope; on failure reports at `op`.
  bool
  prove(mlir::Operation *op, llvm::StringRef message, const Term *goal,
        llvm::ArrayRef<const Term *> shown,
        llvm::function_ref<void(mlir::InFlightDiagnostic &, const Outcome &)>
            explain);
  /// Whether the facts of a proved `query` contradict each other (then
  /// reported at `op`).
  bool vacuous(mlir::Operation *op, const Query &query);
  void hazard(mlir::Operation *op, llvm::StringRef message,
              mlir::Operation *other, llvm::StringRef otherNote,
              bool secondIteration);
  std::string describe(const TagFn &fn, const Outcome &outcome);
  /// One side of a failed comparison: the value, the element indices the
  /// query compared, and the tag there.
  struct TaggedElement {
    mlir::Value value;
    llvm::SmallVector<const Term *> indices;
    TagFn tag;
  };
  void addShownTerms(const TaggedElement &element,
                     llvm::SmallVectorImpl<const Term *> &shown);
  /// The notes of a failed comparison: what each element carries and the
  /// ops that wrote them.
  void explain(mlir::InFlightDiagnostic &diag, mlir::Location loc,
               const TaggedElement &lhs, const TaggedElement &rhs,
               const Outcome &outcome);
  /// Proves `goal`, a statement about two tagged elements at the indices
  /// `space`; a failure shows both elements and their writers.
  bool proveTagged(mlir::Operation *op, llvm::StringRef message,
                   const Term *goal, llvm::ArrayRef<const Term *> space,
                   const TaggedElement &lhs, const TaggedElement &rhs);
  std::string valueText(const Term *term, const Outcome &outcome);
  bool tupleOrReport(mlir::Operation *op, mlir::Value value, const TagFn &fn);
  /// Reports that component `name` of `value` is ⊤; when a loop widened it,
  /// shows two iterations that disagree.
  void reportConflict(mlir::Operation *op, llvm::StringRef name,
                      mlir::Value value, const TagFn &fn);
  /// Terms whose values tell, in a counterexample, which ring write an
  /// element came from; and that writer.
  void addOriginTerms(const TagFn &fn,
                      llvm::SmallVectorImpl<const Term *> &shown);
  mlir::Operation *originOf(const TagFn &fn, const Outcome &outcome);

  tile::KernelOp kernel;
  const TagCheckOptions &options;
  /// Transfer steps taken (processOp), against options.workBudget.
  uint64_t work = 0;
  bool workExhausted = false;
  TagCheckStats &stats;
  TermContext &terms;
  SMTBackend &backend;
  SourceNames sourceNames;

  llvm::DenseMap<mlir::Value, const Term *> values;
  llvm::DenseMap<mlir::Value, TagFn> tags;
  llvm::DenseMap<mlir::Value, Sums> sums;
  llvm::DenseMap<mlir::Value, BufferState> buffers;
  /// The data and slot each asynchronous ring copy last wrote.
  llvm::DenseMap<mlir::Operation *, std::pair<TagFn, const Term *>> ringWrites;
  llvm::DenseMap<std::pair<mlir::Value, unsigned>, const Term *> dims;
  llvm::SmallVector<const Term *> elems;
  /// Ranges of symbols by type or by what they stand for.
  llvm::DenseMap<const Term *, Interval> symbolRanges;
  /// Symbols known to be multiples of a constant: a loop's induction
  /// variable that starts at a multiple of its constant step.
  llvm::DenseMap<const Term *, TermInt> symbolMultiples;
  /// Bit widths of the integer data read from views, by function name.
  llvm::StringMap<unsigned> functionBits;
  /// Components a loop widened to ⊤ because they depend on the iteration:
  /// the component's term and the loop's induction variable and bounds.
  struct Widened {
    const Term *comp, *iv, *lb, *step;
  };
  std::map<std::pair<mlir::Operation *, std::string>, Widened> widened;
  /// Unknown values and the ops that made them.
  llvm::DenseMap<const Term *, mlir::Operation *> unknownOrigins;
  /// The shape of the tile whose element values are being computed: the
  /// bounds of e0, e1, ...
  llvm::ArrayRef<int64_t> currentShape;
  /// rangeOf is following an equality between symbols (one step only).
  bool followingEquality = false;
  /// Facts of the whole kernel (sizes, program ids) and of the scopes
  /// being walked (loop bounds, assumptions).
  llvm::SmallVector<Fact> kernelFacts, facts;
  /// Program ids and counts by grid dimension.
  llvm::DenseMap<int, std::pair<const Term *, const Term *>> programIds;
  /// Loops being walked, innermost last: induction variable and bounds.
  struct LoopScope {
    const Term *iv, *lowerBound, *step;
  };
  llvm::SmallVector<LoopScope> loops;
  /// Fact sets already checked for satisfiability.
  std::map<std::vector<const Term *>, bool> satisfiable;
  /// Diagnostics are only emitted on the final walk over a loop body.
  bool reporting = true;
  bool anyFailure = false;
};

} // namespace tessera::analysis

#endif // TESSERA_LIB_ANALYSIS_CHECKER_H
