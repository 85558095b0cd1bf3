// No barrier between the copy and the load: a race on a GPU, rejected by
// tag-check, but --no-tag-check compiles it anyway.
tile.kernel @copy_tile(%A: !tile.view<?xf32>, %B: !tile.view<?xf32>) threads(32) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<32xf32>
  tile.copy %A[%c0] -> %s : !tile.view<?xf32> -> !tile.shared<32xf32>
  %t = tile.load %s : !tile.shared<32xf32> -> tensor<32xf32>
  tile.store %t -> %B[%c0] : tensor<32xf32> -> !tile.view<?xf32>
  tile.return
}
