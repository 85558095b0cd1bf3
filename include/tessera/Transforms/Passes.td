//===- Passes.td - Tile-level passes -----------------------*- tablegen -*-===//

#ifndef TESSERA_TRANSFORMS_PASSES
#define TESSERA_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TagCheck : Pass<"tag-check", "mlir::ModuleOp"> {
  let summary = "Prove the tag invariants of every tile kernel with Z3";
  let description = [{
    Propagates tags through each `tile.kernel` (copies, loads, shared rings,
    gathers, MMAs, element-wise ops, loops by induction) and proves every
    `tag.assert_eq`, `tag.assert_contract` and `tag.assert` under the
    `tag.assume` facts: structurally when the terms agree, otherwise with Z3
    under a deterministic resource limit. It also enforces the shared-memory
    hazard rules (no read before a barrier makes a write visible, no read of
    an unretired asynchronous copy, no overwrite while others may read) and
    the target's shared-memory capacity.

    A failure is an error at the assertion with a concrete counterexample
    (program ids, loop induction values, element indices), the tags the
    failing elements carry, and the op that wrote them. `emit-smt` prints
    every verification condition as SMT-LIB 2; `print-stats` reports how
    many were proved structurally and by Z3, and how many assumptions were
    trusted.

    ```
    tessera-opt --tag-check runtime/kernels/gemm/gemm_bf16.mlir
    tessera-opt --tag-check="chip=gfx942 emit-smt" kernel.mlir
    ```
  }];
  let options = [
    Option<"rlimit", "rlimit", "unsigned", /*default=*/"4000000",
           "Z3 resource limit per query (deterministic, not a timeout)">,
    Option<"emitSmt", "emit-smt", "bool", /*default=*/"false",
           "Print each verification condition as SMT-LIB 2 on stdout">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target whose shared-memory capacity applies: sm_90a, sm_80, "
           "gfx942, gfx90a or host">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", /*default=*/"0",
           "Shared-memory capacity in bytes; 0 takes the chip's">,
    Option<"printStats", "print-stats", "bool", /*default=*/"false",
           "Report, as a remark on each kernel, how many assertions were "
           "proved structurally and by Z3, how many failed, and how many "
           "assumptions were trusted">,
  ];
  let dependentDialects = ["mlir::smt::SMTDialect"];
}

def TilePipeline : Pass<"tile-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline K loops into shared-memory rings";
  let description = [{
    For each `scf.for` carrying `tile.pipeline = #tile.pipeline<stages = S>`
    (S >= 2), the shared buffers the loop fills with `tile.copy` become
    S-slot rings, and each copy is issued asynchronously S - 1 iterations
    ahead:

    * prologue: the copies of iterations 0 .. S - 2 into slots 0 .. S - 2,
      one commit group each;
    * iteration i (at %k): `tile.async_wait S - 2` and a barrier make slot
      i mod S visible and fence the reads of iteration i - 1; the copy of
      iteration i + S - 1 goes into slot (i + S - 1) mod S, the slot read in
      iteration i - 1, as a new commit group; the loads read slot i mod S;
    * epilogue: `tile.async_wait 0`.

    Copies past the end of the loop read padding (out-of-bounds elements are
    filled), so the prologue and the prefetches need no guard and any trip
    count (zero, fewer than S, ragged) is correct. The loop may write shared
    memory only through the copies it pipelines; its barriers are replaced
    by the one per iteration above. Loops with `stages = 1` only lose the
    attribute.

    ```
    tessera-opt --tile-pipeline runtime/kernels/gemm/gemm_bf16.mlir
    ```
  }];
}

#endif // TESSERA_TRANSFORMS_PASSES
