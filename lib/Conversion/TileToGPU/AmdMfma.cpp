//===- AmdMfma.cpp - tile.mma to v_mfma -----------------------------------===//
//
// On AMD CDNA chips the operands' layouts (tile-assign-layouts) are tilings
// of the 32x32 MFMA fragments of a wave64, or of the 16x16 ones for tiles
// too small for whole 32x32 blocks per wave: each accumulator block of a
// thread (16 registers, or 4) is updated by one amdgpu.mfma per K step of
// the atom (32x32: 8 for bf16 and f16, v_mfma_f32_32x32x8, which on gfx90a
// also multiplies fp8 codes decoded to bf16; for int8 8 on gfx90a,
// v_mfma_i32_32x32x8i8, and 16 on gfx942, v_mfma_i32_32x32x16_i8, whose
// i32 sums wrap as arith.addi does; for fp8 16 on gfx942,
// v_mfma_f32_32x32x16_fp8_fp8; 16x16: 16 for bf16, f16 and gfx90a's int8,
// 32 for gfx942's int8 and fp8), with the M K / 64 A and B elements of
// each lane found by inverting their layouts. An accumulator laid out as
// the instruction's D transposed is computed as D^T = B^T A^T (the
// operands swapped).
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Layout/MmaLayouts.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

LogicalResult GPULowering::lowerMfma(tile::MmaOp op) {
  auto [la, lb, lc] = mmaLayouts(op);
  Type accElement =
      cast<RankedTensorType>(op.getAcc().getType()).getElementType();
  // fp8 codes go to gfx942's fp8 MFMA (as FNUZ codes, below), elsewhere
  // they are multiplied as bf16 (exact).
  Type aElement = cast<RankedTensorType>(op.getA().getType()).getElementType();
  if (!target.findMfma(aElement, accElement))
    return op.emitOpError("is lowered to v_mfma for bf16, f16 and f8E4M3FN "
                          "operands with f32 accumulators and i8 with i32 "
                          "ones only, so far");
  // The atom whose fragments the layouts tile: 32x32, else 16x16. A
  // transposed accumulator is computed as D^T = B^T A^T: B's registers go
  // to the instruction's A operand and A's to its B operand.
  const MmaAtom *atom = nullptr;
  bool transposed = false;
  for (int64_t m : {32, 16}) {
    const MmaAtom *candidate = target.findMfma(aElement, accElement, m);
    if (!candidate)
      continue;
    LinearLayout c = atoms::mfmaC(m);
    bool t = extendsAtom(lc, c.transposed().withShape(lc.getShape()));
    if (extendsAtom(la,
                    atoms::mfmaA(m, candidate->k).withShape(la.getShape())) &&
        extendsAtom(lb,
                    atoms::mfmaB(m, candidate->k).withShape(lb.getShape())) &&
        (t || extendsAtom(lc, c.withShape(lc.getShape())))) {
      atom = candidate;
      transposed = t;
      break;
    }
  }
  if (!atom)
    return op.emitOpError(
        "operand layouts are not tilings of the chip's MFMA fragments");
  bool fp8 = atom->operands == "e4m3";
  Value a, b;
  if (fp8) {
    a = fnuzCodes(mapping.lookup(op.getA()));
    b = fnuzCodes(mapping.lookup(op.getB()));
  } else {
    Type multiplied;
    a = mmaOperand(op.getA(), multiplied);
    b = mmaOperand(op.getB(), multiplied);
  }
  int64_t atomM = atom->m, atomK = atom->k, perLane = atomM * atomK / 64;
  if (failed(checkWarpPlacement(op, la, lb, lc)))
    return failure();
  Value acc = mapping.lookup(op.getAcc());
  int64_t k = la.getShape()[1];
  auto slice = [&](Value vector, int64_t first, int64_t count) -> Value {
    return vector::ExtractStridedSliceOp::create(
        builder, loc, vector, ArrayRef<int64_t>{first},
        ArrayRef<int64_t>{count}, ArrayRef<int64_t>{1});
  };
  int64_t blockSize = atomM * atomM / 64;
  auto blockType = VectorType::get({blockSize}, accElement);
  for (int64_t block = 0; block < lc.getSize(LinearLayout::Register);
       block += blockSize) {
    Coord origin = lc.apply(block, 0, 0);
    Value c = slice(acc, block, blockSize);
    // An FNUZ code is worth half the e4m3fn code of the same bits: the
    // MFMAs sum a quarter of each product onto a quarter of the
    // accumulator, which is then scaled back (powers of two: exact but
    // for accumulators below 2^-124, which a quarter makes subnormal).
    auto scaled = [&](Value v, float by) -> Value {
      return arith::MulFOp::create(
          builder, loc, v,
          arith::ConstantOp::create(
              builder, loc, blockType,
              DenseElementsAttr::get(blockType, builder.getF32FloatAttr(by))));
    };
    if (fp8)
      c = scaled(c, 0.25f);
    for (int64_t k0 = 0; k0 < k; k0 += atomK) {
      std::optional<uint64_t> ra = la.findRegister({origin[0], k0});
      std::optional<uint64_t> rb = lb.findRegister({k0, origin[1]});
      if (!ra || !rb || *ra % perLane || *rb % perLane)
        return op.emitOpError("operand layouts do not hold whole fragments "
                              "for accumulator block at (")
               << origin[0] << ", " << origin[1] << "), k " << k0;
      Value x = slice(a, *ra, perLane), y = slice(b, *rb, perLane);
      if (transposed)
        std::swap(x, y);
      if (fp8) {
        auto fnuz =
            VectorType::get({perLane}, builder.getType<Float8E4M3FNUZType>());
        x = arith::BitcastOp::create(builder, loc, fnuz, x);
        y = arith::BitcastOp::create(builder, loc, fnuz, y);
      }
      c = amdgpu::MFMAOp::create(builder, loc, blockType, atomM, atomM, atomK,
                                 1, x, y, c);
    }
    if (fp8)
      c = scaled(c, 4.0f);
    acc = vector::InsertStridedSliceOp::create(
        builder, loc, c, acc, ArrayRef<int64_t>{block}, ArrayRef<int64_t>{1});
  }
  mapping.map(op.getResult(), acc);
  return success();
}
