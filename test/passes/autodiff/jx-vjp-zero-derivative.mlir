// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-print-saved-residuals -o /dev/null | FileCheck %s

// sign, floor and ceil vary with x but have no tangent (JAX's symbolic
// zeros): a product with them saves only them, never x for a cotangent that
// would be zero.
func.func @sign_times_x(%x: tensor<3x4xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %0 = jx.sign %x : tensor<3x4xf32>
  %1 = jx.mul %0, %x : tensor<3x4xf32>
  %2 = jx.reduce_sum %1, axes = [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
// CHECK-LABEL: saved residuals of @sign_times_x:
// CHECK-NEXT:  f32[3,4] output of sign
// CHECK-NEXT:  total: 1 residuals, 48 bytes

// -----

func.func @floor_times_sin(%x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %0 = jx.floor %x : tensor<4xf32>
  %1 = jx.ceil %x : tensor<4xf32>
  %2 = jx.add %0, %1 : tensor<4xf32>
  %3 = jx.sin %x : tensor<4xf32>
  %4 = jx.mul %2, %3 : tensor<4xf32>
  %5 = jx.reduce_sum %4, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %5 : tensor<f32>
}
// The product keeps floor + ceil for sin's cotangent, sin keeps cos x; sin x
// itself (which only the zero cotangent of floor + ceil would need) is not kept.
// CHECK-LABEL: saved residuals of @floor_times_sin:
// CHECK-NEXT:  f32[4] output of add
// CHECK-NEXT:  f32[4] output of cos
// CHECK-NEXT:  total: 2 residuals, 32 bytes
