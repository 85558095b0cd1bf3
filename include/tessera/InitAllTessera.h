//===- InitAllTessera.h - Register Tessera and its dialects ----*- C++ -*-===//
//
// One place that lists what the tools register, so tessera-opt, the fuzzer
// and the tests agree.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_INITALLTESSERA_H
#define TESSERA_INITALLTESSERA_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tessera {
/// Adds the tile and tag dialects and the upstream dialects that kernels mix
/// with them (func, arith, math, scf, cf, memref, tensor, vector, gpu, nvgpu,
/// nvvm, amdgpu, rocdl, llvm, smt), with their interface extensions.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the upstream passes and Tessera's own passes with the global
/// pass registry (idempotent).
void registerAllPasses();

/// Runs a tool's `main` on a thread with a large stack (512 MiB, reserved
/// as it is used): the parser, the verifier and the passes recurse once per
/// region level, and kernels nested thousands deep overflow the main
/// thread's 8 MiB. Returns what `main` returned.
int runWithLargeStack(llvm::function_ref<int()> main);
} // namespace tessera

#endif // TESSERA_INITALLTESSERA_H
