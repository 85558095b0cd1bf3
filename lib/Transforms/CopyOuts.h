//===- CopyOuts.h - How tile.copy_out runs on a chip ------------*- C++ -*-===//
//
// Internal to lib/Transforms: tile-assign-layouts' first step.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_TRANSFORMS_COPYOUTS_H
#define TESSERA_LIB_TRANSFORMS_COPYOUTS_H

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Target/TargetInfo.h"

namespace tessera {

/// Decides how each tile.copy_out of `kernel` runs on `target`: out of a
/// buffer that a TMA store can read (sm_90a; the buffer written only by
/// tile.store of register tiles and read only by copies out into 2-D or
/// 3-D kernel arguments; rows of 32, 64 or a multiple of 128 bytes, a
/// multiple of 8 and at most 256 of them), the buffer is marked tile.tma
/// and the copy stays for convert-tile-to-gpu; any other copy out becomes
/// a tile.store into the view of the tile one earlier store in its block
/// alone put into the buffer (the buffer goes when nothing else uses it),
/// or else of a tile.load of the buffer.
void planCopyOuts(tile::KernelOp kernel, const TargetInfo &target);

} // namespace tessera

#endif // TESSERA_LIB_TRANSFORMS_COPYOUTS_H
