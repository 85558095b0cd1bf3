//===- TileOps.td - Tile dialect operations ----------------*- tablegen -*-===//

#ifndef TESSERA_TILE_OPS
#define TESSERA_TILE_OPS

include "Tile/TileDialect.td"
include "Tile/TileTypes.td"
include "Tile/TileAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// A register tile: a statically shaped builtin tensor.
def Tile_Tensor : StaticShapeTensorOf<[AnyType]>;
def Tile_Memory : AnyTypeOf<[Tile_ViewType, Tile_SharedType]>;
def Tile_IndexTile : 1DTensorOf<[AnySignlessInteger, Index]>;

//===----------------------------------------------------------------------===//
// Kernel structure
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove
  ]> {
  let summary = "A tile kernel: the program one instance of the grid runs";
  let description = [{
    A kernel is launched over a grid of program instances
    (`tile.num_programs`); each instance learns its coordinates from
    `tile.program_id`. Arguments are global-memory views (`!tile.view`) and
    scalars (`index`, integers, floats). A kernel returns nothing: results
    are written through its views.

    Attributes:
    * `threads` (required): threads per program instance on a GPU, a multiple
      of 32 between 32 and 1024. The compiler maps tiles onto them.
    * `cluster` (optional): a thread-block cluster shape of 1 to 3 positive
      entries whose product is at most 16 (NVIDIA sm_90a).

    Example:

    ```mlir
    tile.kernel @axpy(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>, %a: f32)
        threads(128) {
      %pid = tile.program_id x
      %c256 = arith.constant 256 : index
      %off = arith.muli %pid, %c256 : index
      %x = tile.load %X[%off] : !tile.view<?xf32> -> tensor<256xf32>
      %y = tile.load %Y[%off] : !tile.view<?xf32> -> tensor<256xf32>
      %as = tile.splat %a : f32 -> tensor<256xf32>
      %ax = arith.mulf %as, %x : tensor<256xf32>
      %r = arith.addf %ax, %y : tensor<256xf32>
      tile.store %r -> %Y[%off] : tensor<256xf32> -> !tile.view<?xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       I64Attr:$threads,
                       OptionalAttr<DenseI32ArrayAttr>:$cluster);
  let regions = (region AnyRegion:$body);
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_ReturnOp : Tile_Op<"return", [
    Pure, HasParent<"KernelOp">, ReturnLike, Terminator
  ]> {
  let summary = "Ends a tile kernel";
  let description = [{
    The terminator of a `tile.kernel` body. It takes no operands: kernels
    communicate through their views.

    ```mlir
    tile.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "This program instance's coordinate in the grid";
  let description = [{
    Returns the index of the running program instance along grid dimension
    `x`, `y` or `z` (like CUDA's `blockIdx`).

    ```mlir
    %pid_m = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_Dim:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "The number of program instances along a grid dimension";
  let description = [{
    Returns the grid size along `x`, `y` or `z` (like CUDA's `gridDim`).

    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins Tile_Dim:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_TileCoordsOp : Tile_Op<"tile_coords", [Pure]> {
  let summary = "The grid coordinates of a persistent kernel's tile";
  let description = [{
    Returns the coordinates (x, y, z), in a grid of `gx` x `gy` x `gz`
    tiles, of tile number `t mod (gx gy gz)` in grouped raster order: z
    slowest; within one z, groups of `group` consecutive x coordinates (the
    last group takes what is left), x fastest within a group, then y.
    `tile-persistent` computes each tile's program coordinates with it.
    With positive grid sizes each coordinate lies in [0, g) and the tiles
    0 .. gx gy gz - 1 take every coordinate triple once; `tag-check`
    assumes the range (the unit tests check both over grids and groups).

    ```mlir
    %x, %y, %z = tile.tile_coords %t of (%gx, %gy, %gz) group 8
    ```
  }];
  let arguments = (ins Index:$tile, Index:$gridX, Index:$gridY,
                       Index:$gridZ, I64Attr:$group);
  let results = (outs Index:$x, Index:$y, Index:$z);
  let assemblyFormat = [{
    $tile `of` `(` $gridX `,` $gridY `,` $gridZ `)` `group` $group attr-dict
  }];
  let extraClassDeclaration = [{
    /// The coordinates as unsigned index arithmetic, from `operands` (the
    /// op's operands, or what a lowering maps them to), built at `b`.
    std::array<::mlir::Value, 3> expand(::mlir::OpBuilder &b,
                                        ::mlir::ValueRange operands);
  }];
  let hasVerifier = 1;
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "The size of one dimension of a view";
  let description = [{
    Returns the run-time size of dimension `dimension` of a view. It folds to
    a constant when that size is static.

    ```mlir
    %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, I64Attr:$dimension);
  let results = (outs Index:$result);
  let assemblyFormat = "$view `,` $dimension attr-dict `:` qualified(type($view))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared", [HasParent<"KernelOp">]> {
  let summary = "Allocates a shared-memory buffer for the program instance";
  let description = [{
    Reserves a statically sized shared-memory (LDS) buffer that lives for the
    whole kernel. It must appear directly in the kernel body (not inside a
    loop), so the total shared-memory footprint is known at compile time.

    ```mlir
    %sA = tile.alloc_shared : !tile.shared<128x64xbf16>
    %ring = tile.alloc_shared : !tile.shared<128x64xbf16, stages = 3>
    ```
  }];
  let results = (outs Res<Tile_SharedType, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "Copies a tile of global memory into a shared buffer";
  let description = [{
    Copies the tile of `source` that starts at `offsets` (one per view
    dimension) into the shared buffer `dest`. A shared tile of rank r takes
    the r innermost dimensions of the view; the leading offsets select the
    outer coordinates. Elements outside the view are filled with `pad`
    (zero by default), so ragged edges need no masks.

    With `rows(%ids : tensor<Rxi32>)` the copy gathers: row `r` of the
    shared tile is row `offsets[d] + ids[r]` of the view, where `d` is the
    view dimension the tile's first dimension covers (as for `tile.gather`);
    rows whose index is negative or past the end of the view are filled
    with `pad`. The rows move as the tile's do (16-byte `cp.async` chunks on
    NVIDIA, buffer loads on AMD), so an MMA reads gathered rows from shared
    memory: MoE's token rows, paged KV blocks.

    For a ring buffer the slot to fill is given in brackets. With `async` the
    copy is issued asynchronously (`cp.async`, TMA, buffer loads to LDS): it
    joins the current commit group and its data may only be read after the
    `tile.async_wait` that retires the group and a `tile.barrier`. Without
    `async` the data is visible after the next `tile.barrier`.

    With `multicast` (an asynchronous fill of a ring by the producer role of
    a kernel launched in clusters) every program of the cluster copies the
    same window (tag-check proves it) and each receives the whole tile
    while issuing only its share of it: the programs' copies are multicast
    to all of them. The slot's releases then come from every program of the
    cluster (the barriers the producer waits on before the fill are
    `cluster` ones).

    ```mlir
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
    tile.copy %A[%m0, %k] -> %ring[%slot] async
        : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16, stages = 3>
    tile.copy %X[%c0, %k] rows(%tok : tensor<64xi32>) -> %ring[%slot] async
        : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16, stages = 3>
    ```
  }];
  let arguments = (ins Arg<Tile_ViewType, "", [MemRead]>:$source,
                       Variadic<Index>:$offsets,
                       Optional<Tile_IndexTile>:$rows,
                       Arg<Tile_SharedType, "", [MemWrite]>:$dest,
                       Optional<Index>:$slot,
                       UnitAttr:$async,
                       UnitAttr:$multicast,
                       OptionalAttr<TypedAttrInterface>:$pad);
  let assemblyFormat = [{
    $source `[` $offsets `]` (`rows` `(` $rows^ `:` type($rows) `)`)? `->`
    $dest (`[` $slot^ `]`)? (`async` $async^)?
    (`multicast` $multicast^)?
    (`pad` `(` $pad^ `)`)? attr-dict `:` qualified(type($source)) `->` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Tile_CopyOutOp : Tile_Op<"copy_out", [AttrSizedOperandSegments]> {
  let summary = "Copies a shared buffer into a tile of global memory";
  let description = [{
    The mirror of `tile.copy`: writes the shared buffer `source` (a ring's
    slot in brackets) into the tile of `dest` that starts at `offsets`.
    Elements that fall outside the view are not written (ragged edges are
    masked). The buffer's contents must be visible to all threads, as for a
    `tile.load` from it (a `tile.barrier` after the stores into it).

    With `async` the copy joins the current commit group and goes on in
    the background (a TMA store on sm_90a, where the buffer is stored the
    way TMA reads it): the buffer may only be written again after the
    `tile.async_wait` that retires the group and a `tile.barrier`. The
    kernel's end waits for every copy. Without `async` the buffer may be
    written again after the next `tile.barrier`. On targets without bulk
    stores the threads copy the tile themselves. In a warp-specialized
    kernel the consumers copy out (the producer role only fills rings).

    ```mlir
    tile.store %c -> %sC : tensor<128x128xbf16> -> !tile.shared<128x128xbf16>
    tile.barrier
    tile.copy_out %sC -> %C[%m0, %n0] async
        : !tile.shared<128x128xbf16> -> !tile.view<?x?xbf16>
    tile.async_commit
    ```
  }];
  let arguments = (ins Arg<Tile_SharedType, "", [MemRead]>:$source,
                       Optional<Index>:$slot,
                       Arg<Tile_ViewType, "", [MemWrite]>:$dest,
                       Variadic<Index>:$offsets,
                       UnitAttr:$async);
  let assemblyFormat = [{
    $source (`[` $slot^ `]`)? `->` $dest `[` $offsets `]` (`async` $async^)?
    attr-dict `:` qualified(type($source)) `->` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load"> {
  let summary = "Loads a register tile from a view or a shared buffer";
  let description = [{
    From a view, the indices are the tile's offsets (one per view dimension);
    the result of rank r covers the r innermost view dimensions and elements
    outside the view read as `pad` (zero by default).

    From a shared buffer the whole tile is loaded; the result must have the
    buffer's shape. A ring names its slot as the only index.

    ```mlir
    %q = tile.load %Q[%bh, %m0, %c0] : !tile.view<?x?x64xbf16> -> tensor<128x64xbf16>
    %a = tile.load %sA : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
    %b = tile.load %ring[%slot] : !tile.shared<64x128xbf16, stages = 3> -> tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins Arg<Tile_Memory, "", [MemRead]>:$source,
                       Variadic<Index>:$indices,
                       OptionalAttr<TypedAttrInterface>:$pad);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $source (`[` $indices^ `]`)? (`pad` `(` $pad^ `)`)? attr-dict `:`
    qualified(type($source)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store"> {
  let summary = "Stores a register tile into a view or a shared buffer";
  let description = [{
    The mirror of `tile.load`. Into a view, the indices are the tile's offsets
    and elements that fall outside the view are not written (ragged edges
    are masked). Into a shared buffer the whole tile is written; a ring names
    its slot.

    ```mlir
    tile.store %c -> %C[%m0, %n0] : tensor<128x128xbf16> -> !tile.view<?x?xbf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value,
                       Arg<Tile_Memory, "", [MemWrite]>:$dest,
                       Variadic<Index>:$indices);
  let assemblyFormat = [{
    $value `->` $dest (`[` $indices^ `]`)? attr-dict `:` type($value) `->`
    qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather"> {
  let summary = "Loads rows of a view chosen by an index tile";
  let description = [{
    Row `r` of the result is row `offsets[d] + rows[r]` of the view, where
    `d` is the view dimension that the result's first dimension covers; the
    other dimensions are read as by `tile.load`. Rows whose index is negative
    or past the end of the view read as `pad` (zero by default): MoE
    alignment pads each expert's run with such sentinel ids.

    ```mlir
    %x = tile.gather %X[%c0, %k] rows(%tok) : !tile.view<?x?xbf16>, tensor<64xi32> -> tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins Arg<Tile_ViewType, "", [MemRead]>:$source,
                       Variadic<Index>:$offsets,
                       Tile_IndexTile:$rows,
                       OptionalAttr<TypedAttrInterface>:$pad);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $source `[` $offsets `]` `rows` `(` $rows `)` (`pad` `(` $pad^ `)`)?
    attr-dict `:` qualified(type($source)) `,` type($rows) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [AttrSizedOperandSegments]> {
  let summary = "Atomically adds a register tile into a view";
  let description = [{
    Adds `value` element-wise into the view at `offsets`, atomically with
    respect to other program instances (split-K reduction, MoE combine).
    Elements outside the view are skipped. With `rows(%ids)`, row `r` goes
    to row `offsets[d] + ids[r]` of the view instead (a scatter); negative or
    out-of-range ids are skipped.

    ```mlir
    tile.atomic_add %y -> %Out[%c0, %n0] rows(%tok : tensor<64xi32>)
        : tensor<64x128xf32> -> !tile.view<?x?xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value,
                       Arg<Tile_ViewType, "", [MemRead, MemWrite]>:$dest,
                       Variadic<Index>:$offsets,
                       Optional<Tile_IndexTile>:$rows);
  let assemblyFormat = [{
    $value `->` $dest `[` $offsets `]` (`rows` `(` $rows^ `:` type($rows) `)`)?
    attr-dict `:` type($value) `->` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_MmaOp : Tile_Op<"mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "Matrix multiply-accumulate of register tiles";
  let description = [{
    Computes `a · b + acc` with `a` of shape MxK (KxM with `transpose_a`),
    `b` of shape KxN (NxK with `transpose_b`) and `acc` of shape MxN.

    Operand and accumulator element types: `f16`/`bf16`/`f32` with an `f32`
    accumulator (`f16` also with `f16`), `f8E4M3FN`/`f8E5M2` in any pairing
    with `f32`, `i8` with `i32`. `kind` pins the instruction family (`auto`
    when absent).

    ```mlir
    %c1 = tile.mma %a, %b, %c0 : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %s = tile.mma %q, %k, %z kind wgmma transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc,
                       OptionalAttr<Tile_MmaKind>:$kind,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`kind` $kind^)? (`transpose_a` $transpose_a^)?
    (`transpose_b` $transpose_b^)? attr-dict `:` type($a) `,` type($b) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "Reduces a tile along one dimension";
  let description = [{
    Combines the elements along `dim` with `sum`, `max` or `min`; the result
    drops that dimension.

    ```mlir
    %m = tile.reduce max %s dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Tensor:$input,
                       I64Attr:$dim);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $kind $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Broadcasts a tile along new or unit dimensions";
  let description = [{
    Repeats the input along the result dimensions listed in `dims` (sorted,
    in result numbering). With a lower-rank input, those dimensions are
    inserted and every other result dimension equals the input's in order.
    With an input of the result's rank, those dimensions have size 1 in the
    input and are expanded; the others are equal.

    ```mlir
    %mb = tile.broadcast %m dims [1] : tensor<128xf32> -> tensor<128x64xf32>
    %sb = tile.broadcast %s dims [0, 1] : tensor<1x1xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "Moves a register tile from one layout to another";
  let description = [{
    The result holds the source's elements in another `#tile.linear`
    layout; both types carry one. `tile-assign-layouts` inserts it where a
    tile is needed in two layouts (an operand laid out otherwise by its
    producer, a loop-carried tile, an MMA operand shared by two MMAs);
    `convert-tile-to-gpu` lowers it cheapest first: nothing when the
    layouts are equal, register renaming when every thread holds the same
    elements, otherwise a round trip through shared memory.

    ```mlir
    %b = tile.convert_layout %a : tensor<64x64xbf16, #tile.linear<...>>
        -> tensor<64x64xbf16, #tile.linear<...>>
    ```
  }];
  let arguments = (ins Tile_Tensor:$source);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "Makes a tile whose every element is one scalar";
  let description = [{
    ```mlir
    %neg_inf = arith.constant 0xFF800000 : f32
    %m0 = tile.splat %neg_inf : f32 -> tensor<128xf32>
    ```
    A splat of a constant folds to a dense constant.
  }];
  let arguments = (ins AnyTypeOf<[AnyFloat, AnySignlessInteger, Index]>:$value);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "The 1-D tile 0, 1, 2, ...";
  let description = [{
    Element `i` of the result is `i`. Combined with `tile.broadcast` and a
    splat offset it gives every element its row or column coordinate, e.g.
    for causal masks.

    ```mlir
    %rows = tile.iota : tensor<128xi32>
    ```
  }];
  let results = (outs 1DTensorOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_SelectOp : Tile_Op<"select", [
    Pure, AllTypesMatch<["true_value", "false_value", "result"]>
  ]> {
  let summary = "Element-wise choice between two tiles";
  let description = [{
    Element `e` of the result is `true_value[e]` where `condition[e]` holds,
    else `false_value[e]`. Folds when the condition is a splat constant or
    both choices are the same value.

    ```mlir
    %s2 = tile.select %keep, %s, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    ```
  }];
  let arguments = (ins TensorOf<[I1]>:$condition, Tile_Tensor:$true_value,
                       Tile_Tensor:$false_value);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "Synchronises the threads of the program instance";
  let description = [{
    All threads of the program instance wait here; shared-memory writes made
    before it (and retired asynchronous copies) are visible after it.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit"> {
  let summary = "Closes the current group of asynchronous copies";
  let description = [{
    Every `tile.copy ... async` issued since the previous commit joins one
    group; `tile.async_wait` retires groups in order. The pipelining pass
    inserts these; they may also be written by hand.

    ```mlir
    tile.async_commit
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait"> {
  let summary = "Waits until at most `pending` copy groups are in flight";
  let description = [{
    Blocks until no more than `pending` committed groups of asynchronous
    copies are outstanding (PTX `cp.async.wait_group`, AMD `s_waitcnt
    vmcnt`). A `tile.barrier` must follow before other threads read the data.

    ```mlir
    tile.async_wait 1
    ```
  }];
  let arguments = (ins I64Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Tile_AllocMbarrierOp : Tile_Op<"alloc_mbarrier", [HasParent<"KernelOp">]> {
  let summary = "Allocates an array of mbarriers in shared memory";
  let description = [{
    One barrier per slot, each completing a phase after `arrivals`
    `tile.mbarrier_arrive`s on it (counted per role at the tile level: the
    compiler scales the count to the threads that arrive). Barriers start
    in phase 0, with phase -1 (parity 1) taken as complete, so that a first
    wait for parity 1 returns at once.

    A `cluster` array (in a kernel launched in clusters) is one per program
    of the cluster, arrived on together: an arrival on slot s arrives on
    slot s of every program's array, and a phase completes once every
    program's arrivals came (the consumers' releases of ring slots that
    multicast copies fill).

    ```mlir
    %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<4>
    %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins I64Attr:$arrivals, UnitAttr:$cluster);
  let results = (outs Res<Tile_MbarrierType, "", [MemAlloc]>:$result);
  let assemblyFormat = "`arrivals` `(` $arrivals `)` (`cluster` $cluster^)? "
                       "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_MbarrierArriveOp : Tile_Op<"mbarrier_arrive"> {
  let summary = "Arrives on one barrier of an mbarrier array";
  let description = [{
    Counts one arrival on barrier `slot`, once everything the role did
    before it is complete: the asynchronous copies it issued since its
    previous arrival have landed (they complete on this barrier: a
    producer's TMA fills), and its reads of shared memory are done (a
    consumer's MMAs on a ring slot have retired). The role's threads arrive
    together, as one tile-level arrival.

    ```mlir
    tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<4>
    ```
  }];
  let arguments = (ins Arg<Tile_MbarrierType, "", [MemWrite]>:$barrier,
                       Index:$slot);
  let assemblyFormat =
      "$barrier `[` $slot `]` attr-dict `:` qualified(type($barrier))";
}

def Tile_MbarrierWaitOp : Tile_Op<"mbarrier_wait"> {
  let summary = "Waits for a phase of one barrier to complete";
  let description = [{
    Blocks until the phase of barrier `slot` whose parity is `parity` has
    completed (PTX `mbarrier.try_wait.parity`); what the arrivals of that
    phase followed (copies landed, reads retired) is then visible to the
    waiting role.

    ```mlir
    tile.mbarrier_wait %full[%slot], parity %p : !tile.mbarrier<4>
    ```
  }];
  // A wait orders what follows it: never dead, never moved across.
  let arguments = (ins Arg<Tile_MbarrierType, "", [MemRead, MemWrite]>:$barrier,
                       Index:$slot, I1:$parity);
  let assemblyFormat = [{
    $barrier `[` $slot `]` `,` `parity` $parity attr-dict `:`
    qualified(type($barrier))
  }];
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    HasParent<"KernelOp">, NoTerminator, SingleBlock
  ]> {
  let summary = "Splits a kernel into a producer warpgroup and consumers";
  let description = [{
    The kernel's `threads` run the `consumer` region; one extra warpgroup
    (128 threads, launched after them) runs the `producer` region, in which
    one thread issues the copies. Code before the op runs on all threads.
    The roles exchange data only through ring buffers handed over with
    mbarriers: the producer waits for a slot's *empty* barrier, copies into
    the slot asynchronously and arrives on its *full* barrier; the
    consumers wait for the *full* barrier, read the slot and arrive on the
    *empty* one. A `tile.barrier` in the consumer region synchronizes the
    consumers only; the producer has none.

    `registers(P, C)` are the per-thread register budgets the roles switch
    to on entry (PTX `setmaxnreg`): multiples of 8 in [24, 256] whose total
    over the producer's 128 and the consumers' threads fits the 65,536
    registers of an SM.

    tag-check proves the hand-over protocol (`docs/invariants.md`) and the
    host runs the roles' loops interleaved, iteration by iteration.

    `pingpong` (persistent kernels, whose roles loop over tiles: set by
    `tile-persistent` from `#tile.persistent<..., pingpong = true>`)
    launches two consumer warpgroups of the kernel's `threads` each, which
    take the tiles of the consumer's tile loop alternately: each runs the
    consumer region for its own tiles (with its own thread ids from 0, its
    own named barrier and copies of the shared memory the consumers write),
    skipping the others' but counting their main-loop iterations, and the
    two run their main loops in tile order (one's epilogue overlaps the
    other's MMAs). Every ring slot is released by the one warpgroup that
    read it, so the consumers' arrival counts are those of one warpgroup.

    ```mlir
    tile.warp_specialize registers(40, 232) producer {
      scf.for %k = %c0 to %K step %c64 { ... }
    } consumer {
      %acc = scf.for %k = %c0 to %K step %c64 iter_args(...) { ... }
      ...
    }
    ```
  }];
  let arguments = (ins I64Attr:$producerRegisters, I64Attr:$consumerRegisters,
                       UnitAttr:$pingpong);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = [{
    `registers` `(` $producerRegisters `,` $consumerRegisters `)`
    (`pingpong` $pingpong^)? `producer` $producer `consumer` $consumer
    attr-dict
  }];
  let extraClassDeclaration = [{
    /// The consumer warpgroup sets launched: 2 with `pingpong`, else 1.
    int64_t getConsumerGroups() { return getPingpong() ? 2 : 1; }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def Tile_DequantOp : Tile_Op<"dequant", [Pure]> {
  let summary = "Turns quantized codes into real values with group scales";
  let description = [{
    Element `e` of the result is `(codes[e] - zeros[g]) * scales[g]` (without
    `zeros`: `codes[e] * scales[g]`), where `g = e floordiv group`
    element-wise. Codes are `i4`, `i8`, `f8E4M3FN` or `f8E5M2`; scales and the
    result are floats. Each scale dimension is `ceildiv(codes dim, group)`,
    and in each dimension the tile holds whole groups or lies inside one
    group (group size a multiple of the tile size).

    ```mlir
    %w = tile.dequant %q, %s group [128, 1]
        : tensor<128x128xi4>, tensor<1x128xf16> -> tensor<128x128xbf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$codes, Tile_Tensor:$scales,
                       Optional<Tile_Tensor>:$zeros,
                       DenseI64ArrayAttr:$group);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $codes `,` $scales (`,` $zeros^)? `group` $group attr-dict `:`
    type($codes) `,` type($scales) (`,` type($zeros)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_QuantOp : Tile_Op<"quant", [Pure]> {
  let summary = "Quantizes a real tile with one symmetric scale per group";
  let description = [{
    Computes one scale per group (`max |x| / max code`) and the codes
    `round(x / scale)`, saturated to the code type. `group [1, K]` is
    per-token activation quantization; `group [M, K]` is per-tile.

    ```mlir
    %q, %s = tile.quant %x group [1, 128]
        : tensor<64x128xbf16> -> tensor<64x128xi8>, tensor<64x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$input, DenseI64ArrayAttr:$group);
  let results = (outs Tile_Tensor:$codes, Tile_Tensor:$scales);
  let assemblyFormat = [{
    $input `group` $group attr-dict `:` type($input) `->` type($codes) `,`
    type($scales)
  }];
  let hasVerifier = 1;
}

def Tile_UnpackOp : Tile_Op<"unpack", [Pure]> {
  let summary = "Interleaves packed sub-byte codes into a tile";
  let description = [{
    The input's trailing dimension holds the `P` codes that share one
    storage unit (a byte of two int4 codes: `P = 2`), in storage order; the
    result has one dimension less and dimension `dim` `P` times longer:
    `result[..., i * P + p, ...] = input[..., i, ..., order[p]]`. `order`
    is a permutation of `[0, P)`: the storage position of the `p`-th code of
    each unit. The runtime packs int4 codes low nibble first, which is
    `order [0, 1]`; tag-check compares the order with the packing a
    `tag.bind` of the packed view states.

    ```mlir
    %codes = tile.unpack %packed dim 1 order [0, 1]
        : tensor<64x64x2xi4> -> tensor<64x128xi4>
    ```
  }];
  let arguments = (ins Tile_Tensor:$input, I64Attr:$dim,
                       DenseI64ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim `order` $order attr-dict `:` type($input) `->`
    type($result)
  }];
  let extraClassDeclaration = [{
    /// Whether the codes are stored in their natural order, `[0, .., P)`.
    bool hasNaturalOrder() {
      return llvm::equal(getOrder(), llvm::seq<int64_t>(0, getOrder().size()));
    }
  }];
  let hasVerifier = 1;
}

#endif // TESSERA_TILE_OPS
