//===- TileAttrs.td - Tile dialect attributes --------------*- tablegen -*-===//

#ifndef TESSERA_TILE_ATTRS
#define TESSERA_TILE_ATTRS

include "Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

def Tile_Dim : I32EnumAttr<"Dim", "a grid dimension", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>
  ]> {
  let cppNamespace = "::tessera::tile";
}

def Tile_MmaKind : I32EnumAttr<"MmaKind", "matrix instruction policy", [
    I32EnumAttrCase<"automatic", 0, "auto">,
    I32EnumAttrCase<"mma_sync", 1>,
    I32EnumAttrCase<"wgmma", 2>,
    I32EnumAttrCase<"mfma", 3>
  ]> {
  // `auto` lets the target choose; `mma_sync` (NVIDIA sm_80+), `wgmma`
  // (NVIDIA sm_90a) and `mfma` (AMD CDNA) pin the instruction family.
  let cppNamespace = "::tessera::tile";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>
  ]> {
  let cppNamespace = "::tessera::tile";
}

def Tile_PipelineAttr : AttrDef<Tile_Dialect, "Pipeline"> {
  let mnemonic = "pipeline";
  let summary = "Software-pipelining policy of a K loop";
  let description = [{
    Placed on an `scf.for` as `tile.pipeline`, it asks the pipelining pass to
    turn the loop's shared buffers into `stages`-slot rings and to issue each
    copy `stages - 1` iterations ahead. `stages = 1` means no pipelining.

    With `warp_specialize = true` (sm_90a), the loop is split into roles
    instead: a producer warpgroup fills the `stages`-slot rings by TMA onto
    *full* mbarriers, and the kernel's threads (the consumers) wait for each
    slot, compute, and release it through an *empty* mbarrier
    (`tile.warp_specialize`). Where the target has no TMA the loop is
    pipelined as without it.

    Example:

    ```mlir
    scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
      ...
    } {tile.pipeline = #tile.pipeline<stages = 3>}
    ```
  }];
  let parameters = (ins "int64_t":$stages,
                        DefaultValuedParameter<"bool", "false">:$warpSpecialize);
  let assemblyFormat = [{
    `<` `stages` `=` $stages (`,` `warp_specialize` `=` $warpSpecialize^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_PersistentAttr : AttrDef<Tile_Dialect, "Persistent"> {
  let mnemonic = "persistent";
  let summary = "Persistent-kernel policy of a tile kernel";
  let description = [{
    Placed on a `tile.kernel` as `tile.persistent`, it asks `tile-persistent`
    to run the kernel as a persistent one: the runtime launches at most as
    many program instances as the device keeps resident (multiprocessors
    times blocks per multiprocessor), and each loops over the tiles of the
    grid the caller launched, in a rasterized order: `group` consecutive
    `x` coordinates (rows of output tiles) are walked together, `y` within
    each group, so that the instances running at once share the operands
    of few rows and columns in L2. The body is written once, per tile, with
    `tile.program_id` and `tile.num_programs` as before.

    With `pingpong = true` (warp-specialized kernels), the kernel's
    `tile.warp_specialize` takes the ping-pong schedule: two consumer
    warpgroups own alternate tiles, so that one's epilogue overlaps the
    other's main loop.

    Example:

    ```mlir
    tile.kernel @gemm(...) threads(256)
        attributes {tile.persistent = #tile.persistent<group = 8>} { ... }
    ```
  }];
  let parameters = (ins "int64_t":$group,
                        DefaultValuedParameter<"bool", "false">:$pingpong);
  let assemblyFormat = [{
    `<` `group` `=` $group (`,` `pingpong` `=` $pingpong^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_LinearLayoutAttr : AttrDef<Tile_Dialect, "LinearLayout", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "linear";
  let summary = "Distributed layout of a register tile (an F2 linear map)";
  let description = [{
    The encoding of a register tile after `tile-assign-layouts`: which
    element each register of each lane of each warp holds. Tile dimensions
    are powers of two, so coordinates are bit vectors and the layout is a
    linear map over F2: the element at (register r, lane l, warp w) is the
    XOR of the bases of the set bits of r, l and w. A zero basis is a
    declared broadcast (several holders of one element).

    The verifier proves that the layout covers its tile exactly: every
    element has a holder and two holders of one element differ only in
    broadcast bits.

    Example (the accumulator of one `mma.sync.m16n8k16`):

    ```mlir
    tensor<16x8xf32, #tile.linear<register = [[0, 1], [8, 0]],
        lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$registerBases,
                        ArrayRefParameter<"int64_t">:$laneBases,
                        ArrayRefParameter<"int64_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout as an F2 map over a tile of `shape`.
    ::tessera::LinearLayout toLinearLayout(::llvm::ArrayRef<int64_t> shape) const;
    static LinearLayoutAttr get(::mlir::MLIRContext *context,
                                const ::tessera::LinearLayout &layout);
  }];
}

def Tile_SwizzleAttr : AttrDef<Tile_Dialect, "Swizzle"> {
  let mnemonic = "swizzle";
  let summary = "XOR swizzle of a shared buffer's 16-byte chunks";
  let description = [{
    Placed on a `tile.alloc_shared` as `tile.swizzle` by
    `tile-assign-layouts`: element (row, col) of each 2-D slot is stored at
    column `((col / vec) xor ((row / per_phase) mod max_phase)) * vec +
    col mod vec`. Writers and readers of the buffer all apply it, so reads
    of one chunk from 8 consecutive rows hit distinct banks.

    ```mlir
    %sB = tile.alloc_shared {tile.swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>}
        : !tile.shared<64x128xbf16, stages = 3>
    ```
  }];
  let parameters = (ins "int64_t":$vec, "int64_t":$perPhase,
                        "int64_t":$maxPhase);
  let extraClassDeclaration = [{
    ::tessera::Swizzle toSwizzle() const {
      return {getVec(), getPerPhase(), getMaxPhase()};
    }
  }];
  let assemblyFormat = [{
    `<` `vec` `=` $vec `,` `per_phase` `=` $perPhase `,` `max_phase` `=`
    $maxPhase `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TESSERA_TILE_ATTRS
