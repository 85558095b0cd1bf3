//===- TileAttrs.td - Tile dialect attributes --------------*- tablegen -*-===//

#ifndef TESSERA_TILE_ATTRS
#define TESSERA_TILE_ATTRS

include "Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

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

    Example:

    ```mlir
    scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
      ...
    } {tile.pipeline = #tile.pipeline<stages = 3>}
    ```
  }];
  let parameters = (ins "int64_t":$stages);
  let assemblyFormat = "`<` `stages` `=` $stages `>`";
  let genVerifyDecl = 1;
}

#endif // TESSERA_TILE_ATTRS
