//===- TileTypes.td - Tile dialect types -------------------*- tablegen -*-===//

#ifndef TESSERA_TILE_TYPES
#define TESSERA_TILE_TYPES

include "Tile/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_ViewType : Tile_Type<"View", "view"> {
  let summary = "strided view of global memory (!tile.view)";
  let description = [{
    The type of a kernel's tensor arguments: an N-dimensional window of global
    memory with per-dimension sizes and strides known at run time. Static sizes
    may be given where the caller guarantees them; `?` is a dynamic size. The
    innermost dimension is contiguous.

    Element types: `f32`, `f16`, `bf16`, `f8E4M3FN`, `f8E5M2`, `i8`, `i4`
    (two codes packed per byte, low nibble first), `i32` and `i64`.

    Example:

    ```mlir
    !tile.view<?x?xbf16>        // a matrix of any size
    !tile.view<?x?x64xbf16>     // [batch*heads, seq, 64]
    !tile.view<?x?xi4>          // packed int4 weights
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
  }];
}

def Tile_SharedType : Tile_Type<"Shared", "shared"> {
  let summary = "shared-memory buffer (!tile.shared)";
  let description = [{
    A statically shaped buffer in the program instance's shared memory
    (`__shared__` on NVIDIA, LDS on AMD). With `stages = S` it is a ring of S
    such tiles; copies and loads then name the slot they use. Rings are what
    the software-pipelining pass produces from plain buffers.

    Example:

    ```mlir
    !tile.shared<128x64xbf16>              // one tile
    !tile.shared<128x64xbf16, stages = 3>  // a 3-slot ring
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"int64_t", "0">:$stages);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    bool isRing() const { return getStages() > 0; }
    /// Bytes of shared memory the whole buffer (all slots) occupies.
    int64_t getSizeInBytes() const;
    /// The tile as memory holds it (without the slot dimension): int4
    /// nibble pairs `[.., n, 2]` are `[.., n]` bytes, other tiles their own
    /// shape.
    ::llvm::SmallVector<int64_t> getStoredShape() const;
    /// The bits of one stored element: 8 for int4 nibble pairs.
    unsigned getStoredElementBits() const;
  }];
}

def Tile_MbarrierType : Tile_Type<"Mbarrier", "mbarrier"> {
  let summary = "an array of shared-memory barriers with phases (!tile.mbarrier)";
  let description = [{
    `slots` barriers in shared memory, one per slot of the rings they guard
    (PTX `mbarrier`). Each has an arrival count (`tile.alloc_mbarrier`) and
    a phase: once as many arrivals as its count have happened (and the
    asynchronous copies they follow have landed), the phase completes and
    its parity flips. `tile.mbarrier_wait` waits for the phase of a parity
    to complete. Warp-specialized kernels hand ring slots between their
    roles with two such arrays: *full* (filled, the producer arrives) and
    *empty* (released, the consumers arrive).

    Example:

    ```mlir
    !tile.mbarrier<4>   // one barrier per slot of a 4-slot ring
    ```
  }];
  let parameters = (ins "int64_t":$slots);
  let assemblyFormat = "`<` $slots `>`";
  let genVerifyDecl = 1;
}

#endif // TESSERA_TILE_TYPES
