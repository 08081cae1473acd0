// Verifier and shape-rule errors of jx.take and jx.scatter_add.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @take_axis_out_of_range(%x: tensor<10x4xf32>, %i: tensor<6xi32>) {
  // expected-error @+2 {{axis 2 is out of range for 'tensor<10x4xf32>'}}
  // expected-error @+1 {{'jx.take' op failed to infer returned types}}
  %0 = jx.take %x[%i], axis = 2 : tensor<10x4xf32>, tensor<6xi32> -> tensor<6x4xf32>
  return
}

// -----

func.func @take_wrong_result(%x: tensor<10x4xf32>, %i: tensor<6xi32>) {
  // expected-error @+2 {{'jx.take' op inferred type(s) 'tensor<6x4xf32>' are incompatible with return type(s) of operation 'tensor<4x6xf32>'}}
  // expected-error @+1 {{'jx.take' op failed to infer returned types}}
  %0 = jx.take %x[%i], axis = 0 : tensor<10x4xf32>, tensor<6xi32> -> tensor<4x6xf32>
  return
}

// -----

func.func @take_indices_2d(%x: tensor<10x4xf32>, %i: tensor<2x3xi32>) {
  // expected-error @+1 {{'jx.take' op operand #1 must be 1-D static tensor of 32/64-bit integer values}}
  %0 = jx.take %x[%i], axis = 0 : tensor<10x4xf32>, tensor<2x3xi32> -> tensor<6x4xf32>
  return
}

// -----

func.func @take_float_indices(%x: tensor<10x4xf32>, %i: tensor<6xf32>) {
  // expected-error @+1 {{'jx.take' op operand #1 must be 1-D static tensor of 32/64-bit integer values}}
  %0 = jx.take %x[%i], axis = 0 : tensor<10x4xf32>, tensor<6xf32> -> tensor<6x4xf32>
  return
}

// -----

func.func @scatter_updates_shape(%x: tensor<10x4xf32>, %i: tensor<6xi32>, %u: tensor<6x5xf32>) {
  // expected-error @+1 {{'jx.scatter_add' op updates 'tensor<6x5xf32>' should have shape 'tensor<6x4xf32>': the operand's, with axis 0 as long as the indices}}
  %0 = jx.scatter_add %x[%i], %u, axis = 0 : tensor<10x4xf32>, tensor<6xi32>, tensor<6x5xf32>
  return
}

// -----

func.func @scatter_axis(%x: tensor<10x4xf32>, %i: tensor<6xi32>, %u: tensor<6x4xf32>) {
  // expected-error @+1 {{'jx.scatter_add' op axis -1 is out of range for 'tensor<10x4xf32>'}}
  %0 = jx.scatter_add %x[%i], %u, axis = -1 : tensor<10x4xf32>, tensor<6xi32>, tensor<6x4xf32>
  return
}

// -----

func.func @scatter_element_type(%x: tensor<10x4xf32>, %i: tensor<6xi32>, %u: tensor<6x4xf64>) {
  // expected-error @+1 {{'jx.scatter_add' op failed to verify that all of {operand, updates} have same element type}}
  %0 = jx.scatter_add %x[%i], %u, axis = 0 : tensor<10x4xf32>, tensor<6xi32>, tensor<6x4xf64>
  return
}
