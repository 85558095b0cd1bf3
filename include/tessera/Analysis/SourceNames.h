//===- SourceNames.h - Source-level names of SSA values --------*- C++ -*-===//
//
// The MLIR parser drops SSA names, but diagnostics should say `%k`, not
// `%arg3`. Values keep file:line:col locations, so the names are read back
// from the source text; values without one get their printed name.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_SOURCENAMES_H
#define TESSERA_ANALYSIS_SOURCENAMES_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace tessera::analysis {

class SourceNames {
public:
  /// `%name` as written in the source, or as MLIR prints the value.
  std::string get(mlir::Value value);

private:
  llvm::StringRef line(llvm::StringRef file, unsigned number);
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> files;
  llvm::DenseMap<mlir::Value, std::string> cache;
};

} // namespace tessera::analysis

#endif // TESSERA_ANALYSIS_SOURCENAMES_H
