// Two unknown ops, in separate chunks of one file.
tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %t = tile.load %A[%i, %i] : !tile.view<?x?xf32> -> tensor<4x4xf32>
  tile.transpose %t
  tile.return
}
// -----
tile.kernel @k() threads(32) {
  tile.frobnicate
  tile.return
}
