// Reductions, argmax and cumsum round-trip.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @reduce
func.func @reduce(%x: tensor<5x4x3xf32>, %i: tensor<6xi64>, %h: tensor<2x2xf16>)
    -> (tensor<5x3xf32>, tensor<f32>, tensor<i64>, tensor<2xf16>, tensor<2x2xf16>) {
  // CHECK-NEXT: jx.reduce_sum %{{.*}}, axes = [1] : tensor<5x4x3xf32> -> tensor<5x3xf32>
  // CHECK-NEXT: jx.reduce_max %{{.*}}, axes = [2, 0, 1] : tensor<5x4x3xf32> -> tensor<f32>
  // CHECK-NEXT: jx.reduce_min %{{.*}}, axes = [0] : tensor<6xi64> -> tensor<i64>
  // CHECK-NEXT: jx.reduce_prod %{{.*}}, axes = [0] : tensor<2x2xf16> -> tensor<2xf16>
  // CHECK-NEXT: jx.reduce_sum %{{.*}}, axes = [] : tensor<2x2xf16> -> tensor<2x2xf16>
  %0 = jx.reduce_sum %x, axes = [1] : tensor<5x4x3xf32> -> tensor<5x3xf32>
  %1 = jx.reduce_max %x, axes = [2, 0, 1] : tensor<5x4x3xf32> -> tensor<f32>
  %2 = jx.reduce_min %i, axes = [0] : tensor<6xi64> -> tensor<i64>
  %3 = jx.reduce_prod %h, axes = [0] : tensor<2x2xf16> -> tensor<2xf16>
  %4 = jx.reduce_sum %h, axes = [] : tensor<2x2xf16> -> tensor<2x2xf16>
  return %0, %1, %2, %3, %4 : tensor<5x3xf32>, tensor<f32>, tensor<i64>, tensor<2xf16>, tensor<2x2xf16>
}

// CHECK-LABEL: func.func @argmax
func.func @argmax(%x: tensor<5x4xf32>, %y: tensor<7xi32>) -> (tensor<5xi32>, tensor<4xi64>, tensor<i32>) {
  // CHECK-NEXT: jx.argmax %{{.*}}, axis = 1 : tensor<5x4xf32> -> tensor<5xi32>
  // CHECK-NEXT: jx.argmax %{{.*}}, axis = 0 : tensor<5x4xf32> -> tensor<4xi64>
  // CHECK-NEXT: jx.argmax %{{.*}}, axis = 0 : tensor<7xi32> -> tensor<i32>
  %0 = jx.argmax %x, axis = 1 : tensor<5x4xf32> -> tensor<5xi32>
  %1 = jx.argmax %x, axis = 0 : tensor<5x4xf32> -> tensor<4xi64>
  %2 = jx.argmax %y, axis = 0 : tensor<7xi32> -> tensor<i32>
  return %0, %1, %2 : tensor<5xi32>, tensor<4xi64>, tensor<i32>
}

// CHECK-LABEL: func.func @cumsum
func.func @cumsum(%x: tensor<5x4xbf16>, %i: tensor<3xi32>) -> (tensor<5x4xbf16>, tensor<3xi32>) {
  // CHECK-NEXT: %[[F:.+]] = jx.cumsum %{{.*}}, axis = 1 : tensor<5x4xbf16>
  // CHECK-NEXT: %[[R:.+]] = jx.cumsum %[[F]], axis = 0 reverse : tensor<5x4xbf16>
  // CHECK-NEXT: %[[I:.+]] = jx.cumsum %{{.*}}, axis = 0 reverse : tensor<3xi32>
  // CHECK-NEXT: return %[[R]], %[[I]]
  %0 = jx.cumsum %x, axis = 1 : tensor<5x4xbf16>
  %1 = jx.cumsum %0, axis = 0 reverse : tensor<5x4xbf16>
  %2 = jx.cumsum %i, axis = 0 reverse : tensor<3xi32>
  return %1, %2 : tensor<5x4xbf16>, tensor<3xi32>
}
