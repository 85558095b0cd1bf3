//===- PassEnums.td - Enumerated pass options --------------*- tablegen -*-===//
//
// The closed choices of the tile-level passes' options. Each pass option of
// one of these types lists its spellings with `llvm::cl::values`, so the
// option parser rejects anything else before a pass runs.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TRANSFORMS_PASSENUMS
#define TESSERA_TRANSFORMS_PASSENUMS

include "mlir/IR/EnumAttr.td"

def QuantFormat : I32EnumAttr<"QuantFormat",
    "Number format of a quantized operand", [
  I32EnumAttrCase<"Real", 0, "real">,
  I32EnumAttrCase<"Int4", 1, "int4">,
  I32EnumAttrCase<"Int8", 2, "int8">,
  I32EnumAttrCase<"Fp8", 3, "fp8">
]> {
  let cppNamespace = "::tessera";
  let genSpecializedAttr = 0;
}

def QuantPlacement : I32EnumAttr<"QuantPlacement",
    "Where weight scales are applied", [
  I32EnumAttrCase<"Registers", 0, "registers">,
  I32EnumAttrCase<"PerGroup", 1, "per-group">,
  I32EnumAttrCase<"Auto", 2, "auto">
]> {
  let cppNamespace = "::tessera";
  let genSpecializedAttr = 0;
}

def ActivationScales : I32EnumAttr<"ActivationScales",
    "Where the per-token scales of quantized activations come from", [
  I32EnumAttrCase<"Tile", 0, "tile">,
  I32EnumAttrCase<"Token", 1, "token">
]> {
  let cppNamespace = "::tessera";
  let genSpecializedAttr = 0;
}

def PipelineScheduler : I32EnumAttr<"PipelineScheduler",
    "How tile-pipeline-schedule assigns stages", [
  I32EnumAttrCase<"Heuristic", 0, "heuristic">,
  I32EnumAttrCase<"Solver", 1, "solver">
]> {
  let cppNamespace = "::tessera";
  let genSpecializedAttr = 0;
}

#endif // TESSERA_TRANSFORMS_PASSENUMS
