// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Attention invariants: GQA head mapping, contraction at both MMAs, mask
// coordinates, row-state pairing and output ownership.

// The shipped FlashAttention kernel, unchanged, passes.
tile.kernel @correct(%Q: !tile.view<?x?x64xbf16>,
                                 %K: !tile.view<?x?x64xbf16>,
                                 %V: !tile.view<?x?x64xbf16>,
                                 %O: !tile.view<?x?x64xbf16>,
                                 %scale: f32, %group: index, %causal: i1)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %pid_q = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %pid_q, %c128 : index
  %group_pos = arith.cmpi sgt, %group, %c0 : index
  tag.assume %group_pos, "the GQA group size is positive" : i1
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

  %q = tile.load %Q[%bh, %m0, %c0]
      : !tile.view<?x?x64xbf16> -> tensor<128x64xbf16>
  %sK = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sV = tile.alloc_shared : !tile.shared<64x64xbf16>

  // Causal programs stop at the diagonal block.
  %diag = arith.addi %m0, %c128 : index
  %causal_end = arith.minui %seq_kv, %diag : index
  %kv_end = arith.select %causal, %causal_end, %seq_kv : index

  %scale_t = tile.splat %scale : f32 -> tensor<128x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %ninf_t = tile.splat %ninf : f32 -> tensor<128x64xf32>
  %m_init = tile.splat %ninf : f32 -> tensor<128xf32>
  %l_init = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %o_init = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %s_zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %rows = tile.iota : tensor<128xindex>
  %cols = tile.iota : tensor<64xindex>
  %m0_t = tile.splat %m0 : index -> tensor<128xindex>
  %q_pos = arith.addi %rows, %m0_t : tensor<128xindex>
  %q_pos2 = tile.broadcast %q_pos dims [1]
      : tensor<128xindex> -> tensor<128x64xindex>
  %seq_kv_t = tile.splat %seq_kv : index -> tensor<128x64xindex>
  %not_causal = arith.xori %causal, %true : i1
  %not_causal_t = tile.splat %not_causal : i1 -> tensor<128x64xi1>

  %m_fin, %l_fin, %o_fin = scf.for %n0 = %c0 to %kv_end step %c64
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    tile.copy %K[%kvh, %n0, %c0] -> %sK
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %V[%kvh, %n0, %c0] -> %sV
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %k = tile.load %sK : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // GQA: the keys belong to the kv head of the query's head.
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d2)](kvh),
                  %k[(d0, d1, d2) -> (d1, d2)](kvh)
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    tag.assert_contract %q, %k over "d" transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %s = tile.mma %q, %k, %s_zero transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %s_scaled = arith.mulf %s, %scale_t : tensor<128x64xf32>

    // Mask keys past the end and, if causal, keys after the query.
    %n0_t = tile.splat %n0 : index -> tensor<64xindex>
    %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
    %kv_pos2 = tile.broadcast %kv_pos dims [0]
        : tensor<64xindex> -> tensor<128x64xindex>
    %s_q = tag.coord %s("q") : tensor<128x64xf32> -> tensor<128x64xindex>
    %s_kv = tag.coord %s("kv") : tensor<128x64xf32> -> tensor<128x64xindex>
    %same_q = arith.cmpi eq, %q_pos2, %s_q : tensor<128x64xindex>
    %same_kv = arith.cmpi eq, %kv_pos2, %s_kv : tensor<128x64xindex>
    %own_coords = arith.andi %same_q, %same_kv : tensor<128x64xi1>
    tag.assert %own_coords, "the mask uses the score's own (q, kv) coordinates"
        : tensor<128x64xi1>
    %in_range = arith.cmpi ult, %kv_pos2, %seq_kv_t : tensor<128x64xindex>
    %not_future = arith.cmpi ule, %kv_pos2, %q_pos2 : tensor<128x64xindex>
    %causal_ok = arith.ori %not_future, %not_causal_t : tensor<128x64xi1>
    %keep = arith.andi %in_range, %causal_ok : tensor<128x64xi1>
    %s_masked = tile.select %keep, %s_scaled, %ninf_t
        : tensor<128x64xi1>, tensor<128x64xf32>

    // Online softmax: new running max, rescale of the old state.
    %m_blk = tile.reduce max %s_masked dim 1
        : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %m_blk : tensor<128xf32>
    %m_new2 = tile.broadcast %m_new dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %shifted = arith.subf %s_masked, %m_new2 : tensor<128x64xf32>
    %p = math.exp %shifted : tensor<128x64xf32>
    %m_diff = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp %m_diff : tensor<128xf32>
    %l_blk = tile.reduce sum %p dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_old = arith.mulf %alpha, %l_i : tensor<128xf32>
    %l_new = arith.addf %l_old, %l_blk : tensor<128xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %o_scaled = arith.mulf %o_i, %alpha2 : tensor<128x64xf32>

    %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %v = tile.load %sV : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    tag.assert_contract %p_bf16, %v over "kv"
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %o_new = tile.mma %p_bf16, %v, %o_scaled
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    // Row state pairing: the running max and sum of row i belong to the
    // same query row as output row i.
    tag.assert_eq %m_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tag.assert_eq %l_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tile.barrier
    scf.yield %m_new, %l_new, %o_new
        : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}

  %l_fin2 = tile.broadcast %l_fin dims [1]
      : tensor<128xf32> -> tensor<128x64xf32>
  %o_norm = arith.divf %o_fin, %l_fin2 : tensor<128x64xf32>
  %out = arith.truncf %o_norm : tensor<128x64xf32> to tensor<128x64xbf16>
  tag.assert_eq %out[(d0, d1)[s0, s1] -> (d0, d1)](bh, q, d),
                %O[(d0, d1)[s0, s1] -> (s0, d0 + s1, d1)](bh, q, d)
      captures(%bh, %m0) : tensor<128x64xbf16>, !tile.view<?x?x64xbf16>
  tile.store %out -> %O[%bh, %m0, %c0]
      : tensor<128x64xbf16> -> !tile.view<?x?x64xbf16>
  tile.return
}

// -----

// Mutant: the mask's key positions are one off.
tile.kernel @mask_shifted_keys(%Q: !tile.view<?x?x64xbf16>,
                                 %K: !tile.view<?x?x64xbf16>,
                                 %V: !tile.view<?x?x64xbf16>,
                                 %O: !tile.view<?x?x64xbf16>,
                                 %scale: f32, %group: index, %causal: i1)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %pid_q = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %pid_q, %c128 : index
  %group_pos = arith.cmpi sgt, %group, %c0 : index
  tag.assume %group_pos, "the GQA group size is positive" : i1
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

  %q = tile.load %Q[%bh, %m0, %c0]
      : !tile.view<?x?x64xbf16> -> tensor<128x64xbf16>
  %sK = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sV = tile.alloc_shared : !tile.shared<64x64xbf16>

  // Causal programs stop at the diagonal block.
  %diag = arith.addi %m0, %c128 : index
  %causal_end = arith.minui %seq_kv, %diag : index
  %kv_end = arith.select %causal, %causal_end, %seq_kv : index

  %scale_t = tile.splat %scale : f32 -> tensor<128x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %ninf_t = tile.splat %ninf : f32 -> tensor<128x64xf32>
  %m_init = tile.splat %ninf : f32 -> tensor<128xf32>
  %l_init = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %o_init = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %s_zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %rows = tile.iota : tensor<128xindex>
  %cols = tile.iota : tensor<64xindex>
  %m0_t = tile.splat %m0 : index -> tensor<128xindex>
  %q_pos = arith.addi %rows, %m0_t : tensor<128xindex>
  %q_pos2 = tile.broadcast %q_pos dims [1]
      : tensor<128xindex> -> tensor<128x64xindex>
  %seq_kv_t = tile.splat %seq_kv : index -> tensor<128x64xindex>
  %not_causal = arith.xori %causal, %true : i1
  %not_causal_t = tile.splat %not_causal : i1 -> tensor<128x64xi1>

  %m_fin, %l_fin, %o_fin = scf.for %n0 = %c0 to %kv_end step %c64
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    tile.copy %K[%kvh, %n0, %c0] -> %sK
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %V[%kvh, %n0, %c0] -> %sV
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %k = tile.load %sK : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // GQA: the keys belong to the kv head of the query's head.
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d2)](kvh),
                  %k[(d0, d1, d2) -> (d1, d2)](kvh)
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    tag.assert_contract %q, %k over "d" transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %s = tile.mma %q, %k, %s_zero transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %s_scaled = arith.mulf %s, %scale_t : tensor<128x64xf32>

    // Mask keys past the end and, if causal, keys after the query.
    %n1 = arith.addi %n0, %c1 : index
    %n0_t = tile.splat %n1 : index -> tensor<64xindex>
    %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
    %kv_pos2 = tile.broadcast %kv_pos dims [0]
        : tensor<64xindex> -> tensor<128x64xindex>
    %s_q = tag.coord %s("q") : tensor<128x64xf32> -> tensor<128x64xindex>
    %s_kv = tag.coord %s("kv") : tensor<128x64xf32> -> tensor<128x64xindex>
    %same_q = arith.cmpi eq, %q_pos2, %s_q : tensor<128x64xindex>
    %same_kv = arith.cmpi eq, %kv_pos2, %s_kv : tensor<128x64xindex>
    %own_coords = arith.andi %same_q, %same_kv : tensor<128x64xi1>
    // expected-error @below {{tag assertion failed: the mask uses the score's own (q, kv) coordinates}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{it is false at element %own_coords[}}
    tag.assert %own_coords, "the mask uses the score's own (q, kv) coordinates"
        : tensor<128x64xi1>
    %in_range = arith.cmpi ult, %kv_pos2, %seq_kv_t : tensor<128x64xindex>
    %not_future = arith.cmpi ule, %kv_pos2, %q_pos2 : tensor<128x64xindex>
    %causal_ok = arith.ori %not_future, %not_causal_t : tensor<128x64xi1>
    %keep = arith.andi %in_range, %causal_ok : tensor<128x64xi1>
    %s_masked = tile.select %keep, %s_scaled, %ninf_t
        : tensor<128x64xi1>, tensor<128x64xf32>

    // Online softmax: new running max, rescale of the old state.
    %m_blk = tile.reduce max %s_masked dim 1
        : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %m_blk : tensor<128xf32>
    %m_new2 = tile.broadcast %m_new dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %shifted = arith.subf %s_masked, %m_new2 : tensor<128x64xf32>
    %p = math.exp %shifted : tensor<128x64xf32>
    %m_diff = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp %m_diff : tensor<128xf32>
    %l_blk = tile.reduce sum %p dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_old = arith.mulf %alpha, %l_i : tensor<128xf32>
    %l_new = arith.addf %l_old, %l_blk : tensor<128xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %o_scaled = arith.mulf %o_i, %alpha2 : tensor<128x64xf32>

    %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %v = tile.load %sV : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    tag.assert_contract %p_bf16, %v over "kv"
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %o_new = tile.mma %p_bf16, %v, %o_scaled
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    // Row state pairing: the running max and sum of row i belong to the
    // same query row as output row i.
    tag.assert_eq %m_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tag.assert_eq %l_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tile.barrier
    scf.yield %m_new, %l_new, %o_new
        : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}

  %l_fin2 = tile.broadcast %l_fin dims [1]
      : tensor<128xf32> -> tensor<128x64xf32>
  %o_norm = arith.divf %o_fin, %l_fin2 : tensor<128x64xf32>
  %out = arith.truncf %o_norm : tensor<128x64xf32> to tensor<128x64xbf16>
  tag.assert_eq %out[(d0, d1)[s0, s1] -> (d0, d1)](bh, q, d),
                %O[(d0, d1)[s0, s1] -> (s0, d0 + s1, d1)](bh, q, d)
      captures(%bh, %m0) : tensor<128x64xbf16>, !tile.view<?x?x64xbf16>
  tile.store %out -> %O[%bh, %m0, %c0]
      : tensor<128x64xbf16> -> !tile.view<?x?x64xbf16>
  tile.return
}

// -----

// Mutant: keys read from the query's head, not its kv head.
tile.kernel @gqa_wrong_head(%Q: !tile.view<?x?x64xbf16>,
                                 %K: !tile.view<?x?x64xbf16>,
                                 %V: !tile.view<?x?x64xbf16>,
                                 %O: !tile.view<?x?x64xbf16>,
                                 %scale: f32, %group: index, %causal: i1)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %pid_q = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %pid_q, %c128 : index
  %group_pos = arith.cmpi sgt, %group, %c0 : index
  tag.assume %group_pos, "the GQA group size is positive" : i1
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

  // expected-note @below {{was written here}}
  %q = tile.load %Q[%bh, %m0, %c0]
      : !tile.view<?x?x64xbf16> -> tensor<128x64xbf16>
  %sK = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sV = tile.alloc_shared : !tile.shared<64x64xbf16>

  // Causal programs stop at the diagonal block.
  %diag = arith.addi %m0, %c128 : index
  %causal_end = arith.minui %seq_kv, %diag : index
  %kv_end = arith.select %causal, %causal_end, %seq_kv : index

  %scale_t = tile.splat %scale : f32 -> tensor<128x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %ninf_t = tile.splat %ninf : f32 -> tensor<128x64xf32>
  %m_init = tile.splat %ninf : f32 -> tensor<128xf32>
  %l_init = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %o_init = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %s_zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %rows = tile.iota : tensor<128xindex>
  %cols = tile.iota : tensor<64xindex>
  %m0_t = tile.splat %m0 : index -> tensor<128xindex>
  %q_pos = arith.addi %rows, %m0_t : tensor<128xindex>
  %q_pos2 = tile.broadcast %q_pos dims [1]
      : tensor<128xindex> -> tensor<128x64xindex>
  %seq_kv_t = tile.splat %seq_kv : index -> tensor<128x64xindex>
  %not_causal = arith.xori %causal, %true : i1
  %not_causal_t = tile.splat %not_causal : i1 -> tensor<128x64xi1>

  %m_fin, %l_fin, %o_fin = scf.for %n0 = %c0 to %kv_end step %c64
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    // expected-note @below {{was written here}}
    tile.copy %K[%bh, %n0, %c0] -> %sK
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %V[%kvh, %n0, %c0] -> %sV
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %k = tile.load %sK : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // GQA: the keys belong to the kv head of the query's head.
    // expected-error @below {{tag assertion failed: tags differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries Q(}}
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d2)](kvh),
                  %k[(d0, d1, d2) -> (d1, d2)](kvh)
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    tag.assert_contract %q, %k over "d" transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    // expected-error @below {{operands disagree on a component both carry (d, kvh)}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries Q(}}
    %s = tile.mma %q, %k, %s_zero transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %s_scaled = arith.mulf %s, %scale_t : tensor<128x64xf32>

    // Mask keys past the end and, if causal, keys after the query.
    %n0_t = tile.splat %n0 : index -> tensor<64xindex>
    %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
    %kv_pos2 = tile.broadcast %kv_pos dims [0]
        : tensor<64xindex> -> tensor<128x64xindex>
    %s_q = tag.coord %s("q") : tensor<128x64xf32> -> tensor<128x64xindex>
    %s_kv = tag.coord %s("kv") : tensor<128x64xf32> -> tensor<128x64xindex>
    %same_q = arith.cmpi eq, %q_pos2, %s_q : tensor<128x64xindex>
    %same_kv = arith.cmpi eq, %kv_pos2, %s_kv : tensor<128x64xindex>
    %own_coords = arith.andi %same_q, %same_kv : tensor<128x64xi1>
    tag.assert %own_coords, "the mask uses the score's own (q, kv) coordinates"
        : tensor<128x64xi1>
    %in_range = arith.cmpi ult, %kv_pos2, %seq_kv_t : tensor<128x64xindex>
    %not_future = arith.cmpi ule, %kv_pos2, %q_pos2 : tensor<128x64xindex>
    %causal_ok = arith.ori %not_future, %not_causal_t : tensor<128x64xi1>
    %keep = arith.andi %in_range, %causal_ok : tensor<128x64xi1>
    %s_masked = tile.select %keep, %s_scaled, %ninf_t
        : tensor<128x64xi1>, tensor<128x64xf32>

    // Online softmax: new running max, rescale of the old state.
    %m_blk = tile.reduce max %s_masked dim 1
        : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %m_blk : tensor<128xf32>
    %m_new2 = tile.broadcast %m_new dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %shifted = arith.subf %s_masked, %m_new2 : tensor<128x64xf32>
    %p = math.exp %shifted : tensor<128x64xf32>
    %m_diff = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp %m_diff : tensor<128xf32>
    %l_blk = tile.reduce sum %p dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_old = arith.mulf %alpha, %l_i : tensor<128xf32>
    %l_new = arith.addf %l_old, %l_blk : tensor<128xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %o_scaled = arith.mulf %o_i, %alpha2 : tensor<128x64xf32>

    %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %v = tile.load %sV : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    tag.assert_contract %p_bf16, %v over "kv"
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %o_new = tile.mma %p_bf16, %v, %o_scaled
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    // Row state pairing: the running max and sum of row i belong to the
    // same query row as output row i.
    tag.assert_eq %m_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tag.assert_eq %l_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tile.barrier
    scf.yield %m_new, %l_new, %o_new
        : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}

  %l_fin2 = tile.broadcast %l_fin dims [1]
      : tensor<128xf32> -> tensor<128x64xf32>
  %o_norm = arith.divf %o_fin, %l_fin2 : tensor<128x64xf32>
  %out = arith.truncf %o_norm : tensor<128x64xf32> to tensor<128x64xbf16>
  tag.assert_eq %out[(d0, d1)[s0, s1] -> (d0, d1)](bh, q, d),
                %O[(d0, d1)[s0, s1] -> (s0, d0 + s1, d1)](bh, q, d)
      captures(%bh, %m0) : tensor<128x64xbf16>, !tile.view<?x?x64xbf16>
  tile.store %out -> %O[%bh, %m0, %c0]
      : tensor<128x64xbf16> -> !tile.view<?x?x64xbf16>
  tile.return
}

// -----

// Mutant: the output tile is claimed for the next block of rows.
tile.kernel @output_wrong_rows(%Q: !tile.view<?x?x64xbf16>,
                                 %K: !tile.view<?x?x64xbf16>,
                                 %V: !tile.view<?x?x64xbf16>,
                                 %O: !tile.view<?x?x64xbf16>,
                                 %scale: f32, %group: index, %causal: i1)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %pid_q = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %pid_q, %c128 : index
  %group_pos = arith.cmpi sgt, %group, %c0 : index
  tag.assume %group_pos, "the GQA group size is positive" : i1
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
  // expected-note @below {{tag is bound here}}
  tag.bind %O as "O"(bh, q, d) = (d0, d1, d2) -> (d0, d1, d2)
      : !tile.view<?x?x64xbf16>

  %q = tile.load %Q[%bh, %m0, %c0]
      : !tile.view<?x?x64xbf16> -> tensor<128x64xbf16>
  %sK = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sV = tile.alloc_shared : !tile.shared<64x64xbf16>

  // Causal programs stop at the diagonal block.
  %diag = arith.addi %m0, %c128 : index
  %causal_end = arith.minui %seq_kv, %diag : index
  %kv_end = arith.select %causal, %causal_end, %seq_kv : index

  %scale_t = tile.splat %scale : f32 -> tensor<128x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %ninf_t = tile.splat %ninf : f32 -> tensor<128x64xf32>
  %m_init = tile.splat %ninf : f32 -> tensor<128xf32>
  %l_init = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %o_init = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %s_zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %rows = tile.iota : tensor<128xindex>
  %cols = tile.iota : tensor<64xindex>
  %m0_t = tile.splat %m0 : index -> tensor<128xindex>
  %q_pos = arith.addi %rows, %m0_t : tensor<128xindex>
  %q_pos2 = tile.broadcast %q_pos dims [1]
      : tensor<128xindex> -> tensor<128x64xindex>
  %seq_kv_t = tile.splat %seq_kv : index -> tensor<128x64xindex>
  %not_causal = arith.xori %causal, %true : i1
  %not_causal_t = tile.splat %not_causal : i1 -> tensor<128x64xi1>

  %m_fin, %l_fin, %o_fin = scf.for %n0 = %c0 to %kv_end step %c64
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    tile.copy %K[%kvh, %n0, %c0] -> %sK
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %V[%kvh, %n0, %c0] -> %sV
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %k = tile.load %sK : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // GQA: the keys belong to the kv head of the query's head.
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d2)](kvh),
                  %k[(d0, d1, d2) -> (d1, d2)](kvh)
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    tag.assert_contract %q, %k over "d" transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %s = tile.mma %q, %k, %s_zero transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %s_scaled = arith.mulf %s, %scale_t : tensor<128x64xf32>

    // Mask keys past the end and, if causal, keys after the query.
    %n0_t = tile.splat %n0 : index -> tensor<64xindex>
    %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
    %kv_pos2 = tile.broadcast %kv_pos dims [0]
        : tensor<64xindex> -> tensor<128x64xindex>
    %s_q = tag.coord %s("q") : tensor<128x64xf32> -> tensor<128x64xindex>
    %s_kv = tag.coord %s("kv") : tensor<128x64xf32> -> tensor<128x64xindex>
    %same_q = arith.cmpi eq, %q_pos2, %s_q : tensor<128x64xindex>
    %same_kv = arith.cmpi eq, %kv_pos2, %s_kv : tensor<128x64xindex>
    %own_coords = arith.andi %same_q, %same_kv : tensor<128x64xi1>
    tag.assert %own_coords, "the mask uses the score's own (q, kv) coordinates"
        : tensor<128x64xi1>
    %in_range = arith.cmpi ult, %kv_pos2, %seq_kv_t : tensor<128x64xindex>
    %not_future = arith.cmpi ule, %kv_pos2, %q_pos2 : tensor<128x64xindex>
    %causal_ok = arith.ori %not_future, %not_causal_t : tensor<128x64xi1>
    %keep = arith.andi %in_range, %causal_ok : tensor<128x64xi1>
    %s_masked = tile.select %keep, %s_scaled, %ninf_t
        : tensor<128x64xi1>, tensor<128x64xf32>

    // Online softmax: new running max, rescale of the old state.
    %m_blk = tile.reduce max %s_masked dim 1
        : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %m_blk : tensor<128xf32>
    %m_new2 = tile.broadcast %m_new dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %shifted = arith.subf %s_masked, %m_new2 : tensor<128x64xf32>
    %p = math.exp %shifted : tensor<128x64xf32>
    %m_diff = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp %m_diff : tensor<128xf32>
    %l_blk = tile.reduce sum %p dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_old = arith.mulf %alpha, %l_i : tensor<128xf32>
    %l_new = arith.addf %l_old, %l_blk : tensor<128xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %o_scaled = arith.mulf %o_i, %alpha2 : tensor<128x64xf32>

    %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %v = tile.load %sV : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    tag.assert_contract %p_bf16, %v over "kv"
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %o_new = tile.mma %p_bf16, %v, %o_scaled
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    // Row state pairing: the running max and sum of row i belong to the
    // same query row as output row i.
    tag.assert_eq %m_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tag.assert_eq %l_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tile.barrier
    scf.yield %m_new, %l_new, %o_new
        : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}

  %l_fin2 = tile.broadcast %l_fin dims [1]
      : tensor<128xf32> -> tensor<128x64xf32>
  // expected-note @below {{was written here}}
  %o_norm = arith.divf %o_fin, %l_fin2 : tensor<128x64xf32>
  %out = arith.truncf %o_norm : tensor<128x64xf32> to tensor<128x64xbf16>
  %m0_wrong = arith.addi %m0, %c64 : index
  // expected-error @below {{tag assertion failed: tags differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries Q*K|Q*K*V(}}
  tag.assert_eq %out[(d0, d1)[s0, s1] -> (d0, d1)](bh, q, d),
                %O[(d0, d1)[s0, s1] -> (s0, d0 + s1, d1)](bh, q, d)
      captures(%bh, %m0_wrong) : tensor<128x64xbf16>, !tile.view<?x?x64xbf16>
  tile.store %out -> %O[%bh, %m0, %c0]
      : tensor<128x64xbf16> -> !tile.view<?x?x64xbf16>
  tile.return
}

// -----

// Mutant: P·V with the values of the next key block.
tile.kernel @values_of_next_block(%Q: !tile.view<?x?x64xbf16>,
                                 %K: !tile.view<?x?x64xbf16>,
                                 %V: !tile.view<?x?x64xbf16>,
                                 %O: !tile.view<?x?x64xbf16>,
                                 %scale: f32, %group: index, %causal: i1)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %pid_q = tile.program_id x
  %bh = tile.program_id y
  %m0 = arith.muli %pid_q, %c128 : index
  %group_pos = arith.cmpi sgt, %group, %c0 : index
  tag.assume %group_pos, "the GQA group size is positive" : i1
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

  %q = tile.load %Q[%bh, %m0, %c0]
      : !tile.view<?x?x64xbf16> -> tensor<128x64xbf16>
  %sK = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sV = tile.alloc_shared : !tile.shared<64x64xbf16>

  // Causal programs stop at the diagonal block.
  %diag = arith.addi %m0, %c128 : index
  %causal_end = arith.minui %seq_kv, %diag : index
  %kv_end = arith.select %causal, %causal_end, %seq_kv : index

  %scale_t = tile.splat %scale : f32 -> tensor<128x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %ninf_t = tile.splat %ninf : f32 -> tensor<128x64xf32>
  %m_init = tile.splat %ninf : f32 -> tensor<128xf32>
  %l_init = arith.constant dense<0.000000e+00> : tensor<128xf32>
  %o_init = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %s_zero = arith.constant dense<0.000000e+00> : tensor<128x64xf32>
  %rows = tile.iota : tensor<128xindex>
  %cols = tile.iota : tensor<64xindex>
  %m0_t = tile.splat %m0 : index -> tensor<128xindex>
  %q_pos = arith.addi %rows, %m0_t : tensor<128xindex>
  %q_pos2 = tile.broadcast %q_pos dims [1]
      : tensor<128xindex> -> tensor<128x64xindex>
  %seq_kv_t = tile.splat %seq_kv : index -> tensor<128x64xindex>
  %not_causal = arith.xori %causal, %true : i1
  %not_causal_t = tile.splat %not_causal : i1 -> tensor<128x64xi1>

  %m_fin, %l_fin, %o_fin = scf.for %n0 = %c0 to %kv_end step %c64
      iter_args(%m_i = %m_init, %l_i = %l_init, %o_i = %o_init)
      -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) {
    tile.copy %K[%kvh, %n0, %c0] -> %sK
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    %n_next = arith.addi %n0, %c64 : index
    // expected-note @below {{was written here}}
    tile.copy %V[%kvh, %n_next, %c0] -> %sV
        : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %k = tile.load %sK : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // GQA: the keys belong to the kv head of the query's head.
    tag.assert_eq %q[(d0, d1, d2) -> (d0, d2)](kvh),
                  %k[(d0, d1, d2) -> (d1, d2)](kvh)
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    tag.assert_contract %q, %k over "d" transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    %s = tile.mma %q, %k, %s_zero transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %s_scaled = arith.mulf %s, %scale_t : tensor<128x64xf32>

    // Mask keys past the end and, if causal, keys after the query.
    %n0_t = tile.splat %n0 : index -> tensor<64xindex>
    %kv_pos = arith.addi %cols, %n0_t : tensor<64xindex>
    %kv_pos2 = tile.broadcast %kv_pos dims [0]
        : tensor<64xindex> -> tensor<128x64xindex>
    %s_q = tag.coord %s("q") : tensor<128x64xf32> -> tensor<128x64xindex>
    %s_kv = tag.coord %s("kv") : tensor<128x64xf32> -> tensor<128x64xindex>
    %same_q = arith.cmpi eq, %q_pos2, %s_q : tensor<128x64xindex>
    %same_kv = arith.cmpi eq, %kv_pos2, %s_kv : tensor<128x64xindex>
    %own_coords = arith.andi %same_q, %same_kv : tensor<128x64xi1>
    tag.assert %own_coords, "the mask uses the score's own (q, kv) coordinates"
        : tensor<128x64xi1>
    %in_range = arith.cmpi ult, %kv_pos2, %seq_kv_t : tensor<128x64xindex>
    %not_future = arith.cmpi ule, %kv_pos2, %q_pos2 : tensor<128x64xindex>
    %causal_ok = arith.ori %not_future, %not_causal_t : tensor<128x64xi1>
    %keep = arith.andi %in_range, %causal_ok : tensor<128x64xi1>
    %s_masked = tile.select %keep, %s_scaled, %ninf_t
        : tensor<128x64xi1>, tensor<128x64xf32>

    // Online softmax: new running max, rescale of the old state.
    %m_blk = tile.reduce max %s_masked dim 1
        : tensor<128x64xf32> -> tensor<128xf32>
    %m_new = arith.maximumf %m_i, %m_blk : tensor<128xf32>
    %m_new2 = tile.broadcast %m_new dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    // expected-note @below {{was written here}}
    %shifted = arith.subf %s_masked, %m_new2 : tensor<128x64xf32>
    %p = math.exp %shifted : tensor<128x64xf32>
    %m_diff = arith.subf %m_i, %m_new : tensor<128xf32>
    %alpha = math.exp %m_diff : tensor<128xf32>
    %l_blk = tile.reduce sum %p dim 1 : tensor<128x64xf32> -> tensor<128xf32>
    %l_old = arith.mulf %alpha, %l_i : tensor<128xf32>
    %l_new = arith.addf %l_old, %l_blk : tensor<128xf32>
    %alpha2 = tile.broadcast %alpha dims [1]
        : tensor<128xf32> -> tensor<128x64xf32>
    %o_scaled = arith.mulf %o_i, %alpha2 : tensor<128x64xf32>

    %p_bf16 = arith.truncf %p : tensor<128x64xf32> to tensor<128x64xbf16>
    %v = tile.load %sV : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    // expected-error @below {{contraction indices differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries Q*K(}}
    tag.assert_contract %p_bf16, %v over "kv"
        : tensor<128x64xbf16>, tensor<64x64xbf16>
    // expected-error @below {{operands disagree on a component both carry (kvh, kv)}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries Q*K(}}
    %o_new = tile.mma %p_bf16, %v, %o_scaled
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    // Row state pairing: the running max and sum of row i belong to the
    // same query row as output row i.
    tag.assert_eq %m_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tag.assert_eq %l_new[(d0, d1) -> (d0)](q), %o_new[(d0, d1) -> (d0, d1)](q)
        : tensor<128xf32>, tensor<128x64xf32>
    tile.barrier
    scf.yield %m_new, %l_new, %o_new
        : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}

  %l_fin2 = tile.broadcast %l_fin dims [1]
      : tensor<128xf32> -> tensor<128x64xf32>
  %o_norm = arith.divf %o_fin, %l_fin2 : tensor<128x64xf32>
  %out = arith.truncf %o_norm : tensor<128x64xf32> to tensor<128x64xbf16>
  tag.assert_eq %out[(d0, d1)[s0, s1] -> (d0, d1)](bh, q, d),
                %O[(d0, d1)[s0, s1] -> (s0, d0 + s1, d1)](bh, q, d)
      captures(%bh, %m0) : tensor<128x64xbf16>, !tile.view<?x?x64xbf16>
  tile.store %out -> %O[%bh, %m0, %c0]
      : tensor<128x64xbf16> -> !tile.view<?x?x64xbf16>
  tile.return
}
