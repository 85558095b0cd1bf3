// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// What tag-check knows of a persistent kernel's arguments (tile-persistent):
// the launched grid's sizes are positive and within the runtime's limits,
// the programs started are num_programs x (the launch is {P, 1, 1}), and
// tile.tile_coords gives coordinates inside the grid. Nothing ties this
// program's id to the grid's sizes.

// Proved: each coordinate lies in its grid, the program in the launch.
tile.kernel @inside(%gx: index {tile.grid = 0}, %gy: index {tile.grid = 1},
                    %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(32) attributes {tile.persistent = #tile.persistent<group = 8>} {
  %t = tile.program_id x
  %n = tile.num_programs x
  %x, %y, %z = tile.tile_coords %t of (%gx, %gy, %gz) group 8
  %in_x = arith.cmpi ult, %x, %gx : index
  tag.assert %in_x, "x inside the grid" : i1
  %in_y = arith.cmpi ult, %y, %gy : index
  tag.assert %in_y, "y inside the grid" : i1
  %in_z = arith.cmpi ult, %z, %gz : index
  tag.assert %in_z, "z inside the grid" : i1
  %c65535 = arith.constant 65535 : index
  %y_limit = arith.cmpi ule, %gy, %c65535 : index
  tag.assert %y_limit, "y at most 65535" : i1
  %same = arith.cmpi eq, %n, %p : index
  tag.assert %same, "the programs started are num_programs x" : i1
  %in_launch = arith.cmpi ult, %t, %p : index
  tag.assert %in_launch, "the program is one of those started" : i1
  tile.return
}

// -----

// Refuted: the program's id says nothing about the grid of tiles.
tile.kernel @program_in_grid(%gx: index {tile.grid = 0},
                             %gy: index {tile.grid = 1},
                             %gz: index {tile.grid = 2},
                             %p: index {tile.grid = 3})
    threads(32) attributes {tile.persistent = #tile.persistent<group = 8>} {
  %t = tile.program_id x
  %lt = arith.cmpi ult, %t, %gx : index
  // expected-error @below {{tag assertion failed: the program id is below the grid's x}}
  // expected-note @below {{counterexample:}}
  tag.assert %lt, "the program id is below the grid's x" : i1
  tile.return
}

// -----

// Refuted: the grid's size is not the programs started.
tile.kernel @grid_is_launch(%gx: index {tile.grid = 0},
                            %gy: index {tile.grid = 1},
                            %gz: index {tile.grid = 2},
                            %p: index {tile.grid = 3})
    threads(32) attributes {tile.persistent = #tile.persistent<group = 8>} {
  %n = tile.num_programs x
  %eq = arith.cmpi eq, %n, %gx : index
  // expected-error @below {{tag assertion failed: num_programs x is the grid's x}}
  // expected-note @below {{counterexample:}}
  tag.assert %eq, "num_programs x is the grid's x" : i1
  tile.return
}
