//===- AmdMfma.cpp - tile.mma to v_mfma_f32_32x32x8 -----------------------===//
//
// On AMD CDNA chips the operands' layouts (tile-assign-layouts) are tilings
// of the MFMA 32x32x8 fragments of a wave64: each 16-register accumulator
// block of a thread is updated by one amdgpu.mfma per 8-wide K step, with
// the four A and four B registers found by inverting their layouts. An
// accumulator laid out as the instruction's D transposed is computed as
// D^T = B^T A^T (the operands swapped).
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Layout/MmaLayouts.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

LogicalResult GPULowering::lowerMfma(tile::MmaOp op) {
  auto [la, lb, lc] = mmaLayouts(op);
  Type element = cast<RankedTensorType>(op.getA().getType()).getElementType();
  if (!(element.isBF16() || element.isF16()) ||
      !cast<RankedTensorType>(op.getAcc().getType()).getElementType().isF32())
    return op.emitOpError("is lowered to v_mfma for bf16 and f16 operands "
                          "with f32 accumulators only, so far");
  // A transposed accumulator is computed as D^T = B^T A^T: B's registers
  // go to the instruction's A operand and A's to its B operand.
  bool transposed = extendsAtom(
      lc, atoms::mfma32x32C().transposed().withShape(lc.getShape()));
  if (!extendsAtom(la, atoms::mfma32x32x8A().withShape(la.getShape())) ||
      !extendsAtom(lb, atoms::mfma32x32x8B().withShape(lb.getShape())) ||
      !(transposed ||
        extendsAtom(lc, atoms::mfma32x32C().withShape(lc.getShape()))))
    return op.emitOpError("operand layouts are not tilings of the "
                          "v_mfma_f32_32x32x8 fragments");
  if (failed(checkWarpPlacement(op, la, lb, lc)))
    return failure();
  Value a = mapping.lookup(op.getA()), b = mapping.lookup(op.getB());
  Value acc = mapping.lookup(op.getAcc());
  int64_t k = la.getShape()[1];
  auto slice = [&](Value vector, int64_t first, int64_t count) -> Value {
    return vector::ExtractStridedSliceOp::create(
        builder, loc, vector, ArrayRef<int64_t>{first},
        ArrayRef<int64_t>{count}, ArrayRef<int64_t>{1});
  };
  auto blockType = VectorType::get({16}, builder.getF32Type());
  for (int64_t block = 0; block < lc.getSize(LinearLayout::Register);
       block += 16) {
    Coord origin = lc.apply(block, 0, 0);
    Value c = slice(acc, block, 16);
    for (int64_t k0 = 0; k0 < k; k0 += 8) {
      std::optional<uint64_t> ra = la.findRegister({origin[0], k0});
      std::optional<uint64_t> rb = lb.findRegister({k0, origin[1]});
      if (!ra || !rb || *ra % 4 || *rb % 4)
        return op.emitOpError("operand layouts do not hold whole fragments "
                              "for accumulator block at (")
               << origin[0] << ", " << origin[1] << "), k " << k0;
      Value x = slice(a, *ra, 4), y = slice(b, *rb, 4);
      if (transposed)
        std::swap(x, y);
      c = amdgpu::MFMAOp::create(builder, loc, blockType, 32, 32, 8, 1, x, y,
                                 c);
    }
    acc = vector::InsertStridedSliceOp::create(
        builder, loc, c, acc, ArrayRef<int64_t>{block}, ArrayRef<int64_t>{1});
  }
  mapping.map(op.getResult(), acc);
  return success();
}
