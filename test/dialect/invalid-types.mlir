// Operand and result types outside an op's ODS constraints: element types,
// dynamic and unranked shapes, and the same-type traits.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @sin_of_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'jx.sin' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = jx.sin %x : tensor<4xi32>
  return
}

// -----

func.func @neg_of_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'jx.neg' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = jx.neg %x : tensor<4xi1>
  return
}

// -----

func.func @not_of_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.not' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = jx.not %x : tensor<4xf32>
  return
}

// -----

func.func @pow_of_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{'jx.pow' op operand #0 must be statically shaped tensor of 32-bit float}}
  %0 = jx.pow %x, %x : tensor<4xi64>
  return
}

// -----

func.func @and_of_float(%x: tensor<4xbf16>) {
  // expected-error @+1 {{'jx.and' op operand #0 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xbf16>'}}
  %0 = jx.and %x, %x : tensor<4xbf16>
  return
}

// -----

// Element types outside the dialect's seven.
func.func @i8_operand(%x: tensor<4xi8>) {
  // expected-error @+1 {{'jx.stop_gradient' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = jx.stop_gradient %x : tensor<4xi8>
  return
}

// -----

func.func @unsigned_operand(%x: tensor<4xui32>) {
  // expected-error @+1 {{'jx.add' op operand #0 must be statically shaped tensor of}}
  %0 = jx.add %x, %x : tensor<4xui32>
  return
}

// -----

func.func @i8_constant() {
  // expected-error @+1 {{'jx.constant' op result #0 must be statically shaped tensor of}}
  %0 = jx.constant dense<1> : tensor<4xi8>
  return
}

// -----

func.func @convert_to_f8(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.convert_element_type' op result #0 must be statically shaped tensor of}}
  %0 = jx.convert_element_type %x : tensor<4xf32> -> tensor<4xf8E4M3FN>
  return
}

// -----

// Shapes are static.
func.func @dynamic_dim(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'jx.exp' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type values, but got 'tensor<?x4xf32>'}}
  %0 = jx.exp %x : tensor<?x4xf32>
  return
}

// -----

func.func @dynamic_reshape(%x: tensor<?xf32>) {
  // expected-error @+1 {{'jx.reshape' op operand #0 must be statically shaped tensor of}}
  %0 = jx.reshape %x : tensor<?xf32> -> tensor<?x2xf32>
  return
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.broadcast_in_dim' op result #0 must be statically shaped tensor of}}
  %0 = jx.broadcast_in_dim %x, dims = [1] : tensor<4xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @unranked_generic(%x: tensor<*xf32>) {
  // expected-error @+1 {{'jx.transpose' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "jx.transpose"(%x) {permutation = array<i64: 0>} : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @unranked_custom(%x: tensor<*xf32>) {
  // expected-error @+1 {{custom op 'jx.eq' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = jx.eq %x, %x : tensor<*xf32>
  return
}

// -----

func.func @memref_operand(%x: memref<4xf32>) {
  // expected-error @+1 {{'jx.abs' op operand #0 must be statically shaped tensor of}}
  %0 = "jx.abs"(%x) : (memref<4xf32>) -> memref<4xf32>
  return
}

// -----

// Elementwise ops take operands of one type; there is no implicit broadcasting.
func.func @binary_shapes_differ(%x: tensor<4xf32>, %y: tensor<1xf32>) {
  // expected-error @+1 {{'jx.add' op requires the same type for all operands and results}}
  %0 = "jx.add"(%x, %y) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @binary_types_differ(%x: tensor<4xf32>, %y: tensor<4xf64>) {
  // expected-error @+1 {{'jx.mul' op requires the same type for all operands and results}}
  %0 = "jx.mul"(%x, %y) : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @unary_result_differs(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.tanh' op requires the same type for all operands and results}}
  %0 = "jx.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @compare_types_differ(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'jx.lt' op requires all operands to have the same type}}
  %0 = "jx.lt"(%x, %y) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @compare_result_not_bool(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jx.ge' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "jx.ge"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_result_shape(%x: tensor<4xf32>) {
  // Comparisons are Elementwise: the result has the operands' shape.
  // expected-error @+1 {{'jx.eq' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "jx.eq"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x2xi1>
  return
}

// -----

func.func @constant_type_differs() {
  // expected-error @+1 {{'jx.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "jx.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf64>
  return
}

// -----

func.func @iota_of_bool() {
  // expected-error @+1 {{'jx.iota' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = jx.iota dim = 0 : tensor<4xi1>
  return
}
