//===- TileDialect.td - The tile DSL dialect ---------------*- tablegen -*-===//
//
// The `tile` dialect is Tessera's kernel language: one program instance works
// on whole tiles, shared memory and matrix instructions are explicit, and the
// compiler owns thread mapping, swizzles and fragment layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TILE_DIALECT
#define TESSERA_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tessera::tile";
  let summary = "A tile-level kernel language for GPUs and CPUs";
  let description = [{
    A `tile` kernel describes what one *program instance* computes, in the
    manner of a CUDA thread block or a Triton program. Its values are whole
    tiles:

    * `!tile.view<?x?xbf16>`: a strided view of global memory (the kernel's
      tensor arguments), with dynamic sizes;
    * `!tile.shared<128x64xbf16>`: a shared-memory (LDS) buffer, optionally a
      ring of stages for software pipelining;
    * builtin `tensor<128x64xf32>` values: register tiles. Elementwise math on
      them uses the upstream `arith` and `math` ops.

    Data movement (`tile.copy`, `tile.load`, `tile.store`, `tile.gather`,
    `tile.atomic_add`), matrix multiply-accumulate (`tile.mma`) and
    synchronisation (`tile.barrier`, `tile.async_commit`, `tile.async_wait`)
    are explicit, so an expert can write FlashAttention-class schedules.
    Thread indices, swizzles and fragment layouts are not: the compiler picks
    them. Policies such as the pipeline depth (`#tile.pipeline<stages = 3>`)
    or the matrix instruction (`kind wgmma`) are attributes that the passes
    honour.

    Loops are `scf.for`; data-flow invariants are written with the `tag`
    dialect and proved by `tessera-opt --tag-check`.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  // The dialect's discardable attributes; verifyOperationAttribute checks
  // where each may appear.
  let discardableAttrs = (ins
    // The K-loop policy tile-pipeline carries out (scf.for).
    "::tessera::tile::PipelineAttr":$pipeline,
    // The persistent-kernel policy tile-persistent carries out
    // (tile.kernel).
    "::tessera::tile::PersistentAttr":$persistent,
    // A kernel argument tile-persistent added, which the runtime passes:
    // the size of the launched grid along dimension 0, 1 or 2, or (3) the
    // number of program instances it started.
    "::mlir::IntegerAttr":$grid,
    // The chip a module is compiled for (builtin.module).
    "::mlir::StringAttr":$target,
    // The stored order of a shared buffer (tile.alloc_shared).
    "::tessera::tile::SwizzleAttr":$swizzle,
    // A shared buffer filled by TMA and read by wgmma (tile.alloc_shared):
    // 128-byte swizzled panels of 128-byte rows, 1024-byte aligned.
    "::mlir::UnitAttr":$tma,
    // The offset width tag-check proved sufficient for a view access.
    "::mlir::IntegerAttr":$index_bits,
    // A pipelined loop's schedule: per op, its estimated latency, stage and
    // order; per loop, its initiation interval.
    "::mlir::IntegerAttr":$latency,
    "::mlir::IntegerAttr":$stage,
    "::mlir::IntegerAttr":$order,
    "::mlir::IntegerAttr":$ii
  );
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TESSERA_TILE_DIALECT
