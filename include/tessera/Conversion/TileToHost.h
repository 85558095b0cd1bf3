//===- TileToHost.h - Tile kernels to host code ----------------*- C++ -*-===//
//
// The host lowering is not a set of independent patterns: register tiles get
// buffers assigned across a whole kernel (with in-place accumulation), so the
// public face is one function per kernel plus the pass.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_TILETOHOST_H
#define TESSERA_CONVERSION_TILETOHOST_H

#include "tessera/Dialect/Tile/TileDialect.h"

#include <string>

namespace tessera {
/// The symbol of the host entry of kernel `name`.
std::string getHostEntryName(llvm::StringRef kernelName);

/// Replaces `kernel` by its host entry (see convert-tile-to-host).
mlir::LogicalResult lowerKernelToHost(tile::KernelOp kernel);
} // namespace tessera

#endif // TESSERA_CONVERSION_TILETOHOST_H
