//===- HostLowering.h - State of one kernel's host lowering ----*- C++ -*-===//
//
// Private to lib/Conversion/TileToHost. TileToHost.cpp builds the entry and
// walks the kernel; HostMemory.cpp lowers data movement; HostCompute.cpp
// lowers compute on register tiles.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_CONVERSION_TILETOHOST_HOSTLOWERING_H
#define TESSERA_LIB_CONVERSION_TILETOHOST_HOSTLOWERING_H

#include "tessera/Conversion/Passes.h"
#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace tessera {

class HostLowering {
public:
  explicit HostLowering(tile::KernelOp kernel);
  mlir::LogicalResult run();

private:
  // --- Structure (TileToHost.cpp) ----------------------------------------
  mlir::LogicalResult lowerBlock(mlir::Block &block);
  mlir::LogicalResult lowerOp(mlir::Operation *op);
  mlir::LogicalResult lowerFor(mlir::scf::ForOp loop);
  /// An scf.if: each yielded tile is copied into the result's buffer.
  mlir::LogicalResult lowerIf(mlir::scf::IfOp branch);
  /// The buffer holding register tile `tile`, allocated on first use.
  mlir::Value buffer(mlir::Value tile);
  mlir::Value alloc(mlir::MemRefType type);
  mlir::Value scalar(mlir::Value value) { return mapping.lookup(value); }
  /// Whether `user`, the only reader of `tile`, may overwrite its buffer:
  /// only if `tile` is defined in the same block, so that no later loop
  /// iteration reads it again.
  static bool canReuse(mlir::Value tile, mlir::Operation *user);
  mlir::Value index(int64_t value);
  /// Loops over [0, sizes) (innermost last); `body` gets the induction
  /// variables.
  void loopNest(mlir::ArrayRef<mlir::Value> upperBounds,
                llvm::function_ref<void(mlir::ValueRange)> body);

  // --- Data movement (HostMemory.cpp) ------------------------------------
  /// A constant as the host stores it (fp8 as its bits).
  mlir::Value storedConstant(mlir::Attribute value);
  /// The padding `pad` (null: zero) of a buffer of `element`s.
  mlir::Value padValue(mlir::Type element, mlir::Attribute pad);
  /// Copies the tile of `view` at `offsets` into `dest` (padding out of
  /// bounds with `pad`) or, with `store`, `dest` into the view (masked).
  void viewTransfer(mlir::Value view, mlir::Type viewElement,
                    mlir::ValueRange offsets, mlir::Value tileBuffer,
                    mlir::Attribute pad, bool store);
  /// Element `indices` of a view; int4 views unpack their nibble.
  mlir::Value loadViewElement(mlir::Value view, mlir::Type viewElement,
                              mlir::ValueRange indices);
  void storeViewElement(mlir::Value view, mlir::Type viewElement,
                        mlir::ValueRange indices, mlir::Value value);
  /// The shared buffer `buffer`, or its slot for a ring.
  mlir::Value sharedTile(mlir::Value buffer, mlir::Value slot);
  mlir::Value viewElement(mlir::Value view, mlir::ValueRange offsets,
                          mlir::ValueRange ivs, mlir::Value rows,
                          llvm::SmallVectorImpl<mlir::Value> &viewIndex);
  void forEachElementInView(
      mlir::MemRefType tileType, mlir::Value view, mlir::ValueRange offsets,
      mlir::Value rows,
      llvm::function_ref<void(mlir::ValueRange, mlir::ValueRange)> body);
  mlir::LogicalResult lowerGather(tile::GatherOp op);
  /// Row r of `out` from row offsets[d] + rows[r] of `source` (d the
  /// dimension `out`'s first covers), `pad` where that lies outside.
  void gatherRows(mlir::Value source, mlir::ValueRange offsets,
                  mlir::Value rows, mlir::Value out, mlir::Attribute pad);
  mlir::LogicalResult lowerUnpack(tile::UnpackOp op);
  mlir::LogicalResult lowerAtomicAdd(tile::AtomicAddOp op);

  // --- Compute (HostCompute.cpp) -----------------------------------------
  mlir::LogicalResult lowerElementwise(mlir::Operation *op);
  mlir::LogicalResult lowerMma(tile::MmaOp op);
  mlir::LogicalResult lowerReduce(tile::ReduceOp op);
  mlir::LogicalResult lowerBroadcast(tile::BroadcastOp op);
  mlir::LogicalResult lowerDequant(tile::DequantOp op);
  mlir::LogicalResult lowerQuant(tile::QuantOp op);
  /// A tile's buffer, as f32 when the tile holds fp8 bits.
  mlir::Value realBuffer(mlir::Value tile);
  void fill(mlir::Value buffer, mlir::Value value);
  void copy(mlir::Value from, mlir::Value to);
  /// A copy of `matrix` (2-D) with its dimensions swapped.
  mlir::Value transposed(mlir::Value matrix);

  tile::KernelOp kernel;
  mlir::OpBuilder builder;
  mlir::Location loc;
  /// Scalars and views of the kernel -> values of the host function.
  mlir::IRMapping mapping;
  /// Register tiles and shared buffers -> memrefs.
  llvm::DenseMap<mlir::Value, mlir::Value> buffers;
  /// Where buffers are allocated (before the program loop) and freed.
  mlir::Operation *allocPoint = nullptr, *freePoint = nullptr;
  llvm::SmallVector<mlir::Value> allocated;
  /// Types of the views as the kernel declares them (element types of int4
  /// views differ from their memrefs').
  llvm::DenseMap<mlir::Value, mlir::Type> viewElements;
  mlir::Value programIds[3], gridSizes[3];
};

/// Register tiles and shared buffers of int4 codes hold one sign-extended
/// code per i8 on the host, fp8 (f8E4M3FN) its bits in an i8; everything
/// else keeps its element type.
mlir::Type getHostStorageType(mlir::Type element);

/// The memref a view argument becomes: dynamic strides, unit innermost
/// stride; int4 becomes i8 with the innermost size halved (rounded up),
/// fp8 i8.
mlir::MemRefType getHostViewType(tile::ViewType view);

} // namespace tessera

#endif // TESSERA_LIB_CONVERSION_TILETOHOST_HOSTLOWERING_H
