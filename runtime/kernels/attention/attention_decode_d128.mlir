// Decode attention (split along the KV cache, as FlashDecoding): the few
// query rows of each (sequence, kv head) against that sequence's cached
// keys and values, head dimension 128, bf16.
//
// Layout: Q and O are [batch * kv_heads, R, 128]: the R <= 16 query rows
// of kv head h of sequence b are row b * kv_heads + h, row r holding new
// token r floordiv %group of query head h * %group + r mod %group (with
// one new token, Q [batch, heads, 128] reshaped). K and V are the caches
// [batch * kv_heads, max_len, 128]; seqlens[b] (i32) is how many positions
// of sequence b hold keys, the new tokens' last, and new token t attends
// to positions < len - R / %group + t + 1 (causal from the bottom right).
// Positions at or past the length are never read into a result, whatever
// they hold.
//
// @attention_decode_d128: program (s, b * kv_heads + h) attends to the
//   positions [s * %split, (s + 1) * %split) of the cache that its rows
//   see; it writes the partial output normalized over those positions,
//   Op[b * kv_heads + h, s] (f32 [batch * kv_heads, splits, R, 128]), and
//   their log-sum-exp in base 2 of the scaled scores, Lse[.., s] (f32
//   [batch * kv_heads, splits, R]): -inf (and a zero output) where a row
//   sees no position of the range. Launch (splits, batch * kv_heads)
//   programs, splits * %split covering max_len.
// @attention_decode_combine_d128: program b * kv_heads + h merges the
//   splits of its rows into O, weighting each by 2^(lse - max lse); a row
//   that sees no position at all gets zeros. Launch batch * kv_heads
//   programs.
tile.kernel @attention_decode_d128(%Q: !tile.view<?x?x128xbf16>,
                                   %K: !tile.view<?x?x128xbf16>,
                                   %V: !tile.view<?x?x128xbf16>,
                                   %seqlens: !tile.view<?xi32>,
                                   %Op: !tile.view<?x?x?x128xf32>,
                                   %Lse: !tile.view<?x?x?xf32>,
                                   %scale: f32, %group: index,
                                   %kv_heads: index, %split: index)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = tile.program_id x
  %bh = tile.program_id y
  %pos_group = arith.cmpi sgt, %group, %c0 : index
  tag.assume %pos_group, "the GQA group size is positive" : i1
  %pos_heads = arith.cmpi sgt, %kv_heads, %c0 : index
  tag.assume %pos_heads, "there is a kv head" : i1
  %c_split_max = arith.constant 2147483648 : index
  %split_pos = arith.cmpi sgt, %split, %c0 : index
  %split_small = arith.cmpi ult, %split, %c_split_max : index
  %split_ok = arith.andi %split_pos, %split_small : i1
  tag.assume %split_ok, "a split is 1 to 2^31 - 1 positions" : i1
  %b = arith.divui %bh, %kv_heads : index
  %rows = tile.dim %Q, 1 : !tile.view<?x?x128xbf16>
  %q_len = arith.divui %rows, %group : index
  %max_len = tile.dim %K, 1 : !tile.view<?x?x128xbf16>

  tag.bind %Q as "Q"(bh, q, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x128xbf16>
  tag.bind %K as "K"(bh, kv, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x128xbf16>
  tag.bind %V as "V"(bh, kv, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x128xbf16>
  tag.bind %Op as "Op"(bh, s, q, d) = (d0, d1, d2, d3) -> (d0, d1, d2, d3)
      : !tile.view<?x?x?x128xf32>
  tag.bind %Lse as "Lse"(bh, s, q) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x?xf32>

  // The sequence's length, clamped to the cache: whatever seqlens holds,
  // only cache positions are read.
  %len_t = tile.load %seqlens[%b] : !tile.view<?xi32> -> tensor<1xi32>
  %len_i32 = tensor.extract %len_t[%c0] : tensor<1xi32>
  %len_raw = arith.index_cast %len_i32 : i32 to index
  %len_pos = arith.maxsi %len_raw, %c0 : index
  %len = arith.minsi %len_pos, %max_len : index

  // Row r (new token t = r floordiv group) sees the positions below
  // len + t + 1 - q_len, of which this program takes [start, end).
  %start = arith.muli %s, %split : index
  %stop = arith.addi %start, %split : index
  %end = arith.minui %stop, %len : index
  %r = tile.iota : tensor<16xindex>
  %group_t = tile.splat %group : index -> tensor<16xindex>
  %t = arith.divui %r, %group_t : tensor<16xindex>
  %lim_t = tile.splat %len : index -> tensor<16xindex>
  %one_t = tile.splat %c1 : index -> tensor<16xindex>
  %q_len_t = tile.splat %q_len : index -> tensor<16xindex>
  %zero_idx_t = tile.splat %c0 : index -> tensor<16xindex>
  %start_t = tile.splat %start : index -> tensor<16xindex>
  %end_t = tile.splat %end : index -> tensor<16xindex>
  %lim1 = arith.addi %lim_t, %t : tensor<16xindex>
  %lim2 = arith.addi %lim1, %one_t : tensor<16xindex>
  %sees = arith.cmpi ugt, %lim2, %q_len_t : tensor<16xindex>
  %lim3 = arith.subi %lim2, %q_len_t : tensor<16xindex>
  %visible = arith.select %sees, %lim3, %zero_idx_t
      : tensor<16xi1>, tensor<16xindex>
  %hi_end = arith.minui %visible, %end_t : tensor<16xindex>
  %hi = arith.maxui %hi_end, %start_t : tensor<16xindex>
  // The first row sees the fewest positions: blocks wholly below its
  // limit need no mask.
  %first = arith.addi %len, %c1 : index
  %first_sees = arith.cmpi ugt, %first, %q_len : index
  %first_lim = arith.subi %first, %q_len : index
  %first_vis = arith.select %first_sees, %first_lim, %c0 : index
  %hi_min_end = arith.minui %first_vis, %end : index
  %hi_min = arith.maxui %hi_min_end, %start : index

  %sQ = tile.alloc_shared : !tile.shared<16x128xbf16>
  tile.copy %Q[%bh, %c0, %c0] -> %sQ
      : !tile.view<?x?x128xbf16> -> !tile.shared<16x128xbf16>
  tile.barrier
  %q = tile.load %sQ : !tile.shared<16x128xbf16> -> tensor<16x128xbf16>
  %sK = tile.alloc_shared : !tile.shared<64x128xbf16>
  %sV = tile.alloc_shared : !tile.shared<64x128xbf16>

  // exp(x scale) = 2^(x scale log2(e)): scores stay unscaled and the scale
  // folds into one FMA before exp2, as in flash_attention_fwd.
  %log2e = arith.constant 1.44269504 : f32
  %c_exp = arith.mulf %scale, %log2e : f32
  %c_exp_t = tile.splat %c_exp : f32 -> tensor<16x64xf32>
  %c_exp_row = tile.splat %c_exp : f32 -> tensor<16xf32>
  %zero_row = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %ninf_t = tile.splat %ninf : f32 -> tensor<16x64xf32>
  %m_init = tile.splat %ninf : f32 -> tensor<16xf32>
  %l_init = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %o_init = arith.constant dense<0.000000e+00> : tensor<16x128xf32>
  %s_zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
  %v_zero = arith.constant dense<0.000000e+00> : tensor<64x128xbf16>
  %cols = tile.iota : tensor<64xindex>
  %hi2 = tile.broadcast %hi dims [1] : tensor<16xindex> -> tensor<16x64xindex>

  %m_fin, %l_fin, %o_fin = scf.for %n0 = %start to %end step %c64
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init)
      -> (tensor<16xf32>, tensor<16xf32>, tensor<16x128xf32>) {
    tile.copy %K[%bh, %n0, %c0] -> %sK
        : !tile.view<?x?x128xbf16> -> !tile.shared<64x128xbf16>
    tile.copy %V[%bh, %n0, %c0] -> %sV
        : !tile.view<?x?x128xbf16> -> !tile.shared<64x128xbf16>
    tile.barrier
    %k = tile.load %sK : !tile.shared<64x128xbf16> -> tensor<64x128xbf16>
    // The keys and values are the query rows' sequence and kv head.
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d2)](bh),
                  %k[(d0, d1, d2) -> (d1, d2)](bh)
        : tensor<16x128xbf16>, tensor<64x128xbf16>
    tag.assert_contract %q, %k over "d" transpose_b
        : tensor<16x128xbf16>, tensor<64x128xbf16>
    %sc = tile.mma %q, %k, %s_zero transpose_b
        : tensor<16x128xbf16>, tensor<64x128xbf16> -> tensor<16x64xf32>
    %v = tile.load %sV : !tile.shared<64x128xbf16> -> tensor<64x128xbf16>
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d1)](bh),
                  %v[(d0, d1, d2) -> (d1, d2)](bh)
        : tensor<16x128xbf16>, tensor<64x128xbf16>

    // Blocks reaching past the first row's limit (the split's end, the
    // sequence's end, the new tokens) mask scores and zero the values of
    // positions no row sees: past the length the cache may hold anything.
    %n_end = arith.addi %n0, %c64 : index
    %edge = arith.cmpi ugt, %n_end, %hi_min : index
    %s_masked, %v_masked = scf.if %edge
        -> (tensor<16x64xf32>, tensor<64x128xbf16>) {
      %n0_t = tile.splat %n0 : index -> tensor<64xindex>
      %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
      %kv_pos2 = tile.broadcast %kv_pos dims [0]
          : tensor<64xindex> -> tensor<16x64xindex>
      %s_kv = tag.coord %sc("kv") : tensor<16x64xf32> -> tensor<16x64xindex>
      %own = arith.cmpi eq, %kv_pos2, %s_kv : tensor<16x64xindex>
      tag.assert %own, "the mask uses the score's own kv coordinate"
          : tensor<16x64xi1>
      %keep = arith.cmpi ult, %kv_pos2, %hi2 : tensor<16x64xindex>
      %masked = tile.select %keep, %sc, %ninf_t
          : tensor<16x64xi1>, tensor<16x64xf32>
      %end_kv = tile.splat %end : index -> tensor<64xindex>
      %in_range = arith.cmpi ult, %kv_pos, %end_kv : tensor<64xindex>
      %in_range2 = tile.broadcast %in_range dims [1]
          : tensor<64xi1> -> tensor<64x128xi1>
      %v_in = tile.select %in_range2, %v, %v_zero
          : tensor<64x128xi1>, tensor<64x128xbf16>
      scf.yield %masked, %v_in : tensor<16x64xf32>, tensor<64x128xbf16>
    } else {
      // Ghost code: every row sees every position of such a block.
      %n0_t = tile.splat %n0 : index -> tensor<64xindex>
      %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
      %kv_pos2 = tile.broadcast %kv_pos dims [0]
          : tensor<64xindex> -> tensor<16x64xindex>
      %keep = arith.cmpi ult, %kv_pos2, %hi2 : tensor<16x64xindex>
      tag.assert %keep, "a block without the mask holds only positions its rows see"
          : tensor<16x64xi1>
      scf.yield %sc, %v : tensor<16x64xf32>, tensor<64x128xbf16>
    }

    // Online softmax. A row that has seen no position yet keeps a max of
    // -inf: its scores shift by 0 instead (-inf - -inf would be NaN), so
    // that its state stays 0.
    %m_blk = tile.reduce max %s_masked dim 1
        : tensor<16x64xf32> -> tensor<16xf32>
    %m_new = arith.maximumf %m_i, %m_blk : tensor<16xf32>
    %m_ninf = tile.splat %ninf : f32 -> tensor<16xf32>
    %unseen = arith.cmpf oeq, %m_new, %m_ninf : tensor<16xf32>
    %m_use = tile.select %unseen, %zero_row, %m_new
        : tensor<16xi1>, tensor<16xf32>
    %m_c = arith.mulf %m_use, %c_exp_row : tensor<16xf32>
    %neg_m_c = arith.subf %zero_row, %m_c : tensor<16xf32>
    %neg_m_c2 = tile.broadcast %neg_m_c dims [1]
        : tensor<16xf32> -> tensor<16x64xf32>
    %shifted = math.fma %s_masked, %c_exp_t, %neg_m_c2 : tensor<16x64xf32>
    %p = math.exp2 %shifted fastmath<afn> : tensor<16x64xf32>
    %alpha_arg = math.fma %m_i, %c_exp_row, %neg_m_c : tensor<16xf32>
    %alpha = math.exp2 %alpha_arg fastmath<afn> : tensor<16xf32>
    %l_blk = tile.reduce sum %p dim 1 : tensor<16x64xf32> -> tensor<16xf32>
    %l_old = arith.mulf %alpha, %l_i : tensor<16xf32>
    %l_new = arith.addf %l_old, %l_blk : tensor<16xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<16xf32> -> tensor<16x128xf32>
    %o_scaled = arith.mulf %o_i, %alpha2 : tensor<16x128xf32>

    %p_bf16 = arith.truncf %p : tensor<16x64xf32> to tensor<16x64xbf16>
    tag.assert_contract %p_bf16, %v_masked over "kv"
        : tensor<16x64xbf16>, tensor<64x128xbf16>
    %o_new = tile.mma %p_bf16, %v_masked, %o_scaled
        : tensor<16x64xbf16>, tensor<64x128xbf16> -> tensor<16x128xf32>
    tag.assert_eq %m_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<16xf32>, tensor<16x128xf32>
    tag.assert_eq %l_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<16xf32>, tensor<16x128xf32>
    tile.barrier
    scf.yield %m_new, %l_new, %o_new
        : tensor<16xf32>, tensor<16xf32>, tensor<16x128xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  // Row q summed every position of the split it sees exactly once.
  %hi_o = tile.broadcast %hi dims [1] : tensor<16xindex> -> tensor<16x128xindex>
  tag.assert_complete %o_fin over "kv" from %start to %hi_o
      : tensor<16x128xf32>, index, tensor<16x128xindex>

  // The partial output, normalized (zero where the row saw nothing), and
  // its log-sum-exp: m c + log2(l), -inf where l = 0.
  %seen = arith.cmpf ogt, %l_fin, %zero_row : tensor<16xf32>
  %seen2 = tile.broadcast %seen dims [1] : tensor<16xi1> -> tensor<16x128xi1>
  %l_fin2 = tile.broadcast %l_fin dims [1]
      : tensor<16xf32> -> tensor<16x128xf32>
  %o_norm = arith.divf %o_fin, %l_fin2 : tensor<16x128xf32>
  %o_part = tile.select %seen2, %o_norm, %o_init
      : tensor<16x128xi1>, tensor<16x128xf32>
  tile.store %o_part -> %Op[%bh, %s, %c0, %c0]
      : tensor<16x128xf32> -> !tile.view<?x?x?x128xf32>
  %m_c_fin = arith.mulf %m_fin, %c_exp_row : tensor<16xf32>
  %log_l = math.log2 %l_fin : tensor<16xf32>
  %lse = arith.addf %m_c_fin, %log_l : tensor<16xf32>
  tile.store %lse -> %Lse[%bh, %s, %c0]
      : tensor<16xf32> -> !tile.view<?x?x?xf32>
  tile.return
}

tile.kernel @attention_decode_combine_d128(%Op: !tile.view<?x?x?x128xf32>,
                                           %Lse: !tile.view<?x?x?xf32>,
                                           %O: !tile.view<?x?x128xbf16>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bh = tile.program_id x
  %splits = tile.dim %Lse, 1 : !tile.view<?x?x?xf32>

  tag.bind %Op as "Op"(bh, s, q, d) = (d0, d1, d2, d3) -> (d0, d1, d2, d3)
      : !tile.view<?x?x?x128xf32>
  tag.bind %Lse as "Lse"(bh, s, q) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x?xf32>
  tag.bind %O as "O"(bh, q, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x128xbf16>

  %ninf = arith.constant 0xFF800000 : f32
  %m_init = tile.splat %ninf : f32 -> tensor<16xf32>
  %zero_row = arith.constant dense<0.000000e+00> : tensor<16xf32>
  %acc_init = arith.constant dense<0.000000e+00> : tensor<16x128xf32>
  %m_fin, %w_fin, %acc_fin = scf.for %s = %c0 to %splits step %c1
      iter_args(%m_i = %m_init, %w_i = %zero_row, %acc_i = %acc_init)
      -> (tensor<16xf32>, tensor<16xf32>, tensor<16x128xf32>) {
    %lse = tile.load %Lse[%bh, %s, %c0]
        : !tile.view<?x?x?xf32> -> tensor<16xf32>
    %o = tile.load %Op[%bh, %s, %c0, %c0]
        : !tile.view<?x?x?x128xf32> -> tensor<16x128xf32>
    // Each row's log-sum-exp weighs that row's output of the same split.
    tag.assert_eq %lse[(d0, d1) -> (d0)](bh, s, q),
                  %o[(d0, d1) -> (d0, d1)](bh, s, q)
        : tensor<16xf32>, tensor<16x128xf32>
    // Weights relative to the running max; while every split so far is
    // empty (-inf) the shift is 0, so that empty splits weigh 0.
    %m_new = arith.maximumf %m_i, %lse : tensor<16xf32>
    %unseen = arith.cmpf oeq, %m_new, %m_init : tensor<16xf32>
    %m_use = tile.select %unseen, %zero_row, %m_new
        : tensor<16xi1>, tensor<16xf32>
    %alpha_arg = arith.subf %m_i, %m_use : tensor<16xf32>
    %alpha = math.exp2 %alpha_arg : tensor<16xf32>
    %w_arg = arith.subf %lse, %m_use : tensor<16xf32>
    %w = math.exp2 %w_arg : tensor<16xf32>
    %w_old = arith.mulf %w_i, %alpha : tensor<16xf32>
    %w_new = arith.addf %w_old, %w : tensor<16xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<16xf32> -> tensor<16x128xf32>
    %w2 = tile.broadcast %w dims [1] : tensor<16xf32> -> tensor<16x128xf32>
    %acc_old = arith.mulf %acc_i, %alpha2 : tensor<16x128xf32>
    %o_w = arith.mulf %o, %w2 : tensor<16x128xf32>
    %acc_new = arith.addf %acc_old, %o_w : tensor<16x128xf32>
    scf.yield %m_new, %w_new, %acc_new
        : tensor<16xf32>, tensor<16xf32>, tensor<16x128xf32>
  }
  %seen = arith.cmpf ogt, %w_fin, %zero_row : tensor<16xf32>
  %seen2 = tile.broadcast %seen dims [1] : tensor<16xi1> -> tensor<16x128xi1>
  %w_fin2 = tile.broadcast %w_fin dims [1]
      : tensor<16xf32> -> tensor<16x128xf32>
  %o_norm = arith.divf %acc_fin, %w_fin2 : tensor<16x128xf32>
  %o_out = tile.select %seen2, %o_norm, %acc_init
      : tensor<16x128xi1>, tensor<16x128xf32>
  %out = arith.truncf %o_out : tensor<16x128xf32> to tensor<16x128xbf16>
  tile.store %out -> %O[%bh, %c0, %c0]
      : tensor<16x128xbf16> -> !tile.view<?x?x128xbf16>
  tile.return
}
