// RUN: tessera-opt %s --split-input-file --tile-persistent --verify-diagnostics
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-persistent=kernel=nope -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir "--tile-persistent=kernel=gemm_bf16 group=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUP
// NAME: error: tile-persistent: no kernel named 'nope'
// GROUP: error: 'tile.kernel' op cannot be made persistent with group = 0; use 1 to 65535

// A persistent grid is one-dimensional: so must its clusters be.
// expected-error @below {{'tile.kernel' op is persistent, so its grid is one-dimensional: its cluster must be cluster(n)}}
tile.kernel @clustered(%X: !tile.view<?xf32>) threads(32) cluster(1, 2)
    attributes {tile.persistent = #tile.persistent<group = 8>} {
  tile.return
}

// -----

tile.kernel @group(%X: !tile.view<?xf32>) threads(32)
    // expected-error @below {{persistent group must be between 1 and 65535, got 0}}
    attributes {tile.persistent = #tile.persistent<group = 0>} {
  tile.return
}

// -----

tile.kernel @where(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.persistent' applies to tile.kernel, not to 'scf.for'}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.persistent = #tile.persistent<group = 8>}
  tile.return
}

// -----

// The runtime passes the last four arguments of a persistent kernel only.
// expected-error @below {{'tile.grid' marks the last four arguments of a tile.kernel, index ones, with 0, 1, 2 and 3}}
tile.kernel @marked(%g: index {tile.grid = 0}, %n: index) threads(32)
    attributes {tile.persistent = #tile.persistent<group = 8>} {
  tile.return
}

// -----

// expected-error @below {{'tile.grid' needs a kernel with tile.persistent}}
tile.kernel @unmarked(%a: index {tile.grid = 0}, %b: index {tile.grid = 1},
                      %c: index {tile.grid = 2}, %d: index {tile.grid = 3})
    threads(32) {
  tile.return
}

// -----

tile.kernel @coords(%t: index, %g: index) threads(32) {
  // expected-error @below {{'tile.tile_coords' op group must be between 1 and 65535, got 0}}
  %x, %y, %z = tile.tile_coords %t of (%g, %g, %g) group 0
  tile.return
}

// -----

// The coordinates tag-check assumes are those of the grid the runtime
// passes: no other sizes.
tile.kernel @coords_of(%t: index, %gx: index {tile.grid = 0},
                       %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2},
                       %p: index {tile.grid = 3}) threads(32)
    attributes {tile.persistent = #tile.persistent<group = 8>} {
  // expected-error @below {{'tile.tile_coords' op grid size 1 must be the kernel's argument marked {tile.grid = 1}}}
  %x, %y, %z = tile.tile_coords %t of (%gx, %t, %gz) group 8
  tile.return
}

// -----

// All four arguments the runtime passes, or none.
// expected-error @below {{'tile.kernel' op marks some of its last four arguments tile.grid: a persistent kernel marks all four}}
tile.kernel @partial(%a: index, %b: index, %c: index, %d: index {tile.grid = 3})
    threads(32) attributes {tile.persistent = #tile.persistent<group = 8>} {
  tile.return
}

// -----

// expected-error @below {{is warp-specialized; tile-persistent does not loop its roles over tiles yet}}
tile.kernel @roles(%K: index) threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
  }
  tile.return
}
