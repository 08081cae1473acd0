// cotangent-opt reports errors as file:line:col and the message, without
// MLIR's op dump unless asked for.
// RUN: not cotangent-opt %s --jx-vjp 2>&1 | FileCheck %s
// RUN: not cotangent-opt %s --jx-vjp --mlir-print-op-on-diagnostic=true 2>&1 | FileCheck %s --check-prefix=DUMP
// CHECK: diagnostics-quiet.mlir:[[@LINE+4]]:8: error: 'jx.while' op is not reverse-differentiable
// CHECK-NOT: see current operation
// DUMP: see current operation
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = jx.while (%x) : (tensor<f32>) -> tensor<f32> cond {
  ^bb0(%a: tensor<f32>):
    %t = jx.constant dense<true> : tensor<i1>
    jx.yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return %0 : tensor<f32>
}
