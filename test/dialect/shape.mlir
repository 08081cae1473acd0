// The shape ops, iota, convert_element_type and constant round-trip.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @broadcast_in_dim
func.func @broadcast_in_dim(%b: tensor<4xf32>, %s: tensor<i64>, %o: tensor<1x3xi1>)
    -> (tensor<5x4xf32>, tensor<2x3xi64>, tensor<2x3x7xi1>) {
  // CHECK-NEXT: jx.broadcast_in_dim %{{.*}}, dims = [1] : tensor<4xf32> -> tensor<5x4xf32>
  // CHECK-NEXT: jx.broadcast_in_dim %{{.*}}, dims = [] : tensor<i64> -> tensor<2x3xi64>
  // CHECK-NEXT: jx.broadcast_in_dim %{{.*}}, dims = [0, 1] : tensor<1x3xi1> -> tensor<2x3x7xi1>
  %0 = jx.broadcast_in_dim %b, dims = [1] : tensor<4xf32> -> tensor<5x4xf32>
  %1 = jx.broadcast_in_dim %s, dims = [] : tensor<i64> -> tensor<2x3xi64>
  %2 = jx.broadcast_in_dim %o, dims = [0, 1] : tensor<1x3xi1> -> tensor<2x3x7xi1>
  return %0, %1, %2 : tensor<5x4xf32>, tensor<2x3xi64>, tensor<2x3x7xi1>
}

// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<20xf16>, %s: tensor<1x1xi32>) -> (tensor<4x5xf16>, tensor<i32>) {
  // CHECK-NEXT: jx.reshape %{{.*}} : tensor<20xf16> -> tensor<4x5xf16>
  // CHECK-NEXT: jx.reshape %{{.*}} : tensor<1x1xi32> -> tensor<i32>
  %0 = jx.reshape %x : tensor<20xf16> -> tensor<4x5xf16>
  %1 = jx.reshape %s : tensor<1x1xi32> -> tensor<i32>
  return %0, %1 : tensor<4x5xf16>, tensor<i32>
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%x: tensor<2x3x4xbf16>) -> tensor<4x2x3xbf16> {
  // CHECK-NEXT: jx.transpose %{{.*}}, perm = [2, 0, 1] : tensor<2x3x4xbf16> -> tensor<4x2x3xbf16>
  %0 = jx.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xbf16> -> tensor<4x2x3xbf16>
  return %0 : tensor<4x2x3xbf16>
}

// CHECK-LABEL: func.func @squeeze_expand
func.func @squeeze_expand(%x: tensor<1x5x1xf64>) -> (tensor<5xf64>, tensor<1x1x5x1x1xf64>) {
  // CHECK-NEXT: %[[S:.+]] = jx.squeeze %{{.*}}, dims = [0, 2] : tensor<1x5x1xf64> -> tensor<5xf64>
  // CHECK-NEXT: %[[E:.+]] = jx.expand_dims %[[S]], dims = [0, 1, 3, 4] : tensor<5xf64> -> tensor<1x1x5x1x1xf64>
  %0 = jx.squeeze %x, dims = [0, 2] : tensor<1x5x1xf64> -> tensor<5xf64>
  %1 = jx.expand_dims %0, dims = [0, 1, 3, 4] : tensor<5xf64> -> tensor<1x1x5x1x1xf64>
  return %0, %1 : tensor<5xf64>, tensor<1x1x5x1x1xf64>
}

// CHECK-LABEL: func.func @concatenate
func.func @concatenate(%a: tensor<2x3xi64>, %b: tensor<2x1xi64>, %c: tensor<2x4xi64>) -> tensor<2x8xi64> {
  // CHECK-NEXT: jx.concatenate(%{{.*}}, %{{.*}}, %{{.*}}) dim = 1 : tensor<2x3xi64>, tensor<2x1xi64>, tensor<2x4xi64> -> tensor<2x8xi64>
  %0 = jx.concatenate(%a, %b, %c) dim = 1 : tensor<2x3xi64>, tensor<2x1xi64>, tensor<2x4xi64> -> tensor<2x8xi64>
  return %0 : tensor<2x8xi64>
}

// The result size is ceil((limit - start) / stride).
// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<6x7xf32>) -> tensor<2x3xf32> {
  // CHECK-NEXT: jx.slice %{{.*}}, start = [1, 0], limit = [5, 7], strides = [2, 3] : tensor<6x7xf32> -> tensor<2x3xf32>
  %0 = jx.slice %x, start = [1, 0], limit = [5, 7], strides = [2, 3] : tensor<6x7xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dynamic_slices
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<6x4xf32>, %[[U:[a-z0-9]+]]: tensor<2x4xf32>, %[[I:[a-z0-9]+]]: tensor<i32>, %[[J:[a-z0-9]+]]: tensor<i64>)
func.func @dynamic_slices(%x: tensor<6x4xf32>, %u: tensor<2x4xf32>, %i: tensor<i32>, %j: tensor<i64>)
    -> (tensor<2x3xf32>, tensor<6x4xf32>, tensor<f32>, tensor<f32>) {
  // CHECK-NEXT: jx.dynamic_slice %[[X]][%[[I]], %[[J]]], sizes = [2, 3] : tensor<6x4xf32>, tensor<i32>, tensor<i64> -> tensor<2x3xf32>
  // CHECK-NEXT: jx.dynamic_update_slice %[[X]], %[[U]][%[[J]], %[[I]]] : tensor<6x4xf32>, tensor<2x4xf32>, tensor<i64>, tensor<i32>
  // A 0-d operand takes no start indices.
  // CHECK-NEXT: %[[Z:.+]] = jx.reduce_sum
  // CHECK-NEXT: %[[S:.+]] = jx.dynamic_slice %[[Z]][], sizes = [] : tensor<f32> -> tensor<f32>
  // CHECK-NEXT: jx.dynamic_update_slice %[[S]], %[[S]][] : tensor<f32>, tensor<f32>
  %0 = jx.dynamic_slice %x[%i, %j], sizes = [2, 3] : tensor<6x4xf32>, tensor<i32>, tensor<i64> -> tensor<2x3xf32>
  %1 = jx.dynamic_update_slice %x, %u[%j, %i] : tensor<6x4xf32>, tensor<2x4xf32>, tensor<i64>, tensor<i32>
  %z = jx.reduce_sum %x, axes = [0, 1] : tensor<6x4xf32> -> tensor<f32>
  %2 = jx.dynamic_slice %z[], sizes = [] : tensor<f32> -> tensor<f32>
  %3 = jx.dynamic_update_slice %2, %2[] : tensor<f32>, tensor<f32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<6x4xf32>, tensor<f32>, tensor<f32>
}

// Low and high padding may be negative; interior padding goes between elements.
// CHECK-LABEL: func.func @pad
func.func @pad(%x: tensor<3x4xi32>, %v: tensor<i32>) -> tensor<8x2xi32> {
  // CHECK-NEXT: jx.pad %{{.*}}, %{{.*}}, low = [1, -1], high = [2, -1], interior = [1, 0] : tensor<3x4xi32>, tensor<i32> -> tensor<8x2xi32>
  %0 = jx.pad %x, %v, low = [1, -1], high = [2, -1], interior = [1, 0] : tensor<3x4xi32>, tensor<i32> -> tensor<8x2xi32>
  return %0 : tensor<8x2xi32>
}

// CHECK-LABEL: func.func @iota
func.func @iota() -> (tensor<5xi32>, tensor<2x3xf32>, tensor<4xi64>) {
  // CHECK-NEXT: jx.iota dim = 0 : tensor<5xi32>
  // CHECK-NEXT: jx.iota dim = 1 : tensor<2x3xf32>
  // CHECK-NEXT: jx.iota dim = 0 : tensor<4xi64>
  %0 = jx.iota dim = 0 : tensor<5xi32>
  %1 = jx.iota dim = 1 : tensor<2x3xf32>
  %2 = jx.iota dim = 0 : tensor<4xi64>
  return %0, %1, %2 : tensor<5xi32>, tensor<2x3xf32>, tensor<4xi64>
}

// CHECK-LABEL: func.func @convert_element_type
func.func @convert_element_type(%x: tensor<5xf32>, %p: tensor<2xi1>) -> (tensor<5xf64>, tensor<5xbf16>, tensor<2xi32>) {
  // CHECK-NEXT: jx.convert_element_type %{{.*}} : tensor<5xf32> -> tensor<5xf64>
  // CHECK-NEXT: jx.convert_element_type %{{.*}} : tensor<5xf32> -> tensor<5xbf16>
  // CHECK-NEXT: jx.convert_element_type %{{.*}} : tensor<2xi1> -> tensor<2xi32>
  %0 = jx.convert_element_type %x : tensor<5xf32> -> tensor<5xf64>
  %1 = jx.convert_element_type %x : tensor<5xf32> -> tensor<5xbf16>
  %2 = jx.convert_element_type %p : tensor<2xi1> -> tensor<2xi32>
  return %0, %1, %2 : tensor<5xf64>, tensor<5xbf16>, tensor<2xi32>
}

// Splat and non-splat constants of every element type.
// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<5xf32>, tensor<2xf64>, tensor<f16>, tensor<bf16>, tensor<2x2xi32>, tensor<i64>, tensor<3xi1>) {
  // CHECK-NEXT: jx.constant dense<1.000000e+00> : tensor<5xf32>
  // CHECK-NEXT: jx.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf64>
  // CHECK-NEXT: jx.constant dense<5.000000e-01> : tensor<f16>
  // CHECK-NEXT: jx.constant dense<2.500000e-01> : tensor<bf16>
  // CHECK-NEXT: jx.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK-NEXT: jx.constant dense<-7> : tensor<i64>
  // CHECK-NEXT: jx.constant dense<[true, false, true]> : tensor<3xi1>
  %0 = jx.constant dense<1.0> : tensor<5xf32>
  %1 = jx.constant dense<[1.5, -2.0]> : tensor<2xf64>
  %2 = jx.constant dense<0.5> : tensor<f16>
  %3 = jx.constant dense<0.25> : tensor<bf16>
  %4 = jx.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %5 = jx.constant dense<-7> : tensor<i64>
  %6 = jx.constant dense<[true, false, true]> : tensor<3xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<5xf32>, tensor<2xf64>, tensor<f16>, tensor<bf16>, tensor<2x2xi32>, tensor<i64>, tensor<3xi1>
}
