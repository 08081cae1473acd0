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
