// Divisions by a scalar the caller passes, which may be 0: element-wise on
// a tile (signed and unsigned quotient and remainder) and on an index. No
// image may trap (SIGFPE): x / 0 = 0 and x % 0 = x
// (define-integer-division).
tile.kernel @divide(%X: !tile.view<?xi32>, %Y: !tile.view<?xi32>, %d: i32)
    threads(64) {
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  // A division of indices by d that moves nothing (r - r).
  %di = arith.index_cast %d : i32 to index
  %q0 = arith.divui %c256, %di : index
  %r0 = arith.remui %q0, %c64 : index
  %none = arith.subi %r0, %r0 : index
  %base = arith.muli %pid, %c64 : index
  %off = arith.addi %base, %none : index
  %x = tile.load %X[%off] : !tile.view<?xi32> -> tensor<64xi32>
  %ds = tile.splat %d : i32 -> tensor<64xi32>
  %q = arith.divsi %x, %ds : tensor<64xi32>
  %r = arith.remsi %x, %ds : tensor<64xi32>
  %qu = arith.divui %x, %ds : tensor<64xi32>
  %ru = arith.remui %x, %ds : tensor<64xi32>
  %s1 = arith.addi %q, %r : tensor<64xi32>
  %s2 = arith.addi %qu, %ru : tensor<64xi32>
  %s = arith.xori %s1, %s2 : tensor<64xi32>
  tile.store %s -> %Y[%off] : tensor<64xi32> -> !tile.view<?xi32>
  tile.return
}
