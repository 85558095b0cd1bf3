//===- TileDialect.h - Tile dialect ----------------------------*- C++ -*-===//
//
// The tile DSL: dialect, types, attributes and operations.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TILE_TILEDIALECT_H
#define TESSERA_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessera/Layout/LinearLayout.h"

#include "tessera/Dialect/Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Tile/TileAttrs.h.inc"

// After the attributes: its discardable-attribute helpers name their types.
#include "tessera/Dialect/Tile/TileDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/Tile/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/Tile/TileOps.h.inc"

namespace tessera::tile {
/// True for the element types a view may hold.
bool isSupportedViewElementType(mlir::Type type);
/// Whether a view, buffer or tile of `element` and `shape` holds int4 nibble
/// pairs: a trailing dimension of the 2 codes that share one byte.
bool isNibblePairs(mlir::Type element, llvm::ArrayRef<int64_t> shape);
/// The span, in bytes, of the swizzle TMA moves a buffer of `type` in (a
/// tile.tma buffer): 128-byte panels where its stored rows are a multiple
/// of 128 bytes, else a 32- or 64-byte row whole; 0 where the buffer has
/// no TMA shape (2-D, rows of those sizes, a multiple of 8 and at most 256
/// rows: a box's limit).
int64_t tmaSwizzleSpan(SharedType type);
/// Whether a tile.copy gathers rows (`rows(...)`) into the shared buffer
/// `buffer`.
bool isGatheredInto(mlir::Value buffer);

/// The most dimensions a view has: what the runtime passes
/// (TESSERA_MAX_RANK).
constexpr unsigned kMaxViewRank = 4;
/// The largest shared buffer: below 2 GiB, which no chip reaches (the
/// runtime takes shared sizes below 2^31).
constexpr int64_t kMaxSharedBufferBytes = (int64_t(1) << 31) - 1;
/// The grids the runtime launches: at most 2^31 - 1 programs along x and
/// 65535 along y and z (CUDA's limits, which tesseraLaunch enforces).
constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
/// The most rows of tiles a persistent kernel's raster groups.
constexpr int64_t kMaxPersistentGroup = 65535;
/// The arguments tile-persistent appends and the runtime passes: the
/// launched grid's x, y, z and the program instances started.
constexpr unsigned kPersistentArguments = 4;
/// The warpgroup a warp-specialized kernel adds for its producer role, and
/// the registers of one SM (NVIDIA) that the roles' budgets share.
constexpr int64_t kProducerThreads = 128;
constexpr int64_t kRegisterFileSize = 65536;
/// The programs in one of `kernel`'s clusters (1 without `cluster(...)`).
int64_t clusterBlocks(KernelOp kernel);
/// Whether `kernel`'s programs share ring slots with their cluster:
/// multicast copies or `cluster` mbarrier arrays.
bool sharesWithCluster(KernelOp kernel);
/// The threads a kernel is launched with: its `threads`, plus the producer
/// warpgroup of a warp-specialized kernel.
int64_t launchedThreads(KernelOp kernel);
/// What a persistent kernel's argument `arg` holds (`tile.grid`: 0, 1, 2 a
/// grid dimension, 3 the programs started); none for other values.
std::optional<int64_t> persistentArgumentKind(mlir::Value arg);
/// Whether `kernel` takes the arguments of a persistent launch.
bool isPersistentKernel(KernelOp kernel);
} // namespace tessera::tile

#endif // TESSERA_DIALECT_TILE_TILEDIALECT_H
