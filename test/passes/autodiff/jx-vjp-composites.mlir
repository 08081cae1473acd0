// RUN: cotangent-opt %s --jx-vjp -split-input-file | FileCheck %s
// RUN: cotangent-opt %s --jx-vjp --jx-remat -split-input-file | FileCheck %s --check-prefix=REMAT

// Fused attention saves its operands, its output and the logsumexp, and its
// backward is one dot_product_attention_grad: the probabilities are never
// saved. Under a remat that recomputes everything the forward keeps neither
// result and the backward redoes the attention (the grad op needs both).
// CHECK-LABEL: func.func @f_fwd(
// CHECK:         %[[O:.*]], %[[L:.*]] = jx.dot_product_attention %[[Q:[^,]*]], %[[K:[^,]*]], %[[V:[^,]*]], scale = 2.500000e-01 causal
// CHECK:         %[[S:.*]] = jx.tanh %[[O]]
// CHECK:         return %{{.*}}, %[[Q]], %[[K]], %[[V]], %[[O]], %[[L]]
// CHECK-LABEL: func.func @f_bwd(
// CHECK-NOT:     jx.dot_product_attention {{.*}}scale
// CHECK:         %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = jx.dot_product_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, scale = 2.500000e-01 causal
// CHECK:         return %[[DQ]], %[[DK]], %[[DV]]
// REMAT-LABEL: func.func @g_fwd(
// REMAT:         %[[GO:.*]], %[[GL:.*]] = jx.dot_product_attention
// REMAT-NOT:     %[[GO]],
// REMAT:         return %{{.*}}, %arg0, %arg1, %arg2, %{{[0-9]+}} :
// REMAT-LABEL: func.func @g_bwd(
// REMAT:         %[[O:.*]], %[[L:.*]] = jx.dot_product_attention
// REMAT:         jx.dot_product_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[L]]
func.func @f(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) -> tensor<f32> {
  %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 0.25 causal
      : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
  %t = jx.tanh %o : tensor<1x4x2x8xf32>
  %s = jx.reduce_sum %t, axes = [0, 1, 2, 3] : tensor<1x4x2x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @g(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) -> tensor<f32> {
  %r = jx.remat (%q, %k, %v) : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<1x4x2x8xf32>, %b: tensor<1x4x2x8xf32>, %c: tensor<1x4x2x8xf32>):
    %o, %lse = jx.dot_product_attention %a, %b, %c, scale = 0.25 causal
        : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
    jx.yield %o : tensor<1x4x2x8xf32>
  }
  %t = jx.tanh %r : tensor<1x4x2x8xf32>
  %s = jx.reduce_sum %t, axes = [0, 1, 2, 3] : tensor<1x4x2x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// Under dots_saveable the output and the logsumexp are kept (fused
// attention counts as a dot): the backward does not redo the forward.
// REMAT-LABEL: func.func @h_fwd(
// REMAT:         %[[HO:.*]], %[[HL:.*]] = jx.dot_product_attention
// REMAT:         return %{{.*}}, %arg0, %arg1, %arg2, %[[HO]], %[[HL]]
// REMAT-LABEL: func.func @h_bwd(
// REMAT-NOT:     jx.dot_product_attention {{.*}}scale
// REMAT:         jx.dot_product_attention_grad
func.func @h(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf32>) -> tensor<f32> {
  %r = jx.remat (%q, %k, %v) : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) -> tensor<1x4x2x8xf32> policy = #jx.policy<dots_saveable> {
  ^bb0(%a: tensor<1x4x2x8xf32>, %b: tensor<1x4x2x8xf32>, %c: tensor<1x4x2x8xf32>):
    %o, %lse = jx.dot_product_attention %a, %b, %c, scale = 0.25 causal
        : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
    jx.yield %o : tensor<1x4x2x8xf32>
  }
  %t = jx.tanh %r : tensor<1x4x2x8xf32>
  %s = jx.reduce_sum %t, axes = [0, 1, 2, 3] : tensor<1x4x2x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A logsumexp cotangent (IR may use it; traced programs do not) adds
// g_i P_ij to the scores': an attention whose values are the keys for dq, a
// second backward's dvalue for dk.
// CHECK-LABEL: func.func @lse_bwd(
// CHECK:         jx.dot_product_attention_grad
// CHECK:         jx.broadcast_in_dim %{{.*}}, dims = [0, 1, 2]
// CHECK:         jx.transpose %{{.*}}, perm = [0, 2, 1, 3]
// CHECK:         %[[PK:.*]], %{{.*}} = jx.dot_product_attention
// CHECK:         jx.dot_product_attention_grad
// CHECK:         return
func.func @lse(%q: tensor<1x4x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>) {
  %o, %lse = jx.dot_product_attention %q, %q, %q, scale = 0.5
      : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
  return %o, %lse : tensor<1x4x2x8xf32>, tensor<1x2x4xf32>
}

// -----

// The fused cross-entropy saves its logits, logsumexp and labels; its
// backward is one softmax_cross_entropy_grad (the labels get no cotangent).
// CHECK-LABEL: func.func @ce_fwd(
// CHECK:         %[[LOSS:.*]], %[[LSE:.*]] = jx.softmax_cross_entropy %arg0, %arg1
// CHECK:         return %{{.*}}, %arg0, %arg1, %[[LSE]]
// CHECK-LABEL: func.func @ce_bwd(
// CHECK:         %[[D:.*]] = jx.softmax_cross_entropy_grad
// CHECK:         return %[[D]], %{{.*}} : tensor<4x10xf32>, tensor<4xi32>
func.func @ce(%x: tensor<4x10xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  %loss, %lse = jx.softmax_cross_entropy %x, %y : tensor<4x10xf32>, tensor<4xi32>
  %s = jx.reduce_sum %loss, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
