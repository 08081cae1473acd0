// RUN: cotangent-opt %s --jx-vjp=function=b | FileCheck %s
// RUN: not cotangent-opt %s --jx-vjp=function=nope 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK-NOT: func.func @a_fwd
// CHECK: func.func @b_fwd
// CHECK-NOT: func.func @a_fwd
// MISSING: error: --jx-vjp: no function named 'nope'
func.func @a(%x: tensor<f32>) -> tensor<f32> {
  %0 = jx.sin %x : tensor<f32>
  return %0 : tensor<f32>
}
func.func @b(%x: tensor<f32>) -> tensor<f32> {
  %0 = jx.exp %x : tensor<f32>
  return %0 : tensor<f32>
}
