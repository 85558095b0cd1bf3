// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{a view needs at least one dimension}}
func.func private @f(!tile.view<f32>)

// -----

// expected-error @below {{view dimension sizes must be positive or '?', got 0}}
func.func private @f(!tile.view<0x?xf32>)

// -----

// expected-error @below {{view element type 'f64' is not supported}}
func.func private @f(!tile.view<?xf64>)

// -----

// expected-error @below {{expected static shape}}
func.func private @f(!tile.shared<?x64xf16>)

// -----

// expected-error @below {{shared buffer dimension sizes must be positive and static, got 0}}
func.func private @f(!tile.shared<0x64xf16>)

// -----

// Sizes that would wrap around (2^60 bf16 elements are 2^64 bytes) and
// buffers no chip holds are refused.
// expected-error @below {{a shared buffer holds at most 2147483647 bytes; this one has more than 2^63 bits}}
func.func private @f(!tile.shared<1073741824x1073741824xbf16>)

// -----

// expected-error @below {{a shared buffer holds at most 2147483647 bytes; this one holds 4294967296}}
func.func private @f(!tile.shared<65536x16384xf32>)

// -----

// The runtime passes views of at most 4 dimensions.
// expected-error @below {{a view has at most 4 dimensions (what the runtime passes), got 5}}
func.func private @f(!tile.view<?x?x?x?x?xf32>)

// -----

// expected-error @below {{a ring needs a positive number of stages, got 0}}
func.func private @f(!tile.shared<64x64xf16, stages = 0>)

// -----

// expected-error @below {{shared buffer element type 'i16' is not supported}}
func.func private @f(!tile.shared<64x64xi16>)

// -----

// expected-error @below {{pipeline stages must be between 1 and 8, got 9}}
func.func private @f() attributes {p = #tile.pipeline<stages = 9>}

// -----

tile.kernel @k() threads(32) {
  // expected-error @below {{'tile.pipeline' applies to scf.for loops, not to 'tile.barrier'}}
  tile.barrier {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

tile.kernel @k(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.pipeline' must be a #tile.pipeline<stages = N> attribute, got 3 : i64}}
  scf.for %i = %c0 to %n step %n {
  } {tile.pipeline = 3}
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  // expected-error @below {{unknown tile dialect attribute 'tile.unroll'}}
  tile.barrier {tile.unroll = 2}
  tile.return
}

// -----

// expected-error @below {{'tile.kernel' op needs a body; kernels cannot be declarations}}
tile.kernel @k() threads(32)

// -----

// expected-error @below {{'tile.kernel' op cannot return values; write results through a !tile.view argument}}
tile.kernel @k() -> i32 threads(32) {
  tile.return
}

// -----

// expected-error @below {{argument #1 has type 'tensor<4xf32>'; kernel arguments must be !tile.view, index, signless integer or float}}
tile.kernel @k(%a: index, %t: tensor<4xf32>) threads(32) {
  tile.return
}

// -----

// expected-error @below {{threads = 48 is invalid; use a multiple of 32 between 32 and 1024}}
tile.kernel @k() threads(48) {
  tile.return
}

// -----

// AMD's wavefronts are 64 threads wide.
module attributes {tile.target = "gfx942"} {
  // expected-error @below {{threads = 96 is invalid; use a multiple of 64 between 64 and 1024 (the warp size of gfx942)}}
  tile.kernel @k() threads(96) {
    tile.return
  }
}

// -----

// expected-error @below {{threads = 2048 is invalid}}
tile.kernel @k() threads(2048) {
  tile.return
}

// -----

// expected-error @below {{expected 'threads'}}
tile.kernel @k() {
  tile.return
}

// -----

// expected-error @below {{cluster must have 1 to 3 dimensions}}
tile.kernel @k() threads(32) cluster(1, 1, 1, 1) {
  tile.return
}

// -----

// expected-error @below {{cluster dimensions must be positive, got 0}}
tile.kernel @k() threads(32) cluster(0) {
  tile.return
}

// -----

// expected-error @below {{a cluster of 32 program instances exceeds the limit of 16}}
tile.kernel @k() threads(32) cluster(4, 8) {
  tile.return
}

// -----

// expected-error @below {{body must be a single block}}
tile.kernel @k() threads(32) {
  cf.br ^bb1
^bb1:
  tile.return
}

// -----

func.func @f() {
  // expected-error @below {{expects parent op 'tile.kernel'}}
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>) threads(32) {
  // expected-error @below {{dimension 2 is out of range for a view of rank 2}}
  %d = tile.dim %A, 2 : !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>) threads(32) {
  // expected-error @below {{dimension -1 is out of range for a view of rank 2}}
  %d = tile.dim %A, -1 : !tile.view<?x?xf32>
  tile.return
}

// -----

// expected-error @below {{threads = -32 is invalid}}
tile.kernel @k() threads(-32) {
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf32>
  // expected-error @below {{dim -1 is out of range for a tile of rank 2}}
  %r = tile.reduce sum %a dim -1 : tensor<16x32xf32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %n {
    // expected-error @below {{expects parent op 'tile.kernel'}}
    %s = tile.alloc_shared : !tile.shared<16x16xf32>
  }
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{expects 2 offsets, one per dimension of the view, but got 1}}
  tile.copy %A[%i] -> %s : !tile.view<?x?xf32> -> !tile.shared<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{a 2-D shared tile cannot be taken from a 1-D view}}
  tile.copy %A[%i] -> %s : !tile.view<?xf32> -> !tile.shared<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf16>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{element type mismatch: the view holds 'f16' but the shared tile holds 'f32'}}
  tile.copy %A[%i, %i] -> %s : !tile.view<?x?xf16> -> !tile.shared<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32, stages = 2>
  // expected-error @below {{copying into a ring buffer needs a slot}}
  tile.copy %A[%i, %i] -> %s : !tile.view<?x?xf32> -> !tile.shared<16x16xf32, stages = 2>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{a slot is only meaningful for a ring buffer}}
  tile.copy %A[%i, %i] -> %s[%i] : !tile.view<?x?xf32> -> !tile.shared<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32, stages = 2>
  // expected-error @below {{copying out of a ring buffer needs a slot}}
  tile.copy_out %s -> %A[%i, %i] : !tile.shared<16x16xf32, stages = 2> -> !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{a slot is only meaningful for a ring buffer}}
  tile.copy_out %s[%i] -> %A[%i, %i] : !tile.shared<16x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf16>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{element type mismatch: the view holds 'f16' but the shared tile holds 'f32'}}
  tile.copy_out %s -> %A[%i, %i] : !tile.shared<16x16xf32> -> !tile.view<?x?xf16>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?x?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{expects 3 offsets, one per dimension of the view, but got 2}}
  tile.copy_out %s -> %A[%i, %i] : !tile.shared<16x16xf32> -> !tile.view<?x?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{pad value 0 : i32 must have the element type 'f32'}}
  tile.copy %A[%i, %i] -> %s pad(0 : i32) : !tile.view<?x?xf32> -> !tile.shared<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  // expected-error @below {{expects 2 offsets, one per dimension of the view, but got 3}}
  %t = tile.load %A[%i, %i, %i] : !tile.view<?x?xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  // expected-error @below {{element type mismatch: the view holds 'f32' but the result holds 'f16'}}
  %t = tile.load %A[%i, %i] : !tile.view<?x?xf32> -> tensor<16x16xf16>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  // expected-error @below {{result tile 'tensor<0x16xf32>' has a dimension of size 0; tile sizes must be positive}}
  %t = tile.load %A[%i, %i] : !tile.view<?x?xf32> -> tensor<0x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  // expected-error @below {{must be statically shaped tensor}}
  %t = tile.load %A[%i, %i] : !tile.view<?x?xf32> -> tensor<?x16xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32, stages = 2>
  // expected-error @below {{a ring buffer needs exactly one index, the slot, but got 0}}
  %t = tile.load %s : !tile.shared<16x16xf32, stages = 2> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{a shared buffer that is not a ring takes no index (the whole tile is accessed), but got 2}}
  %t = tile.load %s[%i, %i] : !tile.shared<16x16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{the result shape must equal the shared buffer's tile shape '!tile.shared<16x16xf32>'}}
  %t = tile.load %s : !tile.shared<16x16xf32> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{pad applies to loads from views only}}
  %t = tile.load %s pad(0.0 : f32) : !tile.shared<16x16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index) threads(32) {
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  %t = arith.constant dense<0.0> : tensor<16x16xf16>
  // expected-error @below {{element type mismatch: the shared buffer holds 'f32' but the stored tile holds 'f16'}}
  tile.store %t -> %s : tensor<16x16xf16> -> !tile.shared<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %t = arith.constant dense<0.0> : tensor<16x16x16xf32>
  // expected-error @below {{a 3-D stored tile cannot be taken from a 2-D view}}
  tile.store %t -> %A[%i, %i] : tensor<16x16x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %ids = arith.constant dense<0> : tensor<8xi32>
  // expected-error @below {{gathers 8 rows but the result has 16; the row-index tile and the result's first dimension must agree}}
  %t = tile.gather %A[%i, %i] rows(%ids) : !tile.view<?x?xf32>, tensor<8xi32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %ids = arith.constant dense<0> : tensor<8xi32>
  %s = tile.alloc_shared : !tile.shared<16x16xf32>
  // expected-error @below {{gathers 8 rows but the shared tile has 16; the row-index tile and the tile's first dimension must agree}}
  tile.copy %A[%i, %i] rows(%ids : tensor<8xi32>) -> %s : !tile.view<?x?xf32> -> !tile.shared<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %ids = arith.constant dense<0> : tensor<16xi32>
  %s = tile.alloc_shared : !tile.shared<16x16xf32, stages = 2>
  // expected-error @below {{a gathering copy cannot be multicast (each program chooses its own rows)}}
  tile.copy %A[%i, %i] rows(%ids : tensor<16xi32>) -> %s[%i] async multicast : !tile.view<?x?xf32> -> !tile.shared<16x16xf32, stages = 2>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %ids = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @below {{must be 1D tensor of signless integer or index values}}
  %t = tile.gather %A[%i, %i] rows(%ids) : !tile.view<?x?xf32>, tensor<16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xi8>, %i: index) threads(32) {
  %t = arith.constant dense<0> : tensor<16x16xi8>
  // expected-error @below {{atomic add of 'i8' is not supported; use f32, f16, bf16 or i32}}
  tile.atomic_add %t -> %A[%i, %i] : tensor<16x16xi8> -> !tile.view<?x?xi8>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  %t = arith.constant dense<0.0> : tensor<16x16xf32>
  %ids = arith.constant dense<0> : tensor<8xi32>
  // expected-error @below {{scatters 8 rows but the added tile has 16}}
  tile.atomic_add %t -> %A[%i, %i] rows(%ids : tensor<8xi32>) : tensor<16x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf16>
  %b = arith.constant dense<0.0> : tensor<16x8xf16>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @below {{contraction sizes differ: a has K = 32 but b has K = 16 (check the transpose flags)}}
  %d = tile.mma %a, %b, %c : tensor<16x32xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf16>
  %b = arith.constant dense<0.0> : tensor<32x8xf16>
  %c = arith.constant dense<0.0> : tensor<8x16xf32>
  // expected-error @below {{accumulator must be 16x8 for these operands, got 'tensor<8x16xf32>'}}
  %d = tile.mma %a, %b, %c : tensor<16x32xf16>, tensor<32x8xf16> -> tensor<8x16xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<2x16x32xf16>
  %b = arith.constant dense<0.0> : tensor<32x8xf16>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @below {{operands and accumulator must be 2-D tiles}}
  %d = tile.mma %a, %b, %c : tensor<2x16x32xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf16>
  %b = arith.constant dense<0.0> : tensor<32x8xbf16>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @below {{unsupported element types 'f16' x 'bf16' -> 'f32'}}
  %d = tile.mma %a, %b, %c : tensor<16x32xf16>, tensor<32x8xbf16> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0> : tensor<16x32xi8>
  %b = arith.constant dense<0> : tensor<32x8xi8>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @below {{unsupported element types 'i8' x 'i8' -> 'f32'}}
  %d = tile.mma %a, %b, %c : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf16>
  %b = arith.constant dense<0.0> : tensor<32x8xf16>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @below {{a 16x8x32 tile is not a whole number of wgmma instructions (64x8x16 for 'f16')}}
  %d = tile.mma %a, %b, %c kind wgmma : tensor<16x32xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf16>
  %b = arith.constant dense<0.0> : tensor<32x8xf16>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @below {{a 16x8x32 tile is not a whole number of mfma instructions (16x16x8 for 'f16')}}
  %d = tile.mma %a, %b, %c kind mfma : tensor<16x32xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf16>
  %b = arith.constant dense<0.0> : tensor<32x8xf16>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'kind' [auto, mma_sync, wgmma, mfma]}}
  %d = tile.mma %a, %b, %c kind tensor_core : tensor<16x32xf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf32>
  // expected-error @below {{dim 2 is out of range for a tile of rank 2}}
  %r = tile.reduce sum %a dim 2 : tensor<16x32xf32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16x32xf32>
  // expected-error @below {{result must be 'tensor<16xf32>' (the input without dimension 1)}}
  %r = tile.reduce max %a dim 1 : tensor<16x32xf32> -> tensor<32xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @below {{result rank 3 must be the input rank 1 plus the 1 new dimensions}}
  %r = tile.broadcast %a dims [1] : tensor<16xf32> -> tensor<16x4x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @below {{new dimensions must be sorted and unique}}
  %r = tile.broadcast %a dims [2, 0] : tensor<16xf32> -> tensor<4x16x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @below {{new dimension 2 is out of range for the result}}
  %r = tile.broadcast %a dims [2] : tensor<16xf32> -> tensor<16x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @below {{result dimension 0 has size 8 but input dimension 0 has size 16}}
  %r = tile.broadcast %a dims [1] : tensor<16xf32> -> tensor<8x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<2x1xf32>
  // expected-error @below {{expanded dimension 0 must have size 1 in the input, got 2}}
  %r = tile.broadcast %a dims [0, 1] : tensor<2x1xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<1x8xf32>
  // expected-error @below {{result dimension 1 has size 4 but input dimension 1 has size 8}}
  %r = tile.broadcast %a dims [0] : tensor<1x8xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @below {{result element type must equal the input's}}
  %r = tile.broadcast %a dims [1] : tensor<16xf32> -> tensor<16x4xf16>
  tile.return
}

// -----

tile.kernel @k(%x: f32) threads(32) {
  // expected-error @below {{result element type 'f16' must equal the scalar's type 'f32'}}
  %r = tile.splat %x : f32 -> tensor<16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  // expected-error @below {{result tile 'tensor<0xi32>' has a dimension of size 0}}
  %r = tile.iota : tensor<0xi32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %c = arith.constant dense<true> : tensor<8xi1>
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @below {{condition shape must equal the result shape, got 'tensor<8xi1>' for 'tensor<16xf32>'}}
  %r = tile.select %c, %a, %a : tensor<8xi1>, tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  // expected-error @below {{pending must be a count of copy groups (>= 0), got -1}}
  tile.async_wait -1
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0.0> : tensor<16x16xf32>
  %s = arith.constant dense<0.0> : tensor<1x16xf16>
  // expected-error @below {{codes must be i4, i8, f8E4M3FN or f8E5M2, got 'f32'}}
  %w = tile.dequant %q, %s group [16, 1] : tensor<16x16xf32>, tensor<1x16xf16> -> tensor<16x16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0> : tensor<16x16xi4>
  %s = arith.constant dense<0> : tensor<1x16xi8>
  // expected-error @below {{scales and result must be float tiles}}
  %w = tile.dequant %q, %s group [16, 1] : tensor<16x16xi4>, tensor<1x16xi8> -> tensor<16x16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0> : tensor<16x16xi4>
  %s = arith.constant dense<0.0> : tensor<1x16xf16>
  // expected-error @below {{result shape must equal the codes shape}}
  %w = tile.dequant %q, %s group [16, 1] : tensor<16x16xi4>, tensor<1x16xf16> -> tensor<16x8xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0> : tensor<16x16xi4>
  %s = arith.constant dense<0.0> : tensor<1x16xf16>
  // expected-error @below {{group has 1 entries but the codes tile has rank 2}}
  %w = tile.dequant %q, %s group [16] : tensor<16x16xi4>, tensor<1x16xf16> -> tensor<16x16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0> : tensor<96x16xi4>
  %s = arith.constant dense<0.0> : tensor<1x16xf16>
  // expected-error @below {{in dimension 0 the tile (96) must hold whole groups of 64 or lie inside one group; change the tile or group size}}
  %w = tile.dequant %q, %s group [64, 1] : tensor<96x16xi4>, tensor<1x16xf16> -> tensor<96x16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0> : tensor<128x16xi4>
  %s = arith.constant dense<0.0> : tensor<1x16xf16>
  // expected-error @below {{scales dimension 0 must be 2 (one per group of 64), got 1}}
  %w = tile.dequant %q, %s group [64, 1] : tensor<128x16xi4>, tensor<1x16xf16> -> tensor<128x16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0> : tensor<128x16xi4>
  %s = arith.constant dense<0.0> : tensor<1x16xf16>
  // expected-error @below {{group sizes must be positive, got 0}}
  %w = tile.dequant %q, %s group [128, 0] : tensor<128x16xi4>, tensor<1x16xf16> -> tensor<128x16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %q = arith.constant dense<0> : tensor<128x16xi4>
  %s = arith.constant dense<0.0> : tensor<1x16xf16>
  %z = arith.constant dense<0> : tensor<1x8xi4>
  // expected-error @below {{zero points need the same shape as the scales}}
  %w = tile.dequant %q, %s, %z group [128, 1] : tensor<128x16xi4>, tensor<1x16xf16>, tensor<1x8xi4> -> tensor<128x16xf16>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %x = arith.constant dense<0> : tensor<16x16xi32>
  // expected-error @below {{input and scales must be float tiles}}
  %q, %s = tile.quant %x group [1, 16] : tensor<16x16xi32> -> tensor<16x16xi8>, tensor<16x1xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %x = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @below {{codes must be i4, i8, f8E4M3FN or f8E5M2, got 'f16'}}
  %q, %s = tile.quant %x group [1, 16] : tensor<16x16xf32> -> tensor<16x16xf16>, tensor<16x1xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %x = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @below {{codes shape must equal the input shape}}
  %q, %s = tile.quant %x group [1, 16] : tensor<16x16xf32> -> tensor<16x8xi8>, tensor<16x1xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?xf32>, %i: index) threads(32) {
  // expected-error @below {{'tile.index_bits' must be 32 or 64, got 16 : i64}}
  %t = tile.load %A[%i] {tile.index_bits = 16} : !tile.view<?xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  // expected-error @below {{'tile.index_bits' applies to view accesses, not to 'tile.barrier'}}
  tile.barrier {tile.index_bits = 32}
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  // expected-error @below {{'tile.stage' must be a non-negative integer, got -1 : i64}}
  tile.barrier {tile.stage = -1}
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %p = arith.constant dense<0> : tensor<4x2xi4>
  // expected-error @below {{the input needs a trailing dimension of packed codes and the result one dimension less, got 'tensor<4x2xi4>' -> 'tensor<4x2xi4>'}}
  %r = tile.unpack %p dim 0 order [0, 1] : tensor<4x2xi4> -> tensor<4x2xi4>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %p = arith.constant dense<0> : tensor<4x4x2xi4>
  // expected-error @below {{dimension 2 is out of range for the result}}
  %r = tile.unpack %p dim 2 order [0, 1] : tensor<4x4x2xi4> -> tensor<4x8xi4>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %p = arith.constant dense<0> : tensor<4x4x2xi4>
  // expected-error @below {{order has 3 entries but the trailing dimension packs 2 codes}}
  %r = tile.unpack %p dim 1 order [0, 1, 2] : tensor<4x4x2xi4> -> tensor<4x8xi4>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %p = arith.constant dense<0> : tensor<4x4x2xi4>
  // expected-error @below {{order must be a permutation of [0, 2)}}
  %r = tile.unpack %p dim 1 order [1, 1] : tensor<4x4x2xi4> -> tensor<4x8xi4>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %p = arith.constant dense<0> : tensor<4x4x2xi4>
  // expected-error @below {{result dimension 0 must be 8, got 4}}
  %r = tile.unpack %p dim 0 order [0, 1] : tensor<4x4x2xi4> -> tensor<4x8xi4>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %p = arith.constant dense<0> : tensor<4x4x2xi4>
  // expected-error @below {{result element type must equal the input's}}
  %r = tile.unpack %p dim 1 order [1, 0] : tensor<4x4x2xi4> -> tensor<4x8xi8>
  tile.return
}

// -----

#l = #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
func.func @f(%x: tensor<16x8xf32, #l>) {
  // expected-error @below {{'tile.convert_layout' op must keep the tile's shape and element type}}
  %y = tile.convert_layout %x : tensor<16x8xf32, #l> -> tensor<16x8xf16, #l>
  return
}

// -----

#l = #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
func.func @f(%x: tensor<16x8xf32>) {
  // expected-error @below {{'tile.convert_layout' op converts between #tile.linear layouts: both types need one}}
  %y = tile.convert_layout %x : tensor<16x8xf32> -> tensor<16x8xf32, #l>
  return
}

// -----

// expected-error @below {{an mbarrier array has 1 to 32 slots, got 0}}
func.func private @f(!tile.mbarrier<0>)

// -----

tile.kernel @k() threads(128) {
  // expected-error @below {{arrivals must be between 1 and 1048575, got 0}}
  %b = tile.alloc_mbarrier arrivals(0) : !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k() threads(128) {
  // expected-error @below {{the producer registers must be a multiple of 8 between 24 and 256, got 44}}
  tile.warp_specialize registers(44, 232) producer {
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k() threads(96) {
  // expected-error @below {{needs a kernel of whole warpgroups (a multiple of 128 threads) that leaves room for the producer's: at most 896, got 96}}
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k() threads(256) {
  // expected-error @below {{gives its roles 68608 registers (40 x 128 + 248 x 256), more than the 65536 of an SM}}
  tile.warp_specialize registers(40, 248) producer {
  } consumer {
  }
  tile.return
}

// -----

// Ping-pong: two sets of the kernel's threads, then the producer's.
tile.kernel @k() threads(512) {
  // expected-error @below {{needs a kernel of whole warpgroups (a multiple of 128 threads) that leaves room for the producer's and a second consumer set: at most 448, got 512}}
  tile.warp_specialize registers(40, 56) pingpong producer {
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k() threads(128) {
  // expected-error @below {{gives its roles 66560 registers (40 x 128 + 240 x 256), more than the 65536 of an SM}}
  tile.warp_specialize registers(40, 240) pingpong producer {
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k() threads(128) {
  // expected-error @below {{is one of several in its kernel; a kernel has one}}
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
  }
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k() threads(128) {
  %c = arith.constant dense<0.0> : tensor<16xf32>
  %z = arith.addf %c, %c : tensor<16xf32>
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
    // expected-error @below {{uses a register tile defined outside its role (not a constant); define it inside the tile.warp_specialize region}}
    %y = arith.addf %z, %c : tensor<16xf32>
  }
  tile.return
}

// -----

tile.kernel @k() threads(128) {
  tile.warp_specialize registers(40, 232) producer {
    // expected-error @below {{in the producer role: the producer synchronizes through mbarriers only}}
    tile.barrier
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k(%C: !tile.view<?x?xbf16>, %i: index) threads(128) {
  %s = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.warp_specialize registers(40, 232) producer {
    // expected-error @below {{in the producer role, which only fills the rings; the consumers store the results}}
    tile.copy_out %s -> %C[%i, %i] async : !tile.shared<64x64xbf16> -> !tile.view<?x?xbf16>
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k() threads(128) {
  tile.warp_specialize registers(40, 232) producer {
    // expected-error @below {{makes a register tile in the producer role, which only copies}}
    %z = arith.constant dense<0.0> : tensor<16xf32>
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k() threads(128) {
  // expected-error @below {{a cluster mbarrier array needs a kernel launched in clusters of two programs or more (cluster(...))}}
  %b = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %r = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  tile.warp_specialize registers(40, 232) producer {
    // expected-error @below {{multicast needs a kernel launched in clusters of two programs or more (cluster(...))}}
    tile.copy %A[%c0, %c0] -> %r[%c0] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  } consumer {
  }
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf16>) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %r = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  // expected-error @below {{multicast is an asynchronous fill of a ring by the producer role of a tile.warp_specialize}}
  tile.copy %A[%c0, %c0] -> %r[%c0] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.return
}
