// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// Fused attention round-trips: the scale, causal, the inferred output (the
// query's type) and logsumexp ([B, N, T], f32 for low floats), and the
// backward's three cotangents.

// CHECK-LABEL: func.func @attention
// CHECK: %[[O:.*]], %[[L:.*]] = jx.dot_product_attention %{{.*}}, %{{.*}}, %{{.*}}, scale = 2.500000e-01 causal : tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x6x4x16xf32>
// CHECK: jx.dot_product_attention %{{.*}}, %{{.*}}, %{{.*}}, scale = 1.000000e+00 : tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>
// CHECK: jx.dot_product_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[L]], %{{.*}}, scale = 2.500000e-01 causal : tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x4x8xf32>, tensor<2x8x4x16xf32>
func.func @attention(%q: tensor<2x8x4x16xf32>, %k: tensor<2x6x4x16xf32>, %v: tensor<2x6x4x16xf32>,
                     %qb: tensor<1x3x2x4xbf16>, %do: tensor<2x8x4x16xf32>)
    -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>, tensor<1x3x2x4xbf16>, tensor<1x2x3xf32>,
        tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x6x4x16xf32>) {
  %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 0.25 causal
      : tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x6x4x16xf32>
  %ob, %lseb = jx.dot_product_attention %qb, %qb, %qb, scale = 1.0
      : tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>, tensor<1x3x2x4xbf16>
  %dq, %dk, %dv = jx.dot_product_attention_grad %q, %k, %v, %o, %lse, %do, scale = 0.25 causal
      : tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x8x4x16xf32>,
        tensor<2x4x8xf32>, tensor<2x8x4x16xf32>
  return %o, %lse, %ob, %lseb, %dq, %dk, %dv : tensor<2x8x4x16xf32>, tensor<2x4x8xf32>,
      tensor<1x3x2x4xbf16>, tensor<1x2x3xf32>, tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>,
      tensor<2x6x4x16xf32>
}
