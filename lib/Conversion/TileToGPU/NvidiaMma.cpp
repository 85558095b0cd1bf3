//===- NvidiaMma.cpp - tile.mma to mma.sync m16n8k16 / m16n8k32 -----------===//
//
// The operands' layouts (tile-assign-layouts) are tilings of the m16n8k16
// fragments (m16n8k32 for int8): the low register bits and all lane bits
// are the atom's, the other register bits repeat it, and the warp bits
// place each warp's part consistently in A, B and D. Each 4-register
// accumulator block of a thread is then updated by one mma.sync per K step
// of the atom, with the A and B registers found by inverting their
// layouts. Operand registers are packed into 32-bit words: two 16-bit
// elements or four 8-bit ones. f8E4M3FN codes are multiplied as bf16
// (decoded exactly: sm_80 has no fp8 MMA, and sm_90a's is wgmma's).
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Layout/MmaLayouts.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

bool tessera::extendsAtom(const LinearLayout &layout,
                          const LinearLayout &atom) {
  auto regs = layout.getBases(LinearLayout::Register);
  auto atomRegs = atom.getBases(LinearLayout::Register);
  if (regs.size() < atomRegs.size() ||
      layout.getBases(LinearLayout::Lane) != atom.getBases(LinearLayout::Lane))
    return false;
  return std::equal(atomRegs.begin(), atomRegs.end(), regs.begin());
}

std::array<LinearLayout, 3> GPULowering::mmaLayouts(tile::MmaOp op) {
  // Transposed operands hold the same registers with coordinates swapped:
  // work with the [M, K] and [K, N] views of their layouts.
  LinearLayout la = layoutOf(op.getA()), lb = layoutOf(op.getB());
  if (op.getTransposeA())
    la = la.transposed();
  if (op.getTransposeB())
    lb = lb.transposed();
  return {la, lb, layoutOf(op.getAcc())};
}

LogicalResult GPULowering::checkWarpPlacement(tile::MmaOp op,
                                              const LinearLayout &la,
                                              const LinearLayout &lb,
                                              const LinearLayout &lc) {
  // Warp w's rows of A are its rows of D, its columns of B its columns of D.
  for (int64_t w = 0; w < numWarps; ++w) {
    Coord a = la.apply(0, 0, w), b = lb.apply(0, 0, w), c = lc.apply(0, 0, w);
    if (a[0] != c[0] || a[1] != 0 || b[1] != c[1] || b[0] != 0)
      return op.emitOpError("operand layouts place ")
             << (isAmd() ? "wave " : "warp ") << w
             << " inconsistently in A, B and the accumulator";
  }
  return success();
}

LogicalResult GPULowering::lowerMma(tile::MmaOp op) {
  auto [la, lb, lc] = mmaLayouts(op);
  // fp8 codes are multiplied as bf16 (exact).
  Type element;
  Value a = mmaOperand(op.getA(), element), b = mmaOperand(op.getB(), element);
  Type accElement =
      cast<RankedTensorType>(op.getAcc().getType()).getElementType();
  bool int8 = element.isInteger(8) && accElement.isInteger(32);
  if (!int8 && (!(element.isBF16() || element.isF16()) || !accElement.isF32()))
    return op.emitOpError("is lowered to mma.sync for bf16, f16 and f8E4M3FN "
                          "operands with f32 accumulators and i8 operands "
                          "with i32 accumulators only, so far");
  // The layouts must be tilings of the atoms whose warps agree.
  LinearLayout atomA = int8 ? atoms::mmaM16N8K32A() : atoms::mmaM16N8K16A();
  LinearLayout atomB = int8 ? atoms::mmaM16N8K32B() : atoms::mmaM16N8K16B();
  if (!extendsAtom(la, atomA.withShape(la.getShape())) ||
      !extendsAtom(lb, atomB.withShape(lb.getShape())) ||
      !extendsAtom(lc, atoms::mmaM16N8C().withShape(lc.getShape())))
    return op.emitOpError("operand layouts are not tilings of the ")
           << (int8 ? "mma.sync.m16n8k32" : "mma.sync.m16n8k16")
           << " fragments";
  if (failed(checkWarpPlacement(op, la, lb, lc)))
    return failure();
  MLIRContext *ctx = builder.getContext();
  Type i32 = builder.getI32Type();
  Type accType = int8 ? i32 : builder.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(
      ctx, {accType, accType, accType, accType});
  Value acc = mapping.lookup(op.getAcc());
  int64_t k = la.getShape()[1];
  // Elements per 32-bit register, and the K of one instruction.
  int64_t perWord = int8 ? 4 : 2, atomK = int8 ? 32 : 16;

  // Registers (r .. r + perWord) of an operand as one 32-bit register
  // (bf16, i8) or a vector<2xf16> (f16), as nvvm.mma.sync takes them.
  auto word = [&](Value vector, int64_t reg) -> Value {
    Value part = vector::ExtractStridedSliceOp::create(
        builder, loc, vector, ArrayRef<int64_t>{reg},
        ArrayRef<int64_t>{perWord}, ArrayRef<int64_t>{1});
    if (element.isF16())
      return part;
    Value bits = vector::BitCastOp::create(builder, loc,
                                           VectorType::get({1}, i32), part);
    return vector::ExtractOp::create(builder, loc, bits, 0);
  };
  NVVM::MMATypes ptxType = int8               ? NVVM::MMATypes::s8
                           : element.isBF16() ? NVVM::MMATypes::bf16
                                              : NVVM::MMATypes::f16;
  // i32 sums wrap, as arith.addi does on the host.
  std::optional<NVVM::MMAIntOverflow> overflow;
  if (int8)
    overflow = NVVM::MMAIntOverflow::wrapped;
  for (int64_t block = 0; block < lc.getSize(LinearLayout::Register);
       block += 4) {
    Coord origin = lc.apply(block, 0, 0);
    SmallVector<Value> c;
    for (int64_t i = 0; i < 4; ++i)
      c.push_back(vector::ExtractOp::create(builder, loc, acc, block + i));
    for (int64_t k0 = 0; k0 < k; k0 += atomK) {
      std::optional<uint64_t> ra = la.findRegister({origin[0], k0});
      std::optional<uint64_t> rb = lb.findRegister({k0, origin[1]});
      if (!ra || !rb || *ra % (4 * perWord) || *rb % (2 * perWord))
        return op.emitOpError("operand layouts do not hold whole fragments "
                              "for accumulator block at (")
               << origin[0] << ", " << origin[1] << "), k " << k0;
      SmallVector<Value> operandA, operandB;
      for (int64_t i = 0; i < 4; ++i)
        operandA.push_back(word(a, *ra + perWord * i));
      for (int64_t i = 0; i < 2; ++i)
        operandB.push_back(word(b, *rb + perWord * i));
      auto mma = NVVM::MmaOp::create(
          builder, loc, resultType, operandA, operandB, c,
          ArrayRef<int64_t>{16, 8, atomK}, std::nullopt, overflow,
          std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
          std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col});
      for (int64_t i = 0; i < 4; ++i)
        c[i] = LLVM::ExtractValueOp::create(builder, loc, mma, i);
    }
    for (int64_t i = 0; i < 4; ++i)
      acc = vector::InsertOp::create(builder, loc, c[i], acc, block + i);
  }
  mapping.map(op.getResult(), acc);
  return success();
}
