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
    Option<"timeout", "timeout", "unsigned", /*default=*/"60",
           "Wall-clock backstop per query in seconds (0: none): stops the "
           "queries whose work Z3 does not count against the rlimit">,
    Option<"workBudget", "work-budget", "uint64_t", /*default=*/"100000000",
           "Transfer steps a kernel may take (each op visit: 1 plus its "
           "enclosing loops); past it the check stops with an error">,
    Option<"emitSmt", "emit-smt", "bool", /*default=*/"false",
           "Print each verification condition as SMT-LIB 2 on stdout">,
    Option<"chip", "chip", "std::string", /*default=*/"",
           "Target whose shared-memory capacity applies: sm_90a, sm_80, "
           "gfx942, gfx90a or host; by default the module's tile.target, "
           "else sm_90a">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t", /*default=*/"0",
           "Shared-memory capacity in bytes; 0 takes the chip's">,
    Option<"printStats", "print-stats", "bool", /*default=*/"false",
           "Report, as a remark on each kernel, how many assertions were "
           "proved structurally and by Z3, how many failed, and how many "
           "assumptions were trusted">,
  ];
  let dependentDialects = ["mlir::smt::SMTDialect"];
}

def TilePipelineLatencies : Pass<"tile-pipeline-latencies", "mlir::ModuleOp"> {
  let summary = "Step 1 of tile-pipeline: estimate each loop op's latency";
  let description = [{
    Annotates every op directly in a `tile.pipeline` loop with
    `tile.latency = N` (cycles), from a model of the target: copies by the
    bytes they move, MMAs by their flops, shared loads and element-wise
    math by the elements they touch, scalar arithmetic 0. The scheduler
    reads these numbers; they are estimates, not measurements.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "Target whose latency model applies: sm_80, sm_90a or gfx942; by "
           "default the module's tile.target, else sm_90a">,
  ];
}

// The options of the schedule step, also on tile-pipeline for loops that
// reach it unscheduled.
defvar TileScheduleOptions = [
  Option<"scheduler", "scheduler", "::tessera::PipelineScheduler",
         /*default=*/"::tessera::PipelineScheduler::Heuristic",
         "How stages are assigned",
         [{::llvm::cl::values(
           clEnumValN(::tessera::PipelineScheduler::Heuristic, "heuristic",
                      "copies first, body order"),
           clEnumValN(::tessera::PipelineScheduler::Solver, "solver",
                      "Z3 modulo scheduler: least II, then fewest stages"))}]>,
  Option<"chip", "chip", "std::string", /*default=*/"",
         "Target whose latency and resource tables apply: sm_80, sm_90a or "
         "gfx942; by default the module's tile.target, else sm_90a">,
  Option<"maxSharedBytes", "max-shared-bytes", "int64_t", /*default=*/"0",
         "Shared-memory budget of the solver; 0 takes the chip's capacity">,
  Option<"maxII", "max-ii", "int64_t", /*default=*/"0",
         "Largest initiation interval the solver may choose; 0 for no "
         "bound beyond running every op back to back">,
  Option<"rlimit", "rlimit", "unsigned", /*default=*/"10000000",
         "Z3 resource limit per solver query (deterministic, not a time)">,
];

def TilePipelineSchedule : Pass<"tile-pipeline-schedule", "mlir::ModuleOp"> {
  let summary = "Step 2 of tile-pipeline: assign stages and order";
  let description = [{
    Marks every op directly in a `tile.pipeline = #tile.pipeline<stages =
    S>` loop (S >= 2) with `tile.stage` and `tile.order`, and the loop with
    `tile.ii`, its initiation interval in cycles. The copies into shared
    memory and the arithmetic their offsets need run in stage 0, everything
    else in the last stage: the shape the expansion step (`tile-pipeline`)
    carries out.

    * `scheduler=heuristic`: S stages, body order; `tile.ii` is what an
      iterative greedy modulo scheduler reaches with that order.
    * `scheduler=solver`: a Z3 modulo scheduler over the ops' latencies
      (`tile.latency` where present, else the chip's model) and the chip's
      resource table (global memory, tensor cores, shared memory, vector
      units; on sm_80 and gfx942 copies also occupy the shared-memory pipe,
      on sm_90a the TMA does not). It finds the least II, then the fewest
      stages (at least 2, at most S) whose rings fit `max-shared-bytes`,
      and rewrites the loop's `#tile.pipeline` to that stage count. When no
      schedule fits, the error lists the conflicting constraints of an
      unsat core as notes.

    The expansion (`tile-pipeline`) follows the stage count and each op's
    stage; it keeps the body's order, so `tile.order` and `tile.ii` describe
    the model's schedule and do not change the generated code: what the
    solver chooses for the code is the depth.
  }];
  let options = TileScheduleOptions;
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

    On chips whose copies into shared memory are loads into registers and
    then stores (gfx942, gfx90a), a ring would take S buffers and overlap
    nothing, so each buffer stays single and the next iteration's tiles are
    staged in registers, whatever S:

    * prologue: the first iteration's copies, synchronous;
    * iteration i (at %k): `tile.load`s of the tiles of iteration i + 1
      from their views first (in flight while the body computes), the
      body's own barriers and loads, then (after a barrier, added when the
      body does not end with one) `tile.store`s of the staged tiles into
      the buffers.

    Buffers of int4 nibble pairs cannot be stored from registers yet: their
    loops become rings there too.

    Copies past the end of the loop read padding (out-of-bounds elements are
    filled), so the prologue and the prefetches need no guard and any trip
    count (zero, fewer than S, ragged) is correct. The loop may write shared
    memory only through the copies it pipelines; its barriers are replaced
    by the one per iteration above. Loops with `stages = 1` only lose the
    attribute.

    S is the most the loop may use: the solver picks the depth; the
    heuristic takes S, or fewer where S rings would not fit the chip's
    shared memory (`max-shared-bytes`, else the target's: 64 KiB on
    gfx942), down to one, where the loop is left as written.

    This is step 3, the expansion: it follows the `tile.stage` attributes
    of the schedule step (computing them first if they are missing) and
    rejects a schedule it cannot expand.

    **Warp specialization.** A loop whose policy says `warp_specialize =
    true` (or every pipelined loop, with `warp-specialize`) becomes a
    `tile.warp_specialize` where the chip has TMA and mbarriers (sm_90a;
    elsewhere it is pipelined as above). The loop must be at the top level
    of its kernel, whose threads (whole warpgroups) become the consumers:

    * producer (one extra warpgroup, 40 registers a thread): per iteration
      n, wait for slot n mod S's *empty* barrier (parity (n div S + 1) mod
      2), the copies into the slot asynchronously, arrive on its *full*
      barrier;
    * consumers (the registers the file leaves, at most 240): the loop and
      the kernel's code after it, each iteration waiting for its *full*
      barrier (parity (n div S) mod 2), reading the slot and releasing it
      on the *empty* one; the loop's barriers go. Code before the loop that
      makes register tiles (not constants) or touches memory moves to the
      consumers too.

    The result is what tag-check proves (`docs/invariants.md`).

    ```
    tessera-opt --tile-pipeline runtime/kernels/gemm/gemm_bf16.mlir
    tessera-opt --tile-pipeline=scheduler=solver runtime/kernels/gemm/gemm_bf16.mlir
    tessera-opt --tile-pipeline=warp-specialize runtime/kernels/gemm/gemm_bf16_wide.mlir
    ```
  }];
  let options = !listconcat(TileScheduleOptions, [
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "Warp-specialize every pipelined loop, as if its policy said "
           "warp_specialize = true">,
  ]);
}

def TileStageStores : Pass<"tile-stage-stores", "mlir::ModuleOp"> {
  let summary = "Stage a kernel's output stores through shared memory";
  let description = [{
    In the kernel named by `kernel` (every kernel when empty), each
    `tile.store` of a 2-D register tile into a 2-D or 3-D kernel argument
    that runs once per program (in the kernel's body or a consumer role's,
    not in a loop or a branch: an epilogue) becomes a store into a shared
    buffer of its own and an asynchronous copy out:

    ```mlir
    tile.async_wait 0    // the buffer's last copy out has read it
    tile.barrier
    tile.store %c -> %buffer
    tile.barrier
    tile.copy_out %buffer -> %C[%m0, %n0] async
    tile.async_commit
    ```

    On sm_90a tile-assign-layouts lays such buffers out for TMA stores
    (stmatrix where the tile's layout allows, bulk tensor stores that clip
    the view's edges); elsewhere the threads copy the buffer out. Run it
    before `tile-persistent`: a persistent kernel then waits for a tile's
    copy out only when the next tile's epilogue rewrites the buffer, so the
    store overlaps the next tile's main loop. tag-check checks the result
    like any kernel (the buffers must fit the chip's shared memory).

    ```
    tessera-opt --tile-stage-stores=kernel=gemm_bf16 --tag-check runtime/kernels/gemm/gemm_bf16.mlir
    ```
  }];
  let options = [
    Option<"kernel", "kernel", "std::string", /*default=*/"\"\"",
           "The kernel whose stores to stage (all when empty)">
  ];
}

def TilePersistent : Pass<"tile-persistent", "mlir::ModuleOp"> {
  let summary = "Turn tile kernels into persistent ones looping over tiles";
  let description = [{
    For each `tile.kernel` carrying `tile.persistent =
    #tile.persistent<group = G>` (or named by `kernel`, which adds the
    attribute with `group`), the body written for one program instance of
    a grid becomes the body of a loop over that grid's tiles:

    * four `index` arguments are appended, marked `{tile.grid = 0}`, `1`,
      `2` and `3`, which the runtime passes (bundles mark the kernel
      `persistent`; callers launch it with its other arguments): the size
      gx, gy, gz of the grid the caller launched, and the number P of
      program instances the runtime started instead, along x: the fewer
      of the grid's tiles and the instances the device keeps resident
      (its multiprocessors times the blocks of this kernel each keeps,
      from CUDA's or HIP's occupancy; the worker threads of a host or
      emulator device), or the caller's count instead;
    * shared buffers, tag bindings and assumptions, and the pure scalar
      code that does not depend on the program's coordinates (constants,
      view sizes; not tiles, whose registers would stay live across the
      loop) move before the loop, so that buffers and their
      mbarriers are set up once and ring phases carry from tile to tile;
    * `scf.for %t = program_id x to gx * gy * gz step P`
      runs the rest per tile: the tile's coordinates come from the grouped
      rasterization (`include/tessera/Dialect/Tile/Raster.h`: groups of G
      consecutive x, x fastest within a group, then y, z slowest) and
      replace `tile.program_id`; `tile.num_programs` becomes the launched
      grid's size; where the kernel has shared buffers the iteration ends
      with a `tile.barrier`, so that no thread starts filling the next
      tile's buffers while another still reads this tile's.

    A warp-specialized kernel splits into its roles once and each role
    loops over the tiles: the kernel's per-tile scalar arithmetic before
    the split is recomputed in each role's tile loop, which carries the
    count of the role's main-loop iterations from tile to tile (from 0,
    continued by the main loop), and every ring slot and barrier parity
    is rotated by that count, so that ring phases continue across tiles
    without a barrier (run `tile-pipeline{warp-specialize}` first). Roles
    that multicast or release slots to their cluster of N programs walk
    groups of N neighbouring x tiles a cluster at a time, each program
    the tile of its rank. With `pingpong` (or `pingpong = true` in the
    policy) the `tile.warp_specialize` takes the ping-pong schedule: two
    consumer warpgroups own alternate tiles of the consumer's tile loop,
    one's epilogue overlapping the other's main loop.

    A kernel already made persistent (it has the grid arguments) is left as
    it is. Clusters must be one-dimensional (`cluster(n)`): the persistent
    grid is. Run it before `tile-pipeline` or after; `tag-check` checks the
    loop like any other.

    ```
    tessera-opt --tile-persistent=kernel=gemm_bf16 --tile-pipeline --tag-check runtime/kernels/gemm/gemm_bf16.mlir
    ```
  }];
  let options = [
    Option<"kernel", "kernel", "std::string", /*default=*/"\"\"",
           "A kernel to make persistent (besides those carrying "
           "tile.persistent)">,
    Option<"group", "group", "int64_t", /*default=*/"8",
           "Consecutive x coordinates walked together, for `kernel`">,
    Option<"pingpong", "pingpong", "bool", /*default=*/"false",
           "Two consumer warpgroups own alternate tiles, for `kernel` "
           "(warp-specialized kernels)">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def TileUpliftWhile : Pass<"tile-uplift-while", "mlir::ModuleOp"> {
  let summary = "Rewrite counting scf.while loops into scf.for";
  let description = [{
    Rewrites each `scf.while` that counts (its `before` block only compares
    the counter with a bound, its `after` block adds a step to it) into the
    equivalent `scf.for`, with upstream's uplift patterns. `tag-check`
    checks `scf.for` by induction and the GPU lowerings lower it; they
    reject any other `scf.while`, which this pass leaves as it is.
    `tessera-compile` runs it before its other passes.

    ```
    tessera-opt --tile-uplift-while --tag-check kernel.mlir
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def TileExpandPowers : Pass<"tile-expand-powers", "mlir::ModuleOp"> {
  let summary = "Expand integer powers (math.ipowi, math.fpowi) in kernels";
  let description = [{
    Rewrites `math.ipowi` and `math.fpowi` in tile kernels, on scalars and
    tiles, into square-and-multiply over the exponent's bits (an `scf.for`
    of as many steps as the exponent has bits; for a constant exponent,
    scalar or splat, the same multiplications unrolled up to its highest
    set bit: x^5 is two squarings and a multiply), so that the host, the
    emulators and every GPU compute the same bits; no target has an
    instruction for them. `fpowi` with a negative exponent is 1 / x^|n|;
    `ipowi` wraps for n >= 0 and, for n < 0, is 1 for x = 1, +-1 for x = -1
    (by n's parity) and 0 otherwise (0 for x = 0: defined, no division).
    `tessera-compile` runs it after the requested passes.

    ```
    tessera-opt --tile-expand-powers kernel.mlir
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def TileInterleaveRoles : Pass<"tile-interleave-roles", "mlir::ModuleOp"> {
  let summary = "Run warp-specialized roles as one loop where roles cannot run";
  let description = [{
    Replaces every `tile.warp_specialize` by its roles' loops interleaved,
    iteration by iteration, run by all the kernel's threads, with the
    hand-over synchronized as tag-check models it: the producer's fills
    are asynchronous copies its arrival commits, the consumers' wait
    retires them (`tile.async_wait 0`) and is a `tile.barrier`, and their
    release is a `tile.barrier`. The mbarriers, the register split and
    `multicast` go (every program copies the whole window it reads; a
    cluster's programs run as independent ones). Persistent and ping-pong
    kernels interleave alike (the ping-pong sets become one).

    It applies to modules whose target has no TMA (sm_80, gfx942, gfx90a),
    whose lowerings do not run roles, and is the first pass of their GPU
    pipeline, so that one warp-specialized kernel compiles for every chip;
    with `all` it applies whatever the target (to see the form).

    ```
    tessera-opt --tile-set-target=chip=sm_80 --tile-interleave-roles k.mlir
    ```
  }];
  let options = [
    Option<"all", "all", "bool", "false",
           "Interleave the roles whatever the module's target">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def TileQuantize : Pass<"tile-quantize", "mlir::ModuleOp"> {
  let summary = "Quantize a kernel's MMA weights to int4, int8 or fp8 codes";
  let description = [{
    For the kernel named by `kernel` (or the module's only kernel), every
    `tile.mma` whose b operand is a `[k, n]` tile (or `[n, k]` with
    `transpose_b`) loaded from a shared buffer that one `tile.copy` fills
    from a bf16/f16 kernel argument gets that argument quantized. The tile
    covers the argument's two innermost dimensions; leading ones (MoE
    experts) stay, and the scales keep them:

    * the argument becomes `!tile.view<?x?x2xi4>` (`[k, ceil(n / 2), 2]`:
      two codes per byte along a row, low nibble first, as the runtime's
      `tessera::quantizeWeights` packs them; each loaded tile is unpacked by
      `tile.unpack ... order [0, 1]`), `!tile.view<?x?xi8>` or
      `!tile.view<?x?xf8E4M3FN>`, followed
      by new arguments for the scales and, with `zero-points`, the f16 zero
      points, laid out like the weight with k counted in groups (f16
      `[groups, n]`, transposed `[n, groups]`; fp8: f32, both dimensions
      counted in 128-blocks); a transposed int4 weight packs along k;
    * the scales (and zeros) of each loaded weight tile's groups are loaded
      next to it and applied where `placement` says: `registers`
      dequantizes the tile before the MMA (`tile.dequant`); `per-group`
      (MixPE style) runs the MMA on the codes (minus the zero points) and
      scales each K tile's product per column before it joins the
      accumulator, which needs one group per K tile; `auto` (default) picks
      per-group when legal and the product has fewer rows than the weight
      tile (it then multiplies fewer elements), registers otherwise;
    * the weight's tag gains its scale group `g` (fp8: also its column
      block `gn`; int4: the tag of the packed view states the packing order,
      column `2 * d1 + d2`, so tag-check compares the unpacking order with
      it) and the scales and zeros are bound by `(g, n)` (fp8:
      `(g, gn)`); a `tag.assert_eq` per load states that every code uses
      the scale (and zero point) of its own group, and, per group, one
      per MMA that every column of the product is scaled by its own
      column's scale, which `tag-check` proves;
    * with `activations=int8` or `fp8` (no zero points, one group per K
      tile) each K tile of the a operand is quantized per token
      (`tile.quant`), the MMA runs int8 x int8 into i32 (int4 codes
      widened) or fp8 x fp8 into f32, and both scales apply to its product;
    * with `activation-scales=token` the activation (the a operand's
      kernel argument) arrives quantized instead: it becomes an int8 or
      fp8 view followed by a new `[M]` f32 argument of per-token scales
      (the runtime's `tessera::quantizeActivations` makes both), and a
      `tag.assert_eq` states that every row uses its own token's scale;
      with int8 per-channel weights both scales apply once, to the loop's
      result;
    * the kernel is renamed `<name>_int4_g<group>[_zp][_a8k<BK>|_a8t]`,
      `<name>_int8_pc[_zp][_a8k<BK>|_a8t]` or
      `<name>_fp8_b128[_af8k<BK>|_af8t]`: its arguments changed.

    Groups run along k: int4 takes `group` = 32, 64 or 128 (default 128),
    and the weight tile must hold whole groups; int8 has one scale per
    column (per channel); fp8 (e4m3) has one scale per 128x128 block, and
    the weight tile must hold whole blocks or lie inside one. Run it before
    `tile-pipeline`.

    ```
    tessera-opt --tile-quantize="weights=int4 group=64 zero-points" --tag-check runtime/kernels/gemm/gemm_bf16.mlir
    ```
  }];
  let options = [
    Option<"kernel", "kernel", "std::string", /*default=*/"\"\"",
           "The kernel to quantize; may be omitted when the module has one">,
    Option<"weights", "weights", "::tessera::QuantFormat",
           /*default=*/"::tessera::QuantFormat::Int4", "Weight format",
           [{::llvm::cl::values(
             clEnumValN(::tessera::QuantFormat::Int4, "int4",
                        "group scales"),
             clEnumValN(::tessera::QuantFormat::Int8, "int8",
                        "one scale per channel"),
             clEnumValN(::tessera::QuantFormat::Fp8, "fp8",
                        "e4m3, 128x128 block scales"))}]>,
    Option<"group", "group", "int64_t", /*default=*/"-1",
           "Rows of k per int4 scale: 32, 64 or 128 (default 128)">,
    Option<"zeroPoints", "zero-points", "bool", /*default=*/"false",
           "Asymmetric codes with an f16 zero point per group">,
    Option<"activations", "activations", "::tessera::QuantFormat",
           /*default=*/"::tessera::QuantFormat::Real",
           "Activation format (int8 and fp8 need weights without zero "
           "points and one group per K tile; fp8 needs fp8 weights)",
           [{::llvm::cl::values(
             clEnumValN(::tessera::QuantFormat::Real, "bf16",
                        "as written"),
             clEnumValN(::tessera::QuantFormat::Real, "f16", "as written"),
             clEnumValN(::tessera::QuantFormat::Int8, "int8",
                        "quantized per token, int8 x int8 MMA, both "
                        "scales after"),
             clEnumValN(::tessera::QuantFormat::Fp8, "fp8",
                        "quantized per token, fp8 x fp8 MMA, both scales "
                        "after"))}]>,
    Option<"activationScales", "activation-scales",
           "::tessera::ActivationScales",
           /*default=*/"::tessera::ActivationScales::Tile",
           "With int8/fp8 activations, where their scales come from",
           [{::llvm::cl::values(
             clEnumValN(::tessera::ActivationScales::Tile, "tile",
                        "the kernel quantizes each K tile of the "
                        "activation per token"),
             clEnumValN(::tessera::ActivationScales::Token, "token",
                        "the activation argument arrives quantized, one "
                        "f32 scale per token in a new argument after "
                        "it"))}]>,
    Option<"placement", "placement", "::tessera::QuantPlacement",
           /*default=*/"::tessera::QuantPlacement::Auto",
           "Where the scales apply",
           [{::llvm::cl::values(
             clEnumValN(::tessera::QuantPlacement::Registers, "registers",
                        "dequantize the weight tile before the MMA"),
             clEnumValN(::tessera::QuantPlacement::PerGroup, "per-group",
                        "MMA on the codes, scale each K tile's product; "
                        "needs one group per K tile"),
             clEnumValN(::tessera::QuantPlacement::Auto, "auto",
                        "per-group when legal and the product has fewer "
                        "rows than the weight tile"))}]>,
  ];  // The kernel may hold no tag or arith ops yet.
  let dependentDialects = ["tessera::tag::TagDialect",
                           "mlir::arith::ArithDialect"];
}

def TileSetTarget : Pass<"tile-set-target", "mlir::ModuleOp"> {
  let summary = "Name the chip the module is compiled for";
  let description = [{
    Sets the module attribute `tile.target = "<chip>"` that the target-
    dependent passes (`tile-assign-layouts`, `convert-tile-to-gpu`) read.
    `tessera-compile --target` sets it itself; this pass is the
    `tessera-opt` spelling of the same choice.

    ```
    tessera-opt --tile-set-target=chip=sm_80 --tile-assign-layouts k.mlir
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"",
           "host, sm_80, sm_90a, gfx90a or gfx942">,
  ];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every register tile a distributed layout and every "
                "shared buffer a swizzle";
  let description = [{
    For the module's target (`tile.target`), gives each register tile an
    F2 linear layout (`#tile.linear`, the tensor's encoding) and each shared
    buffer an XOR swizzle (`tile.swizzle`). MMA operands and accumulators
    take the fragment layouts of the target's matrix instruction, tiled over
    the kernel's warps; element-wise ops, loop-carried values and constants
    take the layout of what they feed or are fed by; the row indices of a
    gather or scatter, the slice of the rows they choose. Shared buffers read by
    ldmatrix and written by 16-byte copies get the swizzle that makes both
    conflict-free. Every layout is proved to cover its tile exactly (the
    attribute's verifier). Tag ops, and the ghost code that only feeds them,
    are erased first: run `tag-check` before this pass.

    Kernels that need what this slice of the GPU backend does not do yet
    (a value wanted in two layouts, `tile.quant`, tiles whose sizes are not
    powers of two) are rejected with an error naming the op.
  }];
  let dependentDialects = ["tessera::tile::TileDialect"];
}

def TileLayoutReport : Pass<"tile-layout-report", "mlir::ModuleOp"> {
  let summary = "Report the layouts and shared-memory access patterns";
  let description = [{
    After `tile-assign-layouts`, emits one remark per register tile (its
    layout and the registers per thread) and per shared buffer (its swizzle,
    and for each access pattern the instruction, the vector width and the
    bank-conflict degree computed from the addresses one wavefront touches).
  }];
}

#endif // TESSERA_TRANSFORMS_PASSES
