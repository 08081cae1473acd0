// Shape-rule errors of jx.dot_general.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @contracting_count(%a: tensor<5x4xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{lhs and rhs must have the same number of contracting dimensions, got 1 and 2}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0, 1], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4x3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @batch_count(%a: tensor<2x5x4xf32>, %b: tensor<2x4x3xf32>) {
  // expected-error @+2 {{lhs and rhs must have the same number of batch dimensions, got 1 and 0}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [1], batch_dims = [0] x [] : tensor<2x5x4xf32>, tensor<2x4x3xf32> -> tensor<2x5x2x3xf32>
  return
}

// -----

func.func @element_types_differ(%a: tensor<5x4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{lhs and rhs must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf16> -> tensor<5xf32>
  return
}

// -----

func.func @lhs_contracting_out_of_range(%a: tensor<5x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{lhs contracting dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @rhs_contracting_negative(%a: tensor<5x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{rhs contracting dimension -1 is out of range for rank 1}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [-1], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @lhs_batch_out_of_range(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{lhs batch dimension 7 is out of range for rank 2}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [1], batch_dims = [7] x [0] : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @rhs_batch_out_of_range(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{rhs batch dimension 2 is out of range for rank 2}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [1], batch_dims = [0] x [2] : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2xf32>
  return
}

// -----

// A dimension is either batch or contracting, once.
func.func @batch_and_contracting(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+2 {{lhs contracting dimension 0 is repeated}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [0] x [1], batch_dims = [0] x [0] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @rhs_contracting_repeated(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+2 {{rhs contracting dimension 1 is repeated}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [0, 1] x [1, 1], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<f32>
  return
}

// -----

func.func @lhs_batch_repeated(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+2 {{lhs batch dimension 0 is repeated}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [] x [], batch_dims = [0, 0] x [0, 1] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @rhs_batch_repeated(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+2 {{rhs batch dimension 1 is repeated}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [] x [], batch_dims = [0, 1] x [1, 1] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @contracting_sizes(%a: tensor<5x4xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{contracting dimension sizes differ: lhs dimension 1 has size 4, rhs dimension 0 has size 3}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @batch_sizes(%a: tensor<2x5x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{batch dimension sizes differ: lhs dimension 0 has size 2, rhs dimension 0 has size 3}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [1], batch_dims = [0] x [0] : tensor<2x5x4xf32>, tensor<3x4xf32> -> tensor<2x5xf32>
  return
}

// -----

// The printed result type must be the inferred one: batch dims lead.
func.func @result_order(%a: tensor<2x5x4xf32>, %b: tensor<2x4x3xf32>) {
  // expected-error @+2 {{'jx.dot_general' op inferred type(s) 'tensor<2x5x3xf32>' are incompatible with return type(s) of operation 'tensor<5x2x3xf32>'}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [1], batch_dims = [0] x [0] : tensor<2x5x4xf32>, tensor<2x4x3xf32> -> tensor<5x2x3xf32>
  return
}

// -----

func.func @result_ignores_preferred(%a: tensor<5x4xbf16>, %b: tensor<4xbf16>) {
  // expected-error @+2 {{'jx.dot_general' op inferred type(s) 'tensor<5xf32>' are incompatible with return type(s) of operation 'tensor<5xbf16>'}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = f32} : tensor<5x4xbf16>, tensor<4xbf16> -> tensor<5xbf16>
  return
}

// -----

func.func @preferred_not_an_element(%a: tensor<5x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{preferred_element_type must be one of f32, f64, f16, bf16, i32, i64, got 'tensor<f32>'}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = tensor<f32>} : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @preferred_bool(%a: tensor<5x4xi32>, %b: tensor<4xi32>) {
  // expected-error @+2 {{preferred_element_type must be one of f32, f64, f16, bf16, i32, i64, got 'i1'}}
  // expected-error @+1 {{'jx.dot_general' op failed to infer returned types}}
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = i1} : tensor<5x4xi32>, tensor<4xi32> -> tensor<5xi32>
  return
}

// -----

func.func @dot_of_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{'jx.dot_general' op operand #0 must be statically shaped tensor of}}
  %0 = jx.dot_general %a, %a, contracting_dims = [0] x [0], batch_dims = [] x [] : tensor<4xi1>, tensor<4xi1> -> tensor<i1>
  return
}
