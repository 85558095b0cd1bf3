//===- tessera-opt.cpp - Tessera optimizer driver ---------------*- C++ -*-===//
//
// An opt-style driver: parses .mlir files that mix the tile and tag dialects
// with upstream dialects, runs passes, and prints the result. Everything that
// MlirOptMain offers (--show-dialects, --verify-diagnostics,
// --split-input-file, --mlir-print-ir-after-all, crash reproducers) works.
//
//===----------------------------------------------------------------------===//

#include "tessera/InitAllTessera.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#ifdef TESSERA_INCLUDE_TESTS
#include "TestPasses.h"
#endif

int main(int argc, char **argv) {
  tessera::registerAllPasses();
#ifdef TESSERA_INCLUDE_TESTS
  tessera::test::registerTestPasses();
#endif
  mlir::DialectRegistry registry;
  tessera::registerAllDialects(registry);
  return tessera::runWithLargeStack([&] {
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, "Tessera optimizer driver\n", registry));
  });
}
