// RUN: cotangent-opt %s --jx-vjp -split-input-file -verify-diagnostics

func.func @loop(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'jx.while' op is not reverse-differentiable}}
  %0 = jx.while (%x) : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%a: tensor<f32>):
    %z = jx.constant dense<0.0> : tensor<f32>
    %c = jx.lt %a, %z : tensor<f32>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op cannot be differentiated: 'g_fwd' already exists}}
func.func @g(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @g_fwd(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

func.func @h(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op cannot be differentiated by --jx-vjp}}
  %0 = func.call @h(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @too_long(%h0: tensor<4xf32>, %xs: tensor<2000000x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'jx.scan' op snapshots = 1: the binomial schedule of 2000000 iterations takes more than 4194304 actions; give more snapshots}}
  %c = jx.scan(%h0, %xs) length = 2000000, consts = 0, carry = 1 : (tensor<4xf32>, tensor<2000000x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
    %0 = jx.mul %h, %x : tensor<4xf32>
    jx.yield %0 : tensor<4xf32>
  } attributes {snapshots = 1 : i64}
  return %c : tensor<4xf32>
}

// -----

// Found by fuzz-ir-pipeline: a scalar argument crashed the transpose.
// expected-error @+1 {{'func.func' op cannot be differentiated: argument 1 is 'i32', not a ranked tensor}}
func.func @scaled(%x: tensor<4xf32>, %n: i32) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op cannot be differentiated: argument 0 is 'tensor<*xf32>', not a ranked tensor}}
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}
