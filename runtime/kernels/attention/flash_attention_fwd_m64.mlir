// FlashAttention-2 forward on 64 query rows a program: O = softmax(Q · Kᵀ ·
// scale [+ causal mask]) · V, flash_attention_fwd.mlir with 64 rows of one
// warpgroup (128 threads) a program instead of 128 rows of two.
//
// The shape for the ping-pong schedule (tile-pipeline{warp-specialize},
// then tile-persistent{pingpong}): two consumer warpgroups, each on its
// own 64-row tile, one's softmax and epilogue beside the other's MMAs.
// Layout: Q and O are [batch * q_heads, seq_q, 64], K and V are
// [batch * kv_heads, seq_kv, 64], all bf16; query head bh reads kv head
// bh floordiv %group. Launch (ceil(seq_q / 64), batch * q_heads) programs.
// With %causal, query row q attends to keys kv <= q only, blocks past the
// diagonal are skipped, and only the blocks that hold a key some query of
// the tile must not see evaluate the mask. Scores stay unscaled until one
// FMA before exp2 folds in the scale.
tile.kernel @flash_attention_fwd_m64(%Q: !tile.view<?x?x64xbf16>,
                                 %K: !tile.view<?x?x64xbf16>,
                                 %V: !tile.view<?x?x64xbf16>,
                                 %O: !tile.view<?x?x64xbf16>,
                                 %scale: f32, %group: index, %causal: i1)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %pid_q = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %pid_q, %c64 : index
  %pos_group = arith.cmpi sgt, %group, %c0 : index
  tag.assume %pos_group, "the GQA group size is positive" : i1
  %kvh = arith.divui %bh, %group : index
  %seq_kv = tile.dim %K, 1 : !tile.view<?x?x64xbf16>

  // Rows carry (head, position); columns the head dimension d. The kv head
  // each query head must read is part of the query's tag.
  tag.bind %Q as "Q"(bh, q, d, kvh) = (d0, d1, d2)[s0]
      -> (d0, d1, d2, d0 floordiv s0) captures(%group)
      : !tile.view<?x?x64xbf16>
  tag.bind %K as "K"(kvh, kv, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x64xbf16>
  tag.bind %V as "V"(kvh, kv, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x64xbf16>
  tag.bind %O as "O"(bh, q, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x64xbf16>

  // Q stays in shared memory for the whole program: mma.sync reads it into
  // registers once, sm_90a's wgmma reads it from there at every step.
  %sQ = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %Q[%bh, %m0, %c0] -> %sQ
      : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
  tile.barrier
  %q = tile.load %sQ : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %sK = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sV = tile.alloc_shared : !tile.shared<64x64xbf16>

  // Causal programs stop at the diagonal block.
  %diag = arith.addi %m0, %c64 : index
  %causal_end = arith.minui %seq_kv, %diag : index
  %kv_end = arith.select %causal, %causal_end, %seq_kv : index

  // exp(x scale) = 2^(x scale log2(e)): scores stay unscaled (the scale is
  // positive, so their maxima are the scaled ones' over it) and the scale
  // folds into one FMA before exp2, x c - m c.
  %log2e = arith.constant 1.44269504 : f32
  %c_exp = arith.mulf %scale, %log2e : f32
  %c_exp_t = tile.splat %c_exp : f32 -> tensor<64x64xf32>
  %c_exp_row = tile.splat %c_exp : f32 -> tensor<64xf32>
  %zero_row = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %m1 = arith.addi %m0, %c1 : index
  %ninf = arith.constant 0xFF800000 : f32
  %ninf_t = tile.splat %ninf : f32 -> tensor<64x64xf32>
  %m_init = tile.splat %ninf : f32 -> tensor<64xf32>
  %l_init = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %o_init = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %s_zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %rows = tile.iota : tensor<64xindex>
  %cols = tile.iota : tensor<64xindex>
  %m0_t = tile.splat %m0 : index -> tensor<64xindex>
  %q_pos = arith.addi %rows, %m0_t : tensor<64xindex>
  %q_pos2 = tile.broadcast %q_pos dims [1]
      : tensor<64xindex> -> tensor<64x64xindex>
  %seq_kv_t = tile.splat %seq_kv : index -> tensor<64x64xindex>
  %not_causal = arith.xori %causal, %true : i1
  %not_causal_t = tile.splat %not_causal : i1 -> tensor<64x64xi1>

  %m_fin, %l_fin, %o_fin = scf.for %n0 = %c0 to %kv_end step %c64
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>) {
    tile.copy %K[%kvh, %n0, %c0] -> %sK
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %V[%kvh, %n0, %c0] -> %sV
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %k = tile.load %sK : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // GQA: the keys belong to the kv head of the query's head.
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d2)](kvh),
                  %k[(d0, d1, d2) -> (d1, d2)](kvh)
        : tensor<64x64xbf16>, tensor<64x64xbf16>
    tag.assert_contract %q, %k over "d" transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16>
    %s = tile.mma %q, %k, %s_zero transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>

    // Only blocks with a key past the end, or (causal) a key after the
    // tile's first query, need the mask: the diagonal and ragged blocks.
    %n_end = arith.addi %n0, %c64 : index
    %ragged = arith.cmpi ugt, %n_end, %seq_kv : index
    %past_q = arith.cmpi ugt, %n_end, %m1 : index
    %diagonal = arith.andi %causal, %past_q : i1
    %edge = arith.ori %ragged, %diagonal : i1
    %s_masked = scf.if %edge -> (tensor<64x64xf32>) {
      // Mask keys past the end and, if causal, keys after the query.
      %n0_t = tile.splat %n0 : index -> tensor<64xindex>
      %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
      %kv_pos2 = tile.broadcast %kv_pos dims [0]
          : tensor<64xindex> -> tensor<64x64xindex>
      %s_q = tag.coord %s("q") : tensor<64x64xf32> -> tensor<64x64xindex>
      %s_kv = tag.coord %s("kv") : tensor<64x64xf32> -> tensor<64x64xindex>
      %same_q = arith.cmpi eq, %q_pos2, %s_q : tensor<64x64xindex>
      %same_kv = arith.cmpi eq, %kv_pos2, %s_kv : tensor<64x64xindex>
      %own_coords = arith.andi %same_q, %same_kv : tensor<64x64xi1>
      tag.assert %own_coords, "the mask uses the score's own (q, kv) coordinates"
          : tensor<64x64xi1>
      %in_range = arith.cmpi ult, %kv_pos2, %seq_kv_t : tensor<64x64xindex>
      %not_future = arith.cmpi ule, %kv_pos2, %q_pos2 : tensor<64x64xindex>
      %causal_ok = arith.ori %not_future, %not_causal_t : tensor<64x64xi1>
      %keep = arith.andi %in_range, %causal_ok : tensor<64x64xi1>
      %masked = tile.select %keep, %s, %ninf_t
          : tensor<64x64xi1>, tensor<64x64xf32>
      scf.yield %masked : tensor<64x64xf32>
    } else {
      // Ghost code: every key of such a block is one each query attends to.
      %n0_t = tile.splat %n0 : index -> tensor<64xindex>
      %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
      %kv_pos2 = tile.broadcast %kv_pos dims [0]
          : tensor<64xindex> -> tensor<64x64xindex>
      %in_range = arith.cmpi ult, %kv_pos2, %seq_kv_t : tensor<64x64xindex>
      %not_future = arith.cmpi ule, %kv_pos2, %q_pos2 : tensor<64x64xindex>
      %causal_ok = arith.ori %not_future, %not_causal_t : tensor<64x64xi1>
      %keep = arith.andi %in_range, %causal_ok : tensor<64x64xi1>
      tag.assert %keep, "a block without the mask holds only keys its queries attend to"
          : tensor<64x64xi1>
      scf.yield %s : tensor<64x64xf32>
    }

    // Online softmax: new running max (of unscaled scores), rescale of the
    // old state. 2^(s c - m c) is one FMA and the hardware's 2^x
    // (fastmath<afn>: ex2.approx on NVIDIA, v_exp_f32 on AMD).
    %m_blk = tile.reduce max %s_masked dim 1
        : tensor<64x64xf32> -> tensor<64xf32>
    %m_new = arith.maximumf %m_i, %m_blk : tensor<64xf32>
    %m_c = arith.mulf %m_new, %c_exp_row : tensor<64xf32>
    %neg_m_c = arith.subf %zero_row, %m_c : tensor<64xf32>
    %neg_m_c2 = tile.broadcast %neg_m_c dims [1]
        : tensor<64xf32> -> tensor<64x64xf32>
    %shifted = math.fma %s_masked, %c_exp_t, %neg_m_c2 : tensor<64x64xf32>
    %p = math.exp2 %shifted fastmath<afn> : tensor<64x64xf32>
    %alpha_arg = math.fma %m_i, %c_exp_row, %neg_m_c : tensor<64xf32>
    %alpha = math.exp2 %alpha_arg fastmath<afn> : tensor<64xf32>
    %l_blk = tile.reduce sum %p dim 1 : tensor<64x64xf32> -> tensor<64xf32>
    %l_old = arith.mulf %alpha, %l_i : tensor<64xf32>
    %l_new = arith.addf %l_old, %l_blk : tensor<64xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<64xf32> -> tensor<64x64xf32>
    %o_scaled = arith.mulf %o_i, %alpha2 : tensor<64x64xf32>

    %p_bf16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
    %v = tile.load %sV : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    tag.assert_contract %p_bf16, %v over "kv"
        : tensor<64x64xbf16>, tensor<64x64xbf16>
    %o_new = tile.mma %p_bf16, %v, %o_scaled
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    // Row state pairing: the running max and sum of row i belong to the
    // same query row as output row i.
    tag.assert_eq %m_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<64xf32>, tensor<64x64xf32>
    tag.assert_eq %l_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<64xf32>, tensor<64x64xf32>
    tile.barrier
    scf.yield %m_new, %l_new, %o_new
        : tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  // Row q summed every key it attends to exactly once: [0, seq_kv), or
  // [0, min(seq_kv, q + 1)) when causal.
  %one_t = tile.splat %c1 : index -> tensor<64x64xindex>
  %q_next = arith.addi %q_pos2, %one_t : tensor<64x64xindex>
  %causal_hi = arith.minui %q_next, %seq_kv_t : tensor<64x64xindex>
  %causal_t = tile.splat %causal : i1 -> tensor<64x64xi1>
  %kv_hi = arith.select %causal_t, %causal_hi, %seq_kv_t
      : tensor<64x64xi1>, tensor<64x64xindex>
  tag.assert_complete %o_fin over "kv" from %c0 to %kv_hi
      : tensor<64x64xf32>, index, tensor<64x64xindex>

  %l_fin2 = tile.broadcast %l_fin dims [1]
      : tensor<64xf32> -> tensor<64x64xf32>
  %o_norm = arith.divf %o_fin, %l_fin2 : tensor<64x64xf32>
  %out = arith.truncf %o_norm : tensor<64x64xf32> to tensor<64x64xbf16>
  // The checker proves the store: row i carries query m0 + i of head bh.
  tile.store %out -> %O[%bh, %m0, %c0]
      : tensor<64x64xbf16> -> !tile.view<?x?x64xbf16>
  tile.return
}
