// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// MoE routing: with sorted ids, block experts and top-k choices as unknown
// functions, a block's weights belong to the expert each real row was routed
// to, and the combine adds each row with its own slot's weight.

tile.kernel @correct(%W: !tile.view<?x?x?xf16>, %ids_v: !tile.view<?xi32>,
                     %experts: !tile.view<?xi32>, %topk_ids: !tile.view<?xi32>,
                     %topk_w: !tile.view<?xf32>, %topk: i32) threads(128) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %blk = tile.program_id x
  %r0 = arith.muli %blk, %c16 : index
  %slots = tile.dim %topk_ids, 0 : !tile.view<?xi32>
  %slots_i32 = arith.index_cast %slots : index to i32
  tag.bind %W as "W"(e, n, k) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
  tag.bind %topk_w as "TW"(s) = (d0) -> (d0) : !tile.view<?xf32>
  // The alignment kernel's contract.
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %e_t = tile.load %experts[%blk] : !tile.view<?xi32> -> tensor<1xi32>
  %e_i32 = tensor.extract %e_t[%c0] : tensor<1xi32>
  %routed = tile.gather %topk_ids[%c0] rows(%ids) : !tile.view<?xi32>, tensor<16xi32> -> tensor<16xi32>
  %end = tile.splat %slots_i32 : i32 -> tensor<16xi32>
  %pad = arith.cmpi sge, %ids, %end : tensor<16xi32>
  %e_s = tile.splat %e_i32 : i32 -> tensor<16xi32>
  %same = arith.cmpi eq, %routed, %e_s : tensor<16xi32>
  %contract = arith.ori %pad, %same : tensor<16xi1>
  tag.assume %contract, "block rows are routed to the block's expert" : tensor<16xi1>
  // The kernel.
  %e = arith.index_cast %e_i32 : i32 to index
  %w = tile.load %W[%e, %c0, %c0] : !tile.view<?x?x?xf16> -> tensor<16x16xf16>
  %w_e = tag.coord %w("e") : tensor<16x16xf16> -> tensor<16x16xi32>
  %routed2 = tile.broadcast %routed dims [1] : tensor<16xi32> -> tensor<16x16xi32>
  %pad2 = tile.broadcast %pad dims [1] : tensor<16xi1> -> tensor<16x16xi1>
  %ok_e = arith.cmpi eq, %w_e, %routed2 : tensor<16x16xi32>
  %ok = arith.ori %pad2, %ok_e : tensor<16x16xi1>
  tag.assert %ok, "rows meet their own expert's weights" : tensor<16x16xi1>
  %topk_t = tile.splat %topk : i32 -> tensor<16xi32>
  %zero_i32 = arith.constant 0 : i32
  %topk_pos = arith.cmpi sgt, %topk, %zero_i32 : i32
  tag.assume %topk_pos, "topk is positive" : i1
  %tok = arith.divsi %ids, %topk_t : tensor<16xi32>
  %wts = tile.gather %topk_w[%c0] rows(%ids) : !tile.view<?xf32>, tensor<16xi32> -> tensor<16xf32>
  %slot = tag.coord %wts("s") : tensor<16xf32> -> tensor<16xi32>
  %slot_tok = arith.divsi %slot, %topk_t : tensor<16xi32>
  %own = arith.cmpi eq, %slot_tok, %tok : tensor<16xi32>
  tag.assert %own, "each row's weight is its own slot's" : tensor<16xi1>
  tile.return
}

// -----

// Mutant: the weights of the next block's expert.
tile.kernel @wrong_expert_id(%W: !tile.view<?x?x?xf16>, %ids_v: !tile.view<?xi32>,
                             %experts: !tile.view<?xi32>, %topk_ids: !tile.view<?xi32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %blk = tile.program_id x
  %r0 = arith.muli %blk, %c16 : index
  %slots = tile.dim %topk_ids, 0 : !tile.view<?xi32>
  %slots_i32 = arith.index_cast %slots : index to i32
  tag.bind %W as "W"(e, n, k) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %e_t = tile.load %experts[%blk] : !tile.view<?xi32> -> tensor<1xi32>
  %e_i32 = tensor.extract %e_t[%c0] : tensor<1xi32>
  %routed = tile.gather %topk_ids[%c0] rows(%ids) : !tile.view<?xi32>, tensor<16xi32> -> tensor<16xi32>
  %end = tile.splat %slots_i32 : i32 -> tensor<16xi32>
  %pad = arith.cmpi sge, %ids, %end : tensor<16xi32>
  %e_s = tile.splat %e_i32 : i32 -> tensor<16xi32>
  %same = arith.cmpi eq, %routed, %e_s : tensor<16xi32>
  %contract = arith.ori %pad, %same : tensor<16xi1>
  tag.assume %contract, "block rows are routed to the block's expert" : tensor<16xi1>
  %next = arith.addi %blk, %c1 : index
  %e2_t = tile.load %experts[%next] : !tile.view<?xi32> -> tensor<1xi32>
  %e2_i32 = tensor.extract %e2_t[%c0] : tensor<1xi32>
  %e2 = arith.index_cast %e2_i32 : i32 to index
  %w = tile.load %W[%e2, %c0, %c0] : !tile.view<?x?x?xf16> -> tensor<16x16xf16>
  %w_e = tag.coord %w("e") : tensor<16x16xf16> -> tensor<16x16xi32>
  %routed2 = tile.broadcast %routed dims [1] : tensor<16xi32> -> tensor<16x16xi32>
  %pad2 = tile.broadcast %pad dims [1] : tensor<16xi1> -> tensor<16x16xi1>
  %ok_e = arith.cmpi eq, %w_e, %routed2 : tensor<16x16xi32>
  %ok = arith.ori %pad2, %ok_e : tensor<16x16xi1>
  // expected-error @below {{tag assertion failed: rows meet their own expert's weights}}
  // expected-note @below {{counterexample: program_id.x = }}
  // expected-note @below {{it is false at element %ok[}}
  tag.assert %ok, "rows meet their own expert's weights" : tensor<16x16xi1>
  tile.return
}

// -----

// Mutant: the kernel reads the block's ids one row late.
tile.kernel @shifted_rows(%W: !tile.view<?x?x?xf16>, %ids_v: !tile.view<?xi32>,
                          %experts: !tile.view<?xi32>, %topk_ids: !tile.view<?xi32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %blk = tile.program_id x
  %r0 = arith.muli %blk, %c16 : index
  %slots = tile.dim %topk_ids, 0 : !tile.view<?xi32>
  %slots_i32 = arith.index_cast %slots : index to i32
  tag.bind %W as "W"(e, n, k) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
  %ids_c = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %e_t = tile.load %experts[%blk] : !tile.view<?xi32> -> tensor<1xi32>
  %e_i32 = tensor.extract %e_t[%c0] : tensor<1xi32>
  %routed_c = tile.gather %topk_ids[%c0] rows(%ids_c) : !tile.view<?xi32>, tensor<16xi32> -> tensor<16xi32>
  %end = tile.splat %slots_i32 : i32 -> tensor<16xi32>
  %pad_c = arith.cmpi sge, %ids_c, %end : tensor<16xi32>
  %e_s = tile.splat %e_i32 : i32 -> tensor<16xi32>
  %same = arith.cmpi eq, %routed_c, %e_s : tensor<16xi32>
  %contract = arith.ori %pad_c, %same : tensor<16xi1>
  tag.assume %contract, "block rows are routed to the block's expert" : tensor<16xi1>
  %r1 = arith.addi %r0, %c1 : index
  %ids = tile.load %ids_v[%r1] : !tile.view<?xi32> -> tensor<16xi32>
  %routed = tile.gather %topk_ids[%c0] rows(%ids) : !tile.view<?xi32>, tensor<16xi32> -> tensor<16xi32>
  %pad = arith.cmpi sge, %ids, %end : tensor<16xi32>
  %e = arith.index_cast %e_i32 : i32 to index
  %w = tile.load %W[%e, %c0, %c0] : !tile.view<?x?x?xf16> -> tensor<16x16xf16>
  %w_e = tag.coord %w("e") : tensor<16x16xf16> -> tensor<16x16xi32>
  %routed2 = tile.broadcast %routed dims [1] : tensor<16xi32> -> tensor<16x16xi32>
  %pad2 = tile.broadcast %pad dims [1] : tensor<16xi1> -> tensor<16x16xi1>
  %ok_e = arith.cmpi eq, %w_e, %routed2 : tensor<16x16xi32>
  %ok = arith.ori %pad2, %ok_e : tensor<16x16xi1>
  // expected-error @below {{rows meet their own expert's weights}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{it is false at element}}
  tag.assert %ok, "rows meet their own expert's weights" : tensor<16x16xi1>
  tile.return
}

// -----

// Mutant: the top-k weights are gathered for the wrong rows.
tile.kernel @wrong_combine_weight(%ids_v: !tile.view<?xi32>, %topk_w: !tile.view<?xf32>, %topk: i32) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %blk = tile.program_id x
  %r0 = arith.muli %blk, %c16 : index
  %r1 = arith.addi %r0, %c1 : index
  tag.bind %topk_w as "TW"(s) = (d0) -> (d0) : !tile.view<?xf32>
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %other = tile.load %ids_v[%r1] : !tile.view<?xi32> -> tensor<16xi32>
  %topk_t = tile.splat %topk : i32 -> tensor<16xi32>
  %zero_i32 = arith.constant 0 : i32
  %topk_pos = arith.cmpi sgt, %topk, %zero_i32 : i32
  tag.assume %topk_pos, "topk is positive" : i1
  %tok = arith.divsi %ids, %topk_t : tensor<16xi32>
  %wts = tile.gather %topk_w[%c0] rows(%other) : !tile.view<?xf32>, tensor<16xi32> -> tensor<16xf32>
  %slot = tag.coord %wts("s") : tensor<16xf32> -> tensor<16xi32>
  %slot_tok = arith.divsi %slot, %topk_t : tensor<16xi32>
  %own = arith.cmpi eq, %slot_tok, %tok : tensor<16xi32>
  // expected-error @below {{each row's weight is its own slot's}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{it is false at element %own[}}
  tag.assert %own, "each row's weight is its own slot's" : tensor<16xi1>
  tile.return
}

// -----

// Mutant: the scatter target divides by a constant 2 instead of top-k.
tile.kernel @wrong_token(%ids_v: !tile.view<?xi32>, %topk_w: !tile.view<?xf32>, %topk: i32) threads(128) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant dense<2> : tensor<16xi32>
  %blk = tile.program_id x
  %r0 = arith.muli %blk, %c16 : index
  tag.bind %topk_w as "TW"(s) = (d0) -> (d0) : !tile.view<?xf32>
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %topk_t = tile.splat %topk : i32 -> tensor<16xi32>
  %zero_i32 = arith.constant 0 : i32
  %topk_pos = arith.cmpi sgt, %topk, %zero_i32 : i32
  tag.assume %topk_pos, "topk is positive" : i1
  %tok = arith.divsi %ids, %two : tensor<16xi32>
  %wts = tile.gather %topk_w[%c0] rows(%ids) : !tile.view<?xf32>, tensor<16xi32> -> tensor<16xf32>
  %slot = tag.coord %wts("s") : tensor<16xf32> -> tensor<16xi32>
  %slot_tok = arith.divsi %slot, %topk_t : tensor<16xi32>
  %own = arith.cmpi eq, %slot_tok, %tok : tensor<16xi32>
  // expected-error @below {{each row's weight is its own slot's}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{it is false at element}}
  tag.assert %own, "each row's weight is its own slot's" : tensor<16xi1>
  tile.return
}
