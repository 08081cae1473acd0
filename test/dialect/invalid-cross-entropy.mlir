// RUN: cotangent-opt %s -split-input-file -verify-diagnostics
// The fused cross-entropy's verifier: a non-empty class dimension, integer
// labels of the logits' rows, the backward's logsumexp and dloss those rows.

func.func @f(%x: tensor<f32>, %y: tensor<i32>) {
  // expected-error @+1 {{logits need a non-empty class dimension, got 'tensor<f32>'}}
  %l, %s = jx.softmax_cross_entropy %x, %y : tensor<f32>, tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<4x10xf32>, %y: tensor<5xi32>) {
  // expected-error @+1 {{labels must be the logits' shape without the classes, 'tensor<4xi32>', got 'tensor<5xi32>'}}
  %l, %s = jx.softmax_cross_entropy %x, %y : tensor<4x10xf32>, tensor<5xi32>
  return
}

// -----

func.func @f(%x: tensor<4x10xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'jx.softmax_cross_entropy' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %l, %s = jx.softmax_cross_entropy %x, %y : tensor<4x10xf32>, tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4x10xf32>, %y: tensor<4xi32>, %lse: tensor<4x1xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{logsumexp and dloss must be 'tensor<4xf32>', got 'tensor<4x1xf32>' and 'tensor<4xf32>'}}
  %d = jx.softmax_cross_entropy_grad %x, %lse, %y, %g : tensor<4x10xf32>, tensor<4x1xf32>, tensor<4xi32>, tensor<4xf32>
  return
}
