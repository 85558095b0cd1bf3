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

// A warp-specialized kernel's per-tile code outside its roles must be
// scalar arithmetic, which each role recomputes per tile.
tile.kernel @roles_tile_outside(%A: !tile.view<?xi32>, %K: index) threads(128)
    attributes {tile.persistent = #tile.persistent<group = 8>} {
  %pid = tile.program_id x
  // expected-error @below {{'tile.load' op depends on the program's coordinates outside the roles of a warp-specialized kernel; tile-persistent moves only scalar arithmetic before the tile.warp_specialize into its roles' tile loops}}
  %ids = tile.load %A[%pid] : !tile.view<?xi32> -> tensor<1xi32>
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
  }
  tile.return
}

// -----

// Each role needs its one main loop, which runs per tile.
tile.kernel @roles_without_loop(%K: index) threads(128)
    attributes {tile.persistent = #tile.persistent<group = 8>} {
  // expected-error @below {{has no scf.for at the top level of its producer role; a role has one main loop, which tile-persistent runs for each tile}}
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
  }
  tile.return
}

// -----

// The producer cannot meet the consumers between tiles: it writes rings
// only.
tile.kernel @producer_writes_buffer(%A: !tile.view<?x?xbf16>, %K: index)
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c64 {
      // expected-error @below {{writes a shared buffer that is not a ring in the producer role, which tile-persistent cannot order against the next tile's writes}}
      tile.copy %A[%c0, %k] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    }
  } consumer {
    scf.for %k = %c0 to %K step %c64 {
    }
  }
  tile.return
}

// -----

// Ping-pong consumers own alternate tiles of warp-specialized roles.
// expected-error @below {{'tile.kernel' op asks for the ping-pong schedule, which needs a warp-specialized kernel (tile.warp_specialize; run tile-pipeline{warp-specialize} first)}}
tile.kernel @pingpong_without_roles(%X: !tile.view<?xf32>) threads(128)
    attributes {tile.persistent = #tile.persistent<group = 8, pingpong = true>} {
  tile.return
}
