//===- TargetInfo.cpp - The chips Tessera compiles for --------------------===//
//
// Shared capacities are the per-block maxima the vendors document (sm_80:
// 163 KiB opt-in, sm_90a: 227 KiB, CDNA: 64 KiB LDS). The latency models
// are per-SM peak rates for scheduling estimates, not measurements.
//
//===----------------------------------------------------------------------===//

#include "tessera/Target/TargetInfo.h"

#include "tessera/Dialect/Tile/TileDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tessera;

static constexpr MmaAtom kSm80Atoms[] = {
    {"mma.sync.m16n8k16", 16, 8, 16, "bf16", "f32"},
    {"mma.sync.m16n8k16", 16, 8, 16, "f16", "f32"},
    {"mma.sync.m16n8k32", 16, 8, 32, "i8", "i32"},
};
static constexpr MmaAtom kSm90aAtoms[] = {
    {"wgmma.m64nNk16", 64, 256, 16, "bf16", "f32"},
    {"wgmma.m64nNk16", 64, 256, 16, "f16", "f32"},
    {"wgmma.m64nNk32", 64, 256, 32, "e4m3", "f32"},
    {"wgmma.m64nNk32", 64, 256, 32, "i8", "i32"},
    {"mma.sync.m16n8k16", 16, 8, 16, "bf16", "f32"},
    {"mma.sync.m16n8k16", 16, 8, 16, "f16", "f32"},
    {"mma.sync.m16n8k32", 16, 8, 32, "i8", "i32"},
};
static constexpr MmaAtom kCdna2Atoms[] = {
    {"mfma.32x32x8", 32, 32, 8, "bf16", "f32"},
    {"mfma.16x16x16", 16, 16, 16, "bf16", "f32"},
    {"mfma.32x32x8", 32, 32, 8, "f16", "f32"},
    {"mfma.16x16x16", 16, 16, 16, "f16", "f32"},
    {"mfma.32x32x8", 32, 32, 8, "i8", "i32"},
    {"mfma.16x16x16", 16, 16, 16, "i8", "i32"},
};
static constexpr MmaAtom kCdna3Atoms[] = {
    {"mfma.32x32x8", 32, 32, 8, "bf16", "f32"},
    {"mfma.16x16x16", 16, 16, 16, "bf16", "f32"},
    {"mfma.32x32x8", 32, 32, 8, "f16", "f32"},
    {"mfma.16x16x16", 16, 16, 16, "f16", "f32"},
    {"mfma.32x32x16", 32, 32, 16, "i8", "i32"},
    {"mfma.32x32x16", 32, 32, 16, "e4m3", "f32"},
    {"mfma.16x16x32", 16, 16, 32, "i8", "i32"},
    {"mfma.16x16x32", 16, 16, 32, "e4m3", "f32"},
};

static const TargetInfo kTargets[] = {
    {"host", Vendor::Host, 1, 232448, AsyncCopyKind::None, {}, std::nullopt},
    {"sm_80", Vendor::Nvidia, 32, 166912, AsyncCopyKind::CpAsync, kSm80Atoms,
     LatencyModel{2048, 10, 128, 256, 500, false}},
    {"sm_90a", Vendor::Nvidia, 32, 232448, AsyncCopyKind::Tma, kSm90aAtoms,
     LatencyModel{4096, 14, 128, 256, 500, true}, /*maxClusterBlocks=*/16},
    // MI250X per CU: half gfx942's MFMA rate, a little less bandwidth.
    {"gfx90a", Vendor::Amd, 64, 65536, AsyncCopyKind::BufferToLds, kCdna2Atoms,
     LatencyModel{1024, 8, 128, 256, 700, false}},
    {"gfx942", Vendor::Amd, 64, 65536, AsyncCopyKind::BufferToLds, kCdna3Atoms,
     LatencyModel{2048, 9, 128, 256, 700, false}},
};

const MmaAtom *TargetInfo::findMma(llvm::StringRef operands,
                                   llvm::StringRef accumulator,
                                   int64_t m) const {
  for (const MmaAtom &atom : mmaAtoms)
    if (atom.operands == operands && atom.accumulator == accumulator &&
        (!m || atom.m == m))
      return &atom;
  return nullptr;
}

const MmaAtom *TargetInfo::findMfma(mlir::Type operands, mlir::Type accumulator,
                                    int64_t m) const {
  if (operands.isInteger(8) && accumulator.isInteger(32))
    return findMma("i8", "i32", m);
  if (!accumulator.isF32())
    return nullptr;
  bool fp8 = mlir::isa<mlir::Float8E4M3FNType>(operands);
  if (fp8)
    if (const MmaAtom *atom = findMma("e4m3", "f32", m))
      return atom;
  if (operands.isF16())
    return findMma("f16", "f32", m);
  if (operands.isBF16() || fp8)
    return findMma("bf16", "f32", m);
  return nullptr;
}

const TargetInfo *tessera::lookupTarget(llvm::StringRef chip) {
  for (const TargetInfo &target : kTargets)
    if (target.chip == chip)
      return &target;
  return nullptr;
}

std::string tessera::listTargets() {
  return llvm::join(
      llvm::map_range(kTargets,
                      [](const TargetInfo &t) { return t.chip.str(); }),
      ", ");
}

std::string tessera::resolveChip(mlir::ModuleOp module,
                                 llvm::StringRef option) {
  if (!option.empty())
    return option.str();
  if (const TargetInfo *target = getModuleTarget(module);
      target && target->isGpu())
    return target->chip.str();
  return "sm_90a";
}

const TargetInfo *tessera::getModuleTarget(mlir::ModuleOp module) {
  auto name =
      tile::TileDialect::TargetAttrHelper(module.getContext()).getAttr(module);
  return name ? lookupTarget(name.getValue()) : nullptr;
}

void tessera::setModuleTarget(mlir::ModuleOp module, llvm::StringRef chip) {
  mlir::MLIRContext *context = module.getContext();
  tile::TileDialect::TargetAttrHelper(context).setAttr(
      module, mlir::StringAttr::get(context, chip));
}
