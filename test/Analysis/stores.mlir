// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Stores into a bound view are checked against the binding with no
// assertion in the kernel: element e of the stored tile must carry the
// components the destination's binding gives the place it lands on.

// A GEMM tile stored where it belongs, including the ragged edges.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : index
  %n0 = arith.muli %pn, %c32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%m0, %k] : !tile.view<?x?xf16> -> tensor<32x16xf16>
    %b = tile.load %B[%k, %n0] : !tile.view<?x?xf16> -> tensor<16x32xf16>
    %next = tile.mma %a, %b, %c : tensor<32x16xf16>, tensor<16x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: the store's offsets are swapped.
tile.kernel @swapped_offsets(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : index
  %n0 = arith.muli %pn, %c32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{%C[}}
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %a = tile.load %A[%m0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  %b = tile.load %B[%c0, %n0] : !tile.view<?x?xf16> -> tensor<16x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-note @below {{was written here}}
  %c = tile.mma %a, %b, %z : tensor<32x16xf16>, tensor<16x32xf16> -> tensor<32x32xf32>
  // expected-error @below {{tag assertion failed: stored data does not belong where it lands (m, n)}}
  // expected-note-re @below {{counterexample: program_id.x = {{[0-9]+}}, program_id.y = {{[0-9]+}}}}
  // expected-note @below {{carries A*B(}}
  tile.store %c -> %C[%n0, %m0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: a tile of a 3-D view stored at the wrong head.
tile.kernel @wrong_head(%X: !tile.view<?x?x64xf16>, %Y: !tile.view<?x?x64xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = tile.program_id x
  tag.bind %X as "X"(h, s, d) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x64xf16>
  // expected-note @below {{%Y[1, 0, 0]'s tag is bound here}}
  tag.bind %Y as "Y"(h, s, d) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x64xf16>
  // expected-note @below {{%x[0, 0] was written here}}
  %x = tile.load %X[%h, %c0, %c0] : !tile.view<?x?x64xf16> -> tensor<32x64xf16>
  %h1 = arith.addi %h, %c1 : index
  // expected-error @below {{does not belong where it lands (h, s, d)}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries X(}}
  tile.store %x -> %Y[%h1, %c0, %c0] : tensor<32x64xf16> -> !tile.view<?x?x64xf16>
  tile.return
}

// -----

// A view without tag.bind constrains nothing.
tile.kernel @unbound_destination(%A: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>, %r: index) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  tile.store %a -> %C[%r, %c0] : tensor<32x16xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Untagged data cannot show that it belongs in a bound view.
tile.kernel @untagged_data(%C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-error @below {{stores %z, which carries no tag, into %C, whose elements are bound to C(m, n)}}
  tile.store %z -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Data and destination must share a component to be compared.
tile.kernel @no_shared_component(%A: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(r, c) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  // expected-error @below {{%a carries A(r, c), which shares no component with %C's tag C(m, n)}}
  tile.store %a -> %C[%c0, %c0] : tensor<32x16xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Data whose tag an unmodelled op made unknown cannot be stored into a
// bound view.
tile.kernel @unknown_data(%A: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  // expected-note @below {{the tag checker does not model 'tensor.empty'}}
  %x = tensor.empty() : tensor<32x16xf16>
  %ax = arith.addf %a, %x : tensor<32x16xf16>
  // expected-error @below {{%ax has an unknown tag}}
  tile.store %ax -> %C[%c0, %c0] : tensor<32x16xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Elements from two different rows meet: the row is unknown (⊤).
tile.kernel @conflicting_component(%A: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>, %r: index) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  %b = tile.load %A[%r, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  // expected-note @below {{tags of different origin meet here}}
  %s = arith.addf %a, %b : tensor<32x16xf16>
  // expected-error @below {{component 'm' of %s has conflicting provenance}}
  tile.store %s -> %C[%c0, %c0] : tensor<32x16xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Scatter: row r of the tile is added to row rows[r] of the destination.
tile.kernel @scatter_rows(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>, %idx: !tile.view<?xi32>) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %X as "X"(t, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %Y as "Y"(t, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rows = tile.load %idx[%c0] : !tile.view<?xi32> -> tensor<32xi32>
  %x = tile.gather %X[%c0, %c0] rows(%rows) : !tile.view<?x?xf32>, tensor<32xi32> -> tensor<32x16xf32>
  tile.atomic_add %x -> %Y[%c0, %c0] rows(%rows : tensor<32xi32>) : tensor<32x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: rows gathered from one index list are scattered by another.
tile.kernel @scatter_wrong_rows(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>, %idx: !tile.view<?xi32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %X as "X"(t, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  // expected-note @below {{'s tag is bound here}}
  tag.bind %Y as "Y"(t, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rows = tile.load %idx[%c0] : !tile.view<?xi32> -> tensor<32xi32>
  %other = tile.load %idx[%c32] : !tile.view<?xi32> -> tensor<32xi32>
  // expected-note @below {{was written here}}
  %x = tile.gather %X[%c0, %c0] rows(%rows) : !tile.view<?x?xf32>, tensor<32xi32> -> tensor<32x16xf32>
  // expected-error @below {{does not belong where it lands (t, n)}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries X(}}
  tile.atomic_add %x -> %Y[%c0, %c0] rows(%other : tensor<32xi32>) : tensor<32x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Rows gathered through a bound index list carry the index's tag too, so a
// store by position p checks that row p was gathered through entry p.
tile.kernel @gathered_rows_keep_position(%X: !tile.view<?x?xf32>, %H: !tile.view<?x?xf32>, %idx: !tile.view<?xi32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %blk = tile.program_id x
  %r0 = arith.muli %blk, %c32 : index
  tag.bind %X as "X"(t, d) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %H as "H"(p, d) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %idx as "SI"(p) = (d0) -> (d0) : !tile.view<?xi32>
  %rows = tile.load %idx[%r0] : !tile.view<?xi32> -> tensor<32xi32>
  %x = tile.gather %X[%c0, %c0] rows(%rows) : !tile.view<?x?xf32>, tensor<32xi32> -> tensor<32x16xf32>
  tile.store %x -> %H[%r0, %c0] : tensor<32x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: the gathered rows are stored one block down.
tile.kernel @gathered_rows_stored_elsewhere(%X: !tile.view<?x?xf32>, %H: !tile.view<?x?xf32>, %idx: !tile.view<?xi32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %blk = tile.program_id x
  %r0 = arith.muli %blk, %c32 : index
  %r1 = arith.addi %r0, %c32 : index
  tag.bind %X as "X"(t, d) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  // expected-note @below {{'s tag is bound here}}
  tag.bind %H as "H"(p, d) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %idx as "SI"(p) = (d0) -> (d0) : !tile.view<?xi32>
  %rows = tile.load %idx[%r0] : !tile.view<?xi32> -> tensor<32xi32>
  // expected-note @below {{was written here}}
  %x = tile.gather %X[%c0, %c0] rows(%rows) : !tile.view<?x?xf32>, tensor<32xi32> -> tensor<32x16xf32>
  // expected-error @below {{does not belong where it lands (p, d)}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries SI|X(}}
  tile.store %x -> %H[%r1, %c0] : tensor<32x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: the row offset follows the K loop, so the rows the accumulator
// holds change from one iteration to the next.
tile.kernel @rows_follow_the_loop(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-note @below {{counterexample: m differs from one iteration of this loop to the next: e0 at %k = 0, e0 + 32 at %k = 32}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%k, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %next = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  // expected-error @below {{component 'm' of %acc has conflicting provenance}}
  tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// A store whose tile lies past a static dimension for every program writes
// nothing (no element is in bounds, so no tag obligation could fail): an
// error of its own. The same tile one column block over is fine.
tile.kernel @writes_nothing(%X: !tile.view<?x64xf32>, %Y: !tile.view<?x64xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %p = tile.program_id x
  %r0 = arith.muli %p, %c32 : index
  tag.bind %X as "X"(r, c) = (d0, d1) -> (d0, d1) : !tile.view<?x64xf32>
  tag.bind %Y as "X"(r, c) = (d0, d1) -> (d0, d1) : !tile.view<?x64xf32>
  %x = tile.load %X[%r0, %c32] : !tile.view<?x64xf32> -> tensor<32x32xf32>
  tile.store %x -> %Y[%r0, %c32] : tensor<32x32xf32> -> !tile.view<?x64xf32>
  %y = tile.load %X[%r0, %c64] : !tile.view<?x64xf32> -> tensor<32x32xf32>
  // expected-error @below {{writes nothing: index 1 of %Y is at least 64 for every element and program, but the dimension has at most 64 elements}}
  tile.store %y -> %Y[%r0, %c64] : tensor<32x32xf32> -> !tile.view<?x64xf32>
  tile.return
}

// -----

// Nothing the view should hold is dropped: an element whose components name
// a place inside the view must land inside it. Offsets swapped into a
// static dimension store program 0's tile correctly and every other
// program's outside the view; the components say where the rest belonged.
tile.kernel @drops_rows(%X: !tile.view<?x64xf32>, %Y: !tile.view<?x64xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %p = tile.program_id x
  %r0 = arith.muli %p, %c64 : index
  tag.bind %X as "X"(r, c) = (d0, d1) -> (d0, d1) : !tile.view<?x64xf32>
  // expected-note @below {{%Y[0, 64]'s tag is bound here}}
  tag.bind %Y as "X"(r, c) = (d0, d1) -> (d0, d1) : !tile.view<?x64xf32>
  // expected-note @below {{%x[0, 0] was written here}}
  %x = tile.load %X[%r0, %c0] : !tile.view<?x64xf32> -> tensor<64x64xf32>
  // expected-error @below {{tag assertion failed: data that belongs in %Y lands outside it}}
  // expected-note @below {{counterexample: program_id.x = 1, %Y.dim0 = 65, i0 = 0, i1 = 0}}
  // expected-note @below {{%x[0, 0] carries X(64, 0); %Y[0, 64] carries X(0, 64)}}
  tile.store %x -> %Y[%c0, %r0] : tensor<64x64xf32> -> !tile.view<?x64xf32>
  tile.return
}
