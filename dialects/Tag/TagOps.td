//===- TagOps.td - Data-flow tag operations ----------------*- tablegen -*-===//

#ifndef TESSERA_TAG_OPS
#define TESSERA_TAG_OPS

include "Tag/TagDialect.td"
include "Tile/TileTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Anything that holds elements: a view, a shared buffer or a register tile.
def Tag_Tagged : AnyTypeOf<[Tile_ViewType, Tile_SharedType,
                            AnyStaticShapeTensor]>;
def Tag_Condition : AnyTypeOf<[I1, TensorOf<[I1]>]>;

def Tag_BindOp : Tag_Op<"bind"> {
  let summary = "Attaches a tag to every element of a value";
  let description = [{
    Element `(i0, ..., in)` of `value` gets the tag `name(f0, ..., fm)` where
    `(f0, ..., fm) = map(i0, ..., in)[captures]`. The map has one dimension
    per element index (a ring buffer has the slot as a leading extra
    dimension) and one symbol per captured `index` value; it may use `+`,
    `*` by constants, `floordiv`, `ceildiv` and `mod`. Each component is
    named: `tag.assert_contract` and `tile.mma` treat the component named
    like the contraction (`k` by default) as the part that must agree.

    Binding a kernel argument states where its data comes from; binding an
    intermediate value is an *assumption* that `--tag-check` reports.

    ```mlir
    tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
    // Weights whose third component is the scale group of the row:
    tag.bind %W as "W"(k, n, g) = (d0, d1) -> (d0, d1, d0 floordiv 128) : !tile.view<?x?xi4>
    ```
  }];
  let arguments = (ins Tag_Tagged:$value, StrAttr:$name,
                       StrArrayAttr:$components, AffineMapAttr:$map,
                       Variadic<Index>:$captures);
  let assemblyFormat = [{
    $value `as` $name custom<Components>($components) `=` custom<TagMap>($map)
    (`captures` `(` $captures^ `)`)? attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

def Tag_AssertEqOp : Tag_Op<"assert_eq"> {
  let summary = "Asserts that two values' tags agree over an index space";
  let description = [{
    For every point `p` of the index space (the dimensions shared by both
    maps, each ranging over the extent of the value dimension it indexes),
    the listed components of `lhs[lhs_map(p)]` equal those of
    `rhs[rhs_map(p)]`, component by component. An empty component list
    compares whole tags, names included. Both maps take the same symbols,
    bound to `captures`.

    ```mlir
    // Each program stores exactly its own C tile:
    tag.assert_eq %acc[(d0, d1)[s0, s1] -> (d0, d1)](m, n),
                  %C[(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)](m, n)
        captures(%m0, %n0) : tensor<128x128xf32>, !tile.view<?x?xbf16>
    ```
  }];
  let arguments = (ins Tag_Tagged:$lhs, AffineMapAttr:$lhs_map,
                       StrArrayAttr:$lhs_components, Tag_Tagged:$rhs,
                       AffineMapAttr:$rhs_map, StrArrayAttr:$rhs_components,
                       Variadic<Index>:$captures,
                       OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $lhs `[` custom<TagMap>($lhs_map) `]` custom<Components>($lhs_components)
    `,` $rhs `[` custom<TagMap>($rhs_map) `]`
    custom<Components>($rhs_components) (`captures` `(` $captures^ `)`)?
    (`message` $message^)? attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasVerifier = 1;
}

def Tag_AssertContractOp : Tag_Op<"assert_contract"> {
  let summary = "Asserts that matrix-multiply operands agree on the contraction";
  let description = [{
    Shorthand for the invariant of `tile.mma %a, %b, ...`: for all `i`, `j`,
    `kk`, the contraction component (`over`, `k` by default) of `a[i, kk]`
    equals that of `b[kk, j]`. The transpose flags mean what they mean on
    `tile.mma`.

    ```mlir
    tag.assert_contract %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
    tag.assert_contract %q, %k over "d" transpose_b : tensor<128x64xbf16>, tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$a, AnyStaticShapeTensor:$b,
                       OptionalAttr<StrAttr>:$over, UnitAttr:$transpose_a,
                       UnitAttr:$transpose_b);
  let assemblyFormat = [{
    $a `,` $b (`over` $over^)? (`transpose_a` $transpose_a^)?
    (`transpose_b` $transpose_b^)? attr-dict `:` type($a) `,` type($b)
  }];
  let extraClassDeclaration = [{
    /// The name of the component that must agree: `over`, or "k".
    ::llvm::StringRef getContractionComponent() {
      return getOver() ? *getOver() : "k";
    }
  }];
  let hasVerifier = 1;
}

def Tag_Bound : AnyTypeOf<[Index, TensorOf<[Index]>]>;

def Tag_AssertCompleteOp : Tag_Op<"assert_complete"> {
  let summary = "Asserts that an accumulator summed a range exactly once";
  let description = [{
    The checker proves that every element of `value`, a tile accumulated by
    `tile.mma` (across the iterations of the loops around it), summed every
    value `c` of the contracted component `over` with `lower <= c < upper`
    exactly once: no tile skipped, none counted twice. Values outside the
    range are not checked (padding, masked keys). The bounds are an index,
    or a tile of indices of `value`'s shape for a range per element (a
    causal row's keys).

    ```mlir
    tag.assert_complete %acc over "k" from %c0 to %K
        : tensor<128x128xf32>, index, index
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$value, StrAttr:$over,
                       Tag_Bound:$lower, Tag_Bound:$upper,
                       OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $value `over` $over `from` $lower `to` $upper (`,` $message^)? attr-dict
    `:` type($value) `,` type($lower) `,` type($upper)
  }];
  let hasVerifier = 1;
}

def Tag_AssertOp : Tag_Op<"assert"> {
  let summary = "Asserts a property of index arithmetic or loaded data";
  let description = [{
    The checker proves that `condition` (every element, for a tile) holds for
    every program instance and loop iteration, under the `tag.assume` facts.
    Integer data loaded from views is treated as unknown functions of the
    position read, so routing properties can be stated over it.

    ```mlir
    %ok = arith.cmpi ult, %off, %c2_31 : index
    tag.assert %ok, "offset fits in 31 bits" : i1
    ```
  }];
  let arguments = (ins Tag_Condition:$condition, OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $condition (`,` $message^)? attr-dict `:` type($condition)
  }];
}

def Tag_AssumeOp : Tag_Op<"assume"> {
  let summary = "States a fact the caller guarantees";
  let description = [{
    The checker takes `condition` as true in every proof in its scope (the
    kernel, from this point on). Assumptions are listed in `--tag-check`
    statistics: they are what a reviewer must trust.

    ```mlir
    %r = arith.remui %K, %c64 : index
    %div = arith.cmpi eq, %r, %c0 : index
    tag.assume %div, "K is a multiple of 64" : i1
    ```
  }];
  let arguments = (ins Tag_Condition:$condition, OptionalAttr<StrAttr>:$message);
  let assemblyFormat = [{
    $condition (`,` $message^)? attr-dict `:` type($condition)
  }];
}

def Tag_ResetOp : Tag_Op<"reset"> {
  let summary = "Forgets the tags of a shared buffer";
  let description = [{
    Every element's tag becomes unknown and the buffer's hazard state
    becomes clean, e.g. when a buffer is reused for unrelated data.

    ```mlir
    tag.reset %sA : !tile.shared<128x64xbf16>
    ```
  }];
  let arguments = (ins Tile_SharedType:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` qualified(type($buffer))";
}

def Tag_CoordOp : Tag_Op<"coord", [Pure]> {
  let summary = "The value of one tag component, per element (ghost)";
  let description = [{
    Element `e` of the result is the `component` of the tag of `value[e]`.
    It exists to state assertions that relate data to provenance, such as a
    causal mask computed from the score's own coordinates; it may only feed
    tag assertions and is erased with them.

    ```mlir
    %q = tag.coord %s("q") : tensor<128x64xf32> -> tensor<128x64xi32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$value, StrAttr:$component);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $value `(` $component `)` attr-dict `:` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TESSERA_TAG_OPS
