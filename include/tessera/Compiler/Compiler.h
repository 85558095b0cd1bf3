//===- Compiler.h - Tile kernels to a multi-target bundle ------*- C++ -*-===//
//
// The compile pipeline of Tessera as a library: parse .mlir inputs, run the
// requested tile passes, prove the tag invariants, compile every kernel for
// each target (host shared object; cubin, PTX and emulator image for
// NVIDIA chips; HSA code object and emulator image for AMD chips) and write
// one bundle. tessera-compile is a command-line shell over it; the Python
// package and the tests call it in process.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_COMPILER_COMPILER_H
#define TESSERA_COMPILER_COMPILER_H

#include "tessera/Target/Bundle.h"

#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tessera {

/// One input: the text of a .mlir file and the name diagnostics give it.
struct CompileInput {
  std::string name;
  std::string text;
};

/// What to compile for and how (tessera-compile's flags).
struct CompileOptions {
  /// host, sm_80, sm_90a, gfx942, gfx90a (each once).
  std::vector<std::string> targets;
  /// Tile passes run before the checker and the lowering, as a pass
  /// pipeline ("tile-pipeline,cse").
  std::string passes;
  /// Passes run on the per-thread GPU code before the vendor lowering.
  std::string gpuPasses;
  /// Prove the tag invariants (and fail with a counterexample where one
  /// does not hold).
  bool tagCheck = true;
  /// Z3's resource limit per tag-check query.
  unsigned tagCheckRlimit = 4000000;
  /// Empty for a bundle; "gpu", "llvm" or "ptx" for that intermediate form
  /// of the one GPU target instead.
  std::string emit;
  /// Report each GPU kernel's registers, spills and shared memory.
  bool resourceUsage = false;
  /// Ask for one more block per SM (wave per SIMD) where only registers
  /// prevent it and that adds no spills.
  bool raiseOccupancy = true;
  /// The ptxas that assembles cubins; empty for the one this build found
  /// (none: NVIDIA targets give PTX and emulator images only).
  std::string ptxas;
  /// The CPU the host and emulator images may assume.
  std::string hostCpu = "x86-64-v3";
};

/// What a compile produced.
struct CompileResult {
  /// The bundle (tessera/Target/Bundle.h), or the form `emit` asked for.
  std::string output;
  /// The kernels' launch metadata, for writeLaunchHeader.
  std::vector<KernelInfo> kernels;
  /// With resourceUsage: one line per GPU kernel and target.
  std::string resourceUsage;
};

/// The GPU chips this build compiles for.
llvm::ArrayRef<llvm::StringRef> compilerGpuTargets();

/// Registers the LLVM targets and every pass (for pass pipelines given as
/// text); idempotent and thread-safe. compileKernels calls it.
void initializeCompiler();

/// One line per target this build compiles for, with the images each
/// gives (`sm_80 sm_80-cubin sm_80-ptx emu-sm_80`, no cubin without a
/// ptxas; `gfx942 gfx942-hsaco emu-gfx942`).
std::string describeTargets(llvm::StringRef ptxas = "");

/// Compiles the kernels of `inputs` (merged into one module; kernel names
/// must be unique) as `options` ask. Diagnostics, with file:line:col and
/// the tag checker's counterexamples, go to `diagnostics`. Runs on a thread
/// with a large stack; the output is byte-identical for identical inputs
/// and options.
llvm::LogicalResult compileKernels(llvm::ArrayRef<CompileInput> inputs,
                                   const CompileOptions &options,
                                   CompileResult &result,
                                   llvm::raw_ostream &diagnostics);

/// Runs what compileKernels runs before the lowering (the tile passes and
/// tag-check; `options.targets` may be empty, and only say whose shared
/// memory the kernels must fit) and adds to `proofs` one line per kernel
/// with what tag-check proved (`tag-check: @k: 12 proved structurally, 3
/// by Z3, 0 failed; ...`). A refused kernel is an error with its
/// counterexample in `diagnostics`.
llvm::LogicalResult checkKernels(llvm::ArrayRef<CompileInput> inputs,
                                 const CompileOptions &options,
                                 std::vector<std::string> &proofs,
                                 llvm::raw_ostream &diagnostics);

} // namespace tessera

#endif // TESSERA_COMPILER_COMPILER_H
