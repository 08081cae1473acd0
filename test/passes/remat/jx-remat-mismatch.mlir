// A forward/backward pair edited after --jx-vjp so that their residual
// lists disagree is an error, not a crash.
// RUN: not cotangent-opt %s --jx-remat 2>&1 | FileCheck %s
// CHECK: error: 'func.func' op does not match its backward's residuals; was it edited after --jx-vjp?
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {jx.num_primal_results = 1 : i64} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func @f_bwd(%c: tensor<4xf32>) -> tensor<4xf32> attributes {jx.num_residuals = 3 : i64} {
  return %c : tensor<4xf32>
}
