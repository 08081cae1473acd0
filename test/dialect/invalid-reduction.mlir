// Errors of the reductions, argmax and cumsum.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @reduce_axis_out_of_range(%x: tensor<5x4xf32>) {
  // expected-error @+2 {{reduction dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{'jx.reduce_sum' op failed to infer returned types}}
  %0 = jx.reduce_sum %x, axes = [2] : tensor<5x4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @reduce_axis_negative(%x: tensor<5x4xf32>) {
  // expected-error @+2 {{reduction dimension -1 is out of range for rank 2}}
  // expected-error @+1 {{'jx.reduce_max' op failed to infer returned types}}
  %0 = jx.reduce_max %x, axes = [-1] : tensor<5x4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @reduce_axis_repeated(%x: tensor<5x4xf32>) {
  // expected-error @+2 {{reduction dimension 1 is repeated}}
  // expected-error @+1 {{'jx.reduce_min' op failed to infer returned types}}
  %0 = jx.reduce_min %x, axes = [1, 1] : tensor<5x4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @reduce_result(%x: tensor<5x4xf32>) {
  // expected-error @+2 {{'jx.reduce_prod' op inferred type(s) 'tensor<5xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'jx.reduce_prod' op failed to infer returned types}}
  %0 = jx.reduce_prod %x, axes = [1] : tensor<5x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_bool(%x: tensor<5xi1>) {
  // expected-error @+1 {{'jx.reduce_sum' op operand #0 must be statically shaped tensor of}}
  %0 = jx.reduce_sum %x, axes = [0] : tensor<5xi1> -> tensor<i1>
  return
}

// -----

func.func @argmax_axis(%x: tensor<5x4xf32>) {
  // expected-error @+1 {{'jx.argmax' op axis 2 is out of range for 'tensor<5x4xf32>'}}
  %0 = jx.argmax %x, axis = 2 : tensor<5x4xf32> -> tensor<5xi32>
  return
}

// -----

func.func @argmax_negative_axis(%x: tensor<5x4xf32>) {
  // expected-error @+1 {{'jx.argmax' op axis -1 is out of range for 'tensor<5x4xf32>'}}
  %0 = jx.argmax %x, axis = -1 : tensor<5x4xf32> -> tensor<5xi32>
  return
}

// -----

func.func @argmax_result_shape(%x: tensor<5x4xf32>) {
  // expected-error @+1 {{'jx.argmax' op result shape must be the operand's without axis 1, got 'tensor<4xi32>'}}
  %0 = jx.argmax %x, axis = 1 : tensor<5x4xf32> -> tensor<4xi32>
  return
}

// -----

func.func @argmax_result_float(%x: tensor<5x4xf32>) {
  // expected-error @+1 {{'jx.argmax' op result #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<5xf32>'}}
  %0 = jx.argmax %x, axis = 1 : tensor<5x4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @cumsum_axis(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.cumsum' op axis 1 is out of range for 'tensor<5xf32>'}}
  %0 = jx.cumsum %x, axis = 1 : tensor<5xf32>
  return
}

// -----

func.func @cumsum_negative_axis(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.cumsum' op axis -1 is out of range for 'tensor<5xf32>'}}
  %0 = jx.cumsum %x, axis = -1 reverse : tensor<5xf32>
  return
}
