//===- tessera-fuzz.cpp - libFuzzer target: parse + verify ------*- C++ -*-===//
//
// Feeds arbitrary bytes to the MLIR parser with the tile and tag dialects
// (and the upstream dialects the shipped kernels use) and verifies the
// result. Any input must give diagnostics, never a crash. Input that parses
// and verifies must print in a form that parses and verifies again.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;

// LLVM's headers poison and unpoison allocator memory by hand when they are
// compiled with AddressSanitizer, but libMLIR.so is not: its allocations would
// look like use-after-poison. Manual poisoning is off; ASan's own checks stay.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

static OwningOpRef<ModuleOp> parse(MLIRContext &context, StringRef text) {
  return parseSourceString<ModuleOp>(text, ParserConfig(&context));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DialectRegistry registry;
  registry.insert<tessera::tile::TileDialect, tessera::tag::TagDialect,
                  arith::ArithDialect, func::FuncDialect, math::MathDialect,
                  scf::SCFDialect, tensor::TensorDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  // Diagnostics are the expected outcome for most inputs; keep them quiet.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {});

  // The MLIR lexer relies on a NUL after the buffer, as files read through
  // llvm::MemoryBuffer have; libFuzzer's bytes have none, std::string does.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parse(context, text);
  if (!module)
    return 0;

  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  OwningOpRef<ModuleOp> reparsed = parse(context, printed);
  if (!reparsed) {
    fprintf(stderr, "verified IR did not survive a round trip:\n%s\n",
            printed.c_str());
    abort();
  }
  return 0;
}
