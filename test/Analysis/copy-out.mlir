// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// tile.copy_out (docs/invariants.md): the buffer's contents must be visible
// (a barrier after the stores into it), an asynchronous copy out reads the
// buffer until the tile.async_wait that retires its group, and the buffer
// may be written again only after that wait and a barrier. What lands in
// the view is checked as a store of the buffer's tile.

// Reference: a loop of epilogues, each waiting for the previous one's copy
// before it rewrites the buffer (a persistent kernel's overlap).
tile.kernel @correct(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>, %T: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  scf.for %t = %c0 to %T step %c1 {
    %m0 = arith.muli %t, %c64 : index
    %x = tile.load %X[%m0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
    tile.async_wait 0
    tile.barrier
    tile.store %x -> %s : tensor<64x64xf32> -> !tile.shared<64x64xf32>
    tile.barrier
    tile.copy_out %s -> %Y[%m0, %c0] async : !tile.shared<64x64xf32> -> !tile.view<?x?xf32>
    tile.async_commit
  }
  tile.return
}

// -----

// Mutant: the next epilogue rewrites the buffer while the last copy out may
// still read it (no tile.async_wait).
tile.kernel @no_wait(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>, %T: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  scf.for %t = %c0 to %T step %c1 {
    %m0 = arith.muli %t, %c64 : index
    %x = tile.load %X[%m0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
    tile.barrier
    // expected-error @below {{write-after-read race: %s is overwritten while its asynchronous copy out may still read it}}
    // expected-note @below {{counterexample: %t = 1}}
    tile.store %x -> %s : tensor<64x64xf32> -> !tile.shared<64x64xf32>
    tile.barrier
    // expected-note @below {{the copy out, not yet retired by tile.async_wait and a barrier}}
    tile.copy_out %s -> %Y[%m0, %c0] async : !tile.shared<64x64xf32> -> !tile.view<?x?xf32>
    tile.async_commit
  }
  tile.return
}

// -----

// Mutant: waited for, but the thread that issued the copy has not met the
// others at a barrier since.
tile.kernel @wait_without_barrier(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  tile.store %x -> %s : tensor<64x64xf32> -> !tile.shared<64x64xf32>
  tile.barrier
  // expected-note @below {{the earlier read, with no barrier since}}
  tile.copy_out %s -> %Y[%c0, %c0] async : !tile.shared<64x64xf32> -> !tile.view<?x?xf32>
  tile.async_commit
  tile.async_wait 0
  // expected-error @below {{write-after-read race: %s is overwritten while other threads may still read it}}
  // expected-note @below {{counterexample: any program instance}}
  tile.store %x -> %s : tensor<64x64xf32> -> !tile.shared<64x64xf32>
  tile.return
}

// -----

// Mutant: copied out before a barrier makes the stores visible.
tile.kernel @copy_before_barrier(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  // expected-note @below {{the write, with no barrier since}}
  tile.store %x -> %s : tensor<64x64xf32> -> !tile.shared<64x64xf32>
  // expected-error @below {{read-after-write race: %s is read before a barrier makes the write visible}}
  // expected-note @below {{counterexample: any program instance}}
  tile.copy_out %s -> %Y[%c0, %c0] async : !tile.shared<64x64xf32> -> !tile.view<?x?xf32>
  tile.async_commit
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: the tile lands one column off.
tile.kernel @wrong_place(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  // expected-note @below {{%Y[0, 1]'s tag is bound here}}
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  // expected-note @below {{%s[0, 0] was written here}}
  tile.store %x -> %s : tensor<64x64xf32> -> !tile.shared<64x64xf32>
  tile.barrier
  // expected-error @below {{stored data does not belong where it lands (m, n)}}
  // expected-note @below {{counterexample: %Y.dim0 = 1, %Y.dim1 = 2, i0 = 0, i1 = 0}}
  // expected-note @below {{%s[0, 0] carries X(0, 0); %Y[0, 1] carries X(0, 1)}}
  tile.copy_out %s -> %Y[%c0, %c1] : !tile.shared<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
