// A forward/backward pair edited after --jx-vjp so that their residual
// lists disagree is an error located at the forward, not a crash: the
// dialect verifies the pair before --jx-remat reads it.
// RUN: not cotangent-opt %s --jx-remat 2>&1 | FileCheck %s
// CHECK: jx-remat-mismatch.mlir:[[@LINE+2]]:1: error: 'func.func' op attribute 'jx.forward' does not match the backward: the forward returns 3 results, but the split has 1 primal results and 3 residuals
// CHECK: jx-remat-mismatch.mlir:[[@LINE+6]]:1: note: the backward is here
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1, %1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func @f_bwd(%c: tensor<4xf32>, %d: tensor<4xf32>, %e: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 3>} {
  return %c : tensor<4xf32>
}
