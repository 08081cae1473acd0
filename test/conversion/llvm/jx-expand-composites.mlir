// RUN: cotangent-opt %s --split-input-file --jx-expand-composites | FileCheck %s
// RUN: cotangent-opt %s --split-input-file --jx-expand-composites=keep-kernels=true | FileCheck %s --check-prefix=KEEP
// Composites written as jx ops. Fused attention: the scaled scores [B, N, T, S] from a
// dot_general over the head size, masked with -inf where the key follows
// the query, a softmax over the keys, the product with the values back in
// [B, T, N, H]; the logsumexp max + log(sum). keep-kernels keeps the f32
// ops (the CPU's kernels run them) and expands the others, computing bf16
// in f32.

// CHECK-LABEL: func.func @forward
// CHECK: %[[S:.*]] = jx.dot_general %arg0, %arg1, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] : tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32> -> tensor<2x4x8x6xf32>
// CHECK: %[[SCALED:.*]] = jx.mul %[[S]], %{{.*}} : tensor<2x4x8x6xf32>
// CHECK: %[[I:.*]] = jx.iota dim = 2 : tensor<2x4x8x6xi32>
// CHECK: %[[J:.*]] = jx.iota dim = 3 : tensor<2x4x8x6xi32>
// CHECK: %[[HIDDEN:.*]] = jx.gt %[[J]], %[[I]]
// CHECK: %[[MASKED:.*]] = jx.select_n %[[HIDDEN]], %[[SCALED]], %{{.*}}
// CHECK: %[[MAX:.*]] = jx.reduce_max %[[MASKED]], axes = [3]
// CHECK: jx.exp
// CHECK: %[[SUM:.*]] = jx.reduce_sum %{{.*}}, axes = [3]
// CHECK: %[[P:.*]] = jx.div
// CHECK: %[[PV:.*]] = jx.dot_general %[[P]], %arg2, contracting_dims = [3] x [1], batch_dims = [0, 1] x [0, 2] : tensor<2x4x8x6xf32>, tensor<2x6x4x16xf32> -> tensor<2x4x8x16xf32>
// CHECK: %[[O:.*]] = jx.transpose %[[PV]], perm = [0, 2, 1, 3]
// CHECK: %[[LOG:.*]] = jx.log %[[SUM]]
// CHECK: %[[LSE:.*]] = jx.add %[[MAX]], %[[LOG]]
// CHECK: return %[[O]], %[[LSE]]
// KEEP-LABEL: func.func @forward
// KEEP: jx.dot_product_attention
func.func @forward(%q: tensor<2x8x4x16xf32>, %k: tensor<2x6x4x16xf32>, %v: tensor<2x6x4x16xf32>)
    -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>) {
  %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 0.25 causal
      : tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x6x4x16xf32>
  return %o, %lse : tensor<2x8x4x16xf32>, tensor<2x4x8xf32>
}

// -----

// The backward: P recomputed from the logsumexp, dV = P^T dO, dP = dO V^T,
// D = rowsum(dO * O), dS = scale P (dP - D), dQ = dS K, dK = dS^T Q. bf16
// operands are widened to f32 and the cotangents rounded back.
// CHECK-LABEL: func.func @backward
// CHECK-COUNT-5: jx.convert_element_type {{.*}} -> tensor<1x3x2x4xf32>
// CHECK-NOT: jx.iota
// CHECK: jx.exp
// CHECK: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [2] x [1], batch_dims = [0, 1] x [0, 2]
// CHECK: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2]
// CHECK: jx.reduce_sum %{{.*}}, axes = [3] : tensor<1x3x2x4xf32> -> tensor<1x3x2xf32>
// CHECK: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [3] x [1], batch_dims = [0, 1] x [0, 2]
// CHECK: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [2] x [1], batch_dims = [0, 1] x [0, 2]
// CHECK-COUNT-3: jx.convert_element_type {{.*}} -> tensor<1x3x2x4xbf16>
// CHECK-NOT: jx.dot_product_attention
// KEEP-LABEL: func.func @backward
// KEEP-NOT: jx.dot_product_attention_grad
func.func @backward(%q: tensor<1x3x2x4xbf16>, %lse: tensor<1x2x3xf32>)
    -> (tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>) {
  %dq, %dk, %dv = jx.dot_product_attention_grad %q, %q, %q, %q, %lse, %q, scale = 0.5
      : tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>,
        tensor<1x2x3xf32>, tensor<1x3x2x4xbf16>
  return %dq, %dk, %dv : tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>
}

// -----

// The fused cross-entropy: a max and a sum of exponentials over the classes,
// the label's logit picked by comparing an iota with the label (counted from
// the end when negative, then clamped), no gather; kept kernels or not.
// CHECK-LABEL: func.func @cross_entropy
// CHECK: %[[MAX:.*]] = jx.reduce_max %arg0, axes = [1] : tensor<4x10xf32> -> tensor<4xf32>
// CHECK: jx.exp
// CHECK: %[[SUM:.*]] = jx.reduce_sum %{{.*}}, axes = [1]
// CHECK: %[[LOG:.*]] = jx.log %[[SUM]]
// CHECK: %[[LSE:.*]] = jx.add %[[MAX]], %[[LOG]]
// CHECK: jx.lt %arg1
// CHECK: %[[IOTA:.*]] = jx.iota dim = 1 : tensor<4x10xi32>
// CHECK: %[[HIT:.*]] = jx.eq %[[IOTA]]
// CHECK: %[[PICK:.*]] = jx.select_n %[[HIT]], %{{.*}}, %arg0
// CHECK: %[[PICKED:.*]] = jx.reduce_sum %[[PICK]], axes = [1]
// CHECK: %[[LOSS:.*]] = jx.sub %[[LSE]], %[[PICKED]]
// The backward: (exp(x - lse) - [class == label]) * dloss, elementwise.
// CHECK: jx.exp
// CHECK: jx.select_n
// CHECK: jx.sub
// CHECK: %[[D:.*]] = jx.mul
// CHECK: return %[[LOSS]], %[[D]]
// KEEP-LABEL: func.func @cross_entropy
// KEEP-NOT: jx.softmax_cross_entropy
func.func @cross_entropy(%x: tensor<4x10xf32>, %y: tensor<4xi32>, %g: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4x10xf32>) {
  %loss, %lse = jx.softmax_cross_entropy %x, %y : tensor<4x10xf32>, tensor<4xi32>
  %d = jx.softmax_cross_entropy_grad %x, %lse, %y, %g
      : tensor<4x10xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
  return %loss, %d : tensor<4xf32>, tensor<4x10xf32>
}
