// The expert block of a fused MoE layer: the two grouped GEMMs that follow
// routing (top-k softmax) and alignment.
//
// Alignment gives, for P padded slots in blocks of 64 rows:
//   %sorted_ids[p]  the routed slot t * topk + j of row p, sorted by expert;
//                   each expert's run is padded to a multiple of 64 with
//                   the sentinel T * topk (past the end: rows read as zero
//                   and are never written);
//   %expert_ids[b]  the expert of block b (every real row of the block was
//                   routed to it);
//   %topk_ids[s]    the expert chosen for slot s (router output, [T * topk]).
// Experts without tokens own no block, so they cost nothing.
//
// @moe_gate_up_swiglu: H[p, :] = silu(x Wg[e]ᵀ) * (x Wu[e]ᵀ) for the token
//   x of row p; Wg and Wu are the gate and up halves of the fused [E, 2I, D]
//   weight, passed as two views. Launch (P / 64, ceil(I / 64)) programs.
// @moe_down_combine: Out[t, :] += w(s) * (H[p, :] W2[e]ᵀ) for slot s of row
//   p, token t = s floordiv topk and its top-k weight w(s); Out is f32 and
//   zeroed by the caller. Launch (P / 64, ceil(D / 64)) programs.

tile.kernel @moe_gate_up_swiglu(%X: !tile.view<?x?xbf16>,
                                %Wg: !tile.view<?x?x?xbf16>,
                                %Wu: !tile.view<?x?x?xbf16>,
                                %H: !tile.view<?x?xbf16>,
                                %sorted_ids: !tile.view<?xi32>,
                                %expert_ids: !tile.view<?xi32>,
                                %topk_ids: !tile.view<?xi32>,
                                %topk: i32) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %blk = tile.program_id x
  %pid_n = tile.program_id y
  %r0 = arith.muli %blk, %c64 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %D = tile.dim %X, 1 : !tile.view<?x?xbf16>
  %num_slots = tile.dim %topk_ids, 0 : !tile.view<?xi32>
  %num_slots_i32 = arith.index_cast %num_slots : index to i32

  tag.bind %X as "X"(t, d) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %Wg as "Wg"(e, n, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x?xbf16>
  tag.bind %Wu as "Wu"(e, n, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x?xbf16>
  tag.bind %H as "H"(p, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  // Entry p of the sorted slot list: rows gathered through it carry p.
  tag.bind %sorted_ids as "SI"(p) = (d0) -> (d0) : !tile.view<?xi32>

  // The alignment kernel's contract, trusted here: every real row of block
  // %blk was routed to expert_ids[%blk].
  %ids_c = tile.load %sorted_ids[%r0] : !tile.view<?xi32> -> tensor<64xi32>
  %blk_e_c = tile.load %expert_ids[%blk] : !tile.view<?xi32> -> tensor<1xi32>
  %e_c = tensor.extract %blk_e_c[%c0] : tensor<1xi32>
  %routed_c = tile.gather %topk_ids[%c0] rows(%ids_c)
      : !tile.view<?xi32>, tensor<64xi32> -> tensor<64xi32>
  %e_c_t = tile.splat %e_c : i32 -> tensor<64xi32>
  %end_c = tile.splat %num_slots_i32 : i32 -> tensor<64xi32>
  %pad_c = arith.cmpi sge, %ids_c, %end_c : tensor<64xi32>
  %same_c = arith.cmpi eq, %routed_c, %e_c_t : tensor<64xi32>
  %contract = arith.ori %pad_c, %same_c : tensor<64xi1>
  tag.assume %contract, "alignment: block rows are routed to the block's expert"
      : tensor<64xi1>

  %ids = tile.load %sorted_ids[%r0] : !tile.view<?xi32> -> tensor<64xi32>
  %topk_t = tile.splat %topk : i32 -> tensor<64xi32>
  %zero_i32 = arith.constant 0 : i32
  %topk_pos = arith.cmpi sgt, %topk, %zero_i32 : i32
  tag.assume %topk_pos, "topk is positive" : i1
  %tok = arith.divsi %ids, %topk_t : tensor<64xi32>
  %tok2 = tile.broadcast %tok dims [1] : tensor<64xi32> -> tensor<64x64xi32>
  %blk_e = tile.load %expert_ids[%blk] : !tile.view<?xi32> -> tensor<1xi32>
  %e_i32 = tensor.extract %blk_e[%c0] : tensor<1xi32>
  %e = arith.index_cast %e_i32 : i32 to index
  %routed = tile.gather %topk_ids[%c0] rows(%ids)
      : !tile.view<?xi32>, tensor<64xi32> -> tensor<64xi32>
  %routed2 = tile.broadcast %routed dims [1]
      : tensor<64xi32> -> tensor<64x64xi32>
  %end = tile.splat %num_slots_i32 : i32 -> tensor<64xi32>
  %pad = arith.cmpi sge, %ids, %end : tensor<64xi32>
  %pad2 = tile.broadcast %pad dims [1] : tensor<64xi1> -> tensor<64x64xi1>

  %sX = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sG = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sU = tile.alloc_shared : !tile.shared<64x64xbf16>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc_g, %acc_u = scf.for %k = %c0 to %D step %c64
      iter_args(%g_i = %zero, %u_i = %zero)
      -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    // The block's token rows, gathered into shared memory in 16-byte
    // chunks (cp.async, buffer loads) as the weight tiles are copied.
    tile.copy %X[%c0, %k] rows(%tok : tensor<64xi32>) -> %sX
        : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %Wg[%e, %n0, %k] -> %sG
        : !tile.view<?x?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %Wu[%e, %n0, %k] -> %sU
        : !tile.view<?x?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %x = tile.load %sX : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %wg = tile.load %sG : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %wu = tile.load %sU : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // Routing: every real row meets the weights of the expert it was
    // routed to (the weight tile carries its expert as component e).
    %w_e = tag.coord %wg("e") : tensor<64x64xbf16> -> tensor<64x64xi32>
    %same_e = arith.cmpi eq, %w_e, %routed2 : tensor<64x64xi32>
    %routed_ok = arith.ori %pad2, %same_e : tensor<64x64xi1>
    tag.assert %routed_ok, "rows meet the gate weights of their own expert"
        : tensor<64x64xi1>
    %wu_e = tag.coord %wu("e") : tensor<64x64xbf16> -> tensor<64x64xi32>
    %same_eu = arith.cmpi eq, %wu_e, %routed2 : tensor<64x64xi32>
    %routed_u = arith.ori %pad2, %same_eu : tensor<64x64xi1>
    tag.assert %routed_u, "rows meet the up weights of their own expert"
        : tensor<64x64xi1>
    // Gathering: row i holds token tok[i] of X.
    %x_t = tag.coord %x("t") : tensor<64x64xbf16> -> tensor<64x64xi32>
    %same_t = arith.cmpi eq, %x_t, %tok2 : tensor<64x64xi32>
    tag.assert %same_t, "row i of the block gathers its own token"
        : tensor<64x64xi1>
    tag.assert_contract %x, %wg over "d" transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16>
    tag.assert_contract %x, %wu over "d" transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16>
    %g_next = tile.mma %x, %wg, %g_i transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %u_next = tile.mma %x, %wu, %u_i transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %g_next, %u_next : tensor<64x64xf32>, tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tag.assert_complete %acc_g over "d" from %c0 to %D
      : tensor<64x64xf32>, index, index
  tag.assert_complete %acc_u over "d" from %c0 to %D
      : tensor<64x64xf32>, index, index

  // Rows and columns of both halves meet the same element of H.
  tag.assert_eq %acc_g[(d0, d1) -> (d0, d1)](t, n),
                %acc_u[(d0, d1) -> (d0, d1)](t, n)
      : tensor<64x64xf32>, tensor<64x64xf32>
  // SwiGLU: silu(g) * u = g * sigmoid(g) * u.
  %one = arith.constant dense<1.000000e+00> : tensor<64x64xf32>
  %neg_g = arith.negf %acc_g : tensor<64x64xf32>
  %exp_neg = math.exp %neg_g fastmath<afn> : tensor<64x64xf32>
  %denom = arith.addf %one, %exp_neg : tensor<64x64xf32>
  %silu = arith.divf %acc_g, %denom : tensor<64x64xf32>
  %act = arith.mulf %silu, %acc_u : tensor<64x64xf32>
  %out = arith.truncf %act : tensor<64x64xf32> to tensor<64x64xbf16>
  // The checker proves the store's columns (n); rows carry the token they
  // were gathered for, not the position p, which routing alone relates.
  tile.store %out -> %H[%r0, %n0] : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  tile.return
}

tile.kernel @moe_down_combine(%H: !tile.view<?x?xbf16>,
                              %W2: !tile.view<?x?x?xbf16>,
                              %Out: !tile.view<?x?xf32>,
                              %topk_weights: !tile.view<?xf32>,
                              %sorted_ids: !tile.view<?xi32>,
                              %expert_ids: !tile.view<?xi32>,
                              %topk_ids: !tile.view<?xi32>,
                              %topk: i32) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %blk = tile.program_id x
  %pid_n = tile.program_id y
  %r0 = arith.muli %blk, %c64 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %I = tile.dim %H, 1 : !tile.view<?x?xbf16>
  %num_slots = tile.dim %topk_ids, 0 : !tile.view<?xi32>
  %num_slots_i32 = arith.index_cast %num_slots : index to i32

  tag.bind %H as "H"(p, i) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %W2 as "W2"(e, n, i) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x?xbf16>
  // Slot s belongs to token s / topk.
  %topk_idx = arith.index_cast %topk : i32 to index
  tag.bind %topk_weights as "TW"(s, t) = (d0)[s0] -> (d0, d0 floordiv s0)
      captures(%topk_idx) : !tile.view<?xf32>
  tag.bind %Out as "Out"(t, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>

  // The alignment kernel's contract, as in @moe_gate_up_swiglu.
  %ids_c = tile.load %sorted_ids[%r0] : !tile.view<?xi32> -> tensor<64xi32>
  %blk_e_c = tile.load %expert_ids[%blk] : !tile.view<?xi32> -> tensor<1xi32>
  %e_c = tensor.extract %blk_e_c[%c0] : tensor<1xi32>
  %routed_c = tile.gather %topk_ids[%c0] rows(%ids_c)
      : !tile.view<?xi32>, tensor<64xi32> -> tensor<64xi32>
  %e_c_t = tile.splat %e_c : i32 -> tensor<64xi32>
  %end_c = tile.splat %num_slots_i32 : i32 -> tensor<64xi32>
  %pad_c = arith.cmpi sge, %ids_c, %end_c : tensor<64xi32>
  %same_c = arith.cmpi eq, %routed_c, %e_c_t : tensor<64xi32>
  %contract = arith.ori %pad_c, %same_c : tensor<64xi1>
  tag.assume %contract, "alignment: block rows are routed to the block's expert"
      : tensor<64xi1>

  %ids = tile.load %sorted_ids[%r0] : !tile.view<?xi32> -> tensor<64xi32>
  %topk_t = tile.splat %topk : i32 -> tensor<64xi32>
  %c0_i32 = arith.constant 0 : i32
  %pos_topk = arith.cmpi sgt, %topk, %c0_i32 : i32
  tag.assume %pos_topk, "topk is positive" : i1
  %zero_ids = tile.splat %c0_i32 : i32 -> tensor<64xi32>
  %slots = arith.cmpi sge, %ids, %zero_ids : tensor<64xi32>
  tag.assume %slots, "sorted ids are slot numbers, never negative"
      : tensor<64xi1>
  %tok = arith.divsi %ids, %topk_t : tensor<64xi32>
  %blk_e = tile.load %expert_ids[%blk] : !tile.view<?xi32> -> tensor<1xi32>
  %e_i32 = tensor.extract %blk_e[%c0] : tensor<1xi32>
  %e = arith.index_cast %e_i32 : i32 to index
  %routed = tile.gather %topk_ids[%c0] rows(%ids)
      : !tile.view<?xi32>, tensor<64xi32> -> tensor<64xi32>
  %routed2 = tile.broadcast %routed dims [1]
      : tensor<64xi32> -> tensor<64x64xi32>
  %end = tile.splat %num_slots_i32 : i32 -> tensor<64xi32>
  %pad = arith.cmpi sge, %ids, %end : tensor<64xi32>
  %pad2 = tile.broadcast %pad dims [1] : tensor<64xi1> -> tensor<64x64xi1>

  %rows = tile.iota : tensor<64xindex>
  %r0_t = tile.splat %r0 : index -> tensor<64xindex>
  %p = arith.addi %rows, %r0_t : tensor<64xindex>
  %p2 = tile.broadcast %p dims [1] : tensor<64xindex> -> tensor<64x64xindex>

  %sW = tile.alloc_shared : !tile.shared<64x64xbf16>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %I step %c64 iter_args(%y_i = %zero)
      -> (tensor<64x64xf32>) {
    tile.copy %W2[%e, %n0, %k] -> %sW
        : !tile.view<?x?x?xbf16> -> !tile.shared<64x64xbf16>
    %h = tile.load %H[%r0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    // Row i of the block reads row r0 + i of H.
    %h_p = tag.coord %h("p") : tensor<64x64xbf16> -> tensor<64x64xindex>
    %own_p = arith.cmpi eq, %h_p, %p2 : tensor<64x64xindex>
    tag.assert %own_p, "row i of the block reads its own row of H"
        : tensor<64x64xi1>
    tile.barrier
    %w = tile.load %sW : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %w_e = tag.coord %w("e") : tensor<64x64xbf16> -> tensor<64x64xi32>
    %same_e = arith.cmpi eq, %w_e, %routed2 : tensor<64x64xi32>
    %routed_ok = arith.ori %pad2, %same_e : tensor<64x64xi1>
    tag.assert %routed_ok, "rows meet the down weights of their own expert"
        : tensor<64x64xi1>
    tag.assert_contract %h, %w over "i" transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16>
    %y_next = tile.mma %h, %w, %y_i transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %y_next : tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tag.assert_complete %acc over "i" from %c0 to %I
      : tensor<64x64xf32>, index, index

  // Combine: row p is scaled by the top-k weight of its own slot and added
  // to the output row of that slot's token.
  %weights = tile.gather %topk_weights[%c0] rows(%ids)
      : !tile.view<?xf32>, tensor<64xi32> -> tensor<64xf32>
  %w_slot = tag.coord %weights("s") : tensor<64xf32> -> tensor<64xi32>
  %w_tok = arith.divsi %w_slot, %topk_t : tensor<64xi32>
  %same_tok = arith.cmpi eq, %w_tok, %tok : tensor<64xi32>
  tag.assert %same_tok, "each row's weight is its own slot's" : tensor<64xi1>
  %weights2 = tile.broadcast %weights dims [1]
      : tensor<64xf32> -> tensor<64x64xf32>
  %y = arith.mulf %acc, %weights2 : tensor<64x64xf32>
  tile.atomic_add %y -> %Out[%c0, %n0] rows(%tok : tensor<64xi32>)
      : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
