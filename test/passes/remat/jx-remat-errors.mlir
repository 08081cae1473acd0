// RUN: not cotangent-opt %s --jx-remat 2>&1 | FileCheck %s
// CHECK: error: --jx-remat: no forward/backward pair in the module; run --jx-vjp first
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
