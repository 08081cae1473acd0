// Verifier errors of integer_pow and select_n.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @negative_int_power(%x: tensor<3xi32>) {
  // expected-error @+1 {{'jx.integer_pow' op negative exponent -2 needs a floating-point operand, got 'tensor<3xi32>'}}
  %0 = jx.integer_pow %x, y = -2 : tensor<3xi32>
  return
}

// -----

func.func @int_pow_of_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'jx.integer_pow' op operand #0 must be statically shaped tensor of}}
  %0 = jx.integer_pow %x, y = 2 : tensor<3xi1>
  return
}

// -----

func.func @select_cases_differ(%p: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{'jx.select_n' op case 1 has type 'tensor<3xf64>' but case 0 has type 'tensor<3xf32>'}}
  %0 = jx.select_n %p, %a, %b : tensor<i1>, tensor<3xf32>, tensor<3xf64>
  return
}

// -----

func.func @select_selector_shape(%p: tensor<2xi1>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'jx.select_n' op selector shape must be a scalar or the cases' shape, got 'tensor<2xi1>' for cases of type 'tensor<3xf32>'}}
  %0 = jx.select_n %p, %a, %a : tensor<2xi1>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @select_bool_three_cases(%p: tensor<i1>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'jx.select_n' op a boolean selector picks among at most 2 cases, got 3}}
  %0 = jx.select_n %p, %a, %a, %a : tensor<i1>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @select_i64_selector(%k: tensor<i64>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'jx.select_n' op operand #0 must be statically shaped tensor of 1-bit signless integer or 32-bit signless integer values, but got 'tensor<i64>'}}
  %0 = jx.select_n %k, %a, %a : tensor<i64>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @select_no_cases(%p: tensor<i1>) {
  // expected-error @+1 {{'jx.select_n' op expected at least one case}}
  %0 = "jx.select_n"(%p) : (tensor<i1>) -> tensor<3xf32>
  return
}

// -----

func.func @select_result_differs(%p: tensor<i1>, %a: tensor<3xf32>) {
  // expected-error @+2 {{'jx.select_n' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<3xf64>'}}
  // expected-error @+1 {{'jx.select_n' op failed to infer returned types}}
  %0 = "jx.select_n"(%p, %a) : (tensor<i1>, tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

func.func @bitcast_width(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jx.bitcast_convert_type' op bit width changes from 'i32' to 'f64'}}
  %0 = jx.bitcast_convert_type %x : tensor<4xi32> -> tensor<4xf64>
  return
}

// -----

func.func @bitcast_shape(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jx.bitcast_convert_type' op all non-scalar operands/results must have the same shape and base type}}
  %0 = jx.bitcast_convert_type %x : tensor<4xi32> -> tensor<2xf32>
  return
}

// -----

func.func @threefry_i64(%x: tensor<4xi64>) {
  // expected-error @+1 {{'jx.threefry2x32' op operand #0 must be statically shaped tensor of 32-bit signless integer values}}
  %0:2 = jx.threefry2x32 %x, %x, %x, %x : tensor<4xi64>
  return
}

// -----

func.func @shift_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'jx.shift_right_logical' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = jx.shift_right_logical %x, %x : tensor<4xi1>
  return
}

// -----

func.func @xor_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.xor' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values}}
  %0 = jx.xor %x, %x : tensor<4xf32>
  return
}
