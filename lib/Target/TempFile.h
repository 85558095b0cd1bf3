//===- TempFile.h - Temporary files of the target backends -----*- C++ -*-===//
//
// Private to lib/Target: the host and NVIDIA backends hand objects and PTX
// to external tools (ld.lld, ptxas) through temporary files.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_TARGET_TEMPFILE_H
#define TESSERA_LIB_TARGET_TEMPFILE_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

namespace tessera {
/// A temporary file removed when the object dies.
struct TempFile {
  llvm::SmallString<128> path;
  TempFile() = default;
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace tessera

#endif // TESSERA_LIB_TARGET_TEMPFILE_H
