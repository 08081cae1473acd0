// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// The fused cross-entropy round-trips: loss and logsumexp inferred as the
// logits' rows in their type, the backward's d(logits) as the logits.

// CHECK-LABEL: func.func @cross_entropy
// CHECK: %[[LOSS:.*]], %[[LSE:.*]] = jx.softmax_cross_entropy %{{.*}}, %{{.*}} : tensor<2x8x16xf32>, tensor<2x8xi32>
// CHECK: jx.softmax_cross_entropy_grad %{{.*}}, %[[LSE]], %{{.*}}, %[[LOSS]] : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xi32>, tensor<2x8xf32>
func.func @cross_entropy(%x: tensor<2x8x16xf32>, %y: tensor<2x8xi32>) -> (tensor<2x8xf32>, tensor<2x8x16xf32>) {
  %loss, %lse = jx.softmax_cross_entropy %x, %y : tensor<2x8x16xf32>, tensor<2x8xi32>
  %d = jx.softmax_cross_entropy_grad %x, %lse, %y, %loss
      : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x8xi32>, tensor<2x8xf32>
  return %loss, %d : tensor<2x8xf32>, tensor<2x8x16xf32>
}
