// RUN: cotangent-opt %s -split-input-file -verify-diagnostics
// The collectives' verifiers: a named axis; all_gather's and psum_scatter's
// sides agree with the axis size, the dimension and tiled; ppermute's pairs.

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.psum' op needs a mesh axis name}}
  %0 = jx.psum %x, axis = "" : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'jx.pmean' op operand #0 must be statically shaped tensor of}}
  %0 = jx.pmean %x, axis = "data" : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'jx.all_gather' op the gathered side must be 'tensor<4x3xf32>' (4 ranks of 'tensor<3xf32>' along dimension 0), got 'tensor<3x4xf32>'}}
  %0 = jx.all_gather %x, axis = "data"(4), dimension = 0 : tensor<3xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'jx.all_gather' op the gathered side must be 'tensor<6xf32>' (2 ranks of 'tensor<3xf32>', tiled along dimension 0), got 'tensor<3xf32>'}}
  %0 = jx.all_gather %x, axis = "data"(2), dimension = 0 tiled : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'jx.all_gather' op dimension 2 is not a place to insert an axis of 'tensor<3xf32>'}}
  %0 = jx.all_gather %x, axis = "data"(2), dimension = 2 : tensor<3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @f(%x: tensor<3xf32>) -> tensor<0x3xf32> {
  // expected-error @+1 {{'jx.all_gather' op axis_size must be at least 1, got 0}}
  %0 = jx.all_gather %x, axis = "data"(0), dimension = 0 : tensor<3xf32> -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

func.func @f(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.psum_scatter' op the gathered side must be 'tensor<2x4xf32>' (2 ranks of 'tensor<4xf32>' along dimension 0), got 'tensor<3x4xf32>'}}
  %0 = jx.psum_scatter %x, axis = "data"(2), dimension = 0 : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'jx.psum_scatter' op operand and result must have one element type, got 'f64' and 'f32'}}
  %0 = jx.psum_scatter %x, axis = "data"(2), dimension = 0 tiled : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.ppermute' op perm must list (source, destination) pairs, got 3 ranks}}
  %0 = jx.ppermute %x, axis = "data", perm = [0, 1, 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.ppermute' op rank 1 is a destination twice in perm}}
  %0 = jx.ppermute %x, axis = "data", perm = [0, 1, 2, 1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.ppermute' op rank 0 is a source twice in perm}}
  %0 = jx.ppermute %x, axis = "data", perm = [0, 1, 0, 2] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.ppermute' op perm's ranks must not be negative, got (-1, 0)}}
  %0 = jx.ppermute %x, axis = "data", perm = [-1, 0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f() -> tensor<i32> {
  // expected-error @+1 {{'jx.axis_index' op needs a mesh axis name}}
  %0 = jx.axis_index axis = "" : tensor<i32>
  return %0 : tensor<i32>
}
