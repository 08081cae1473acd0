// jx.dot_general: contracting and batch dimensions in every position, the
// result's dimension order (batch, lhs free, rhs free) and
// preferred_element_type.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @matvec
// CHECK-SAME: (%[[W:[a-z0-9]+]]: tensor<5x4xf32>, %[[X:[a-z0-9]+]]: tensor<4xf32>)
func.func @matvec(%W: tensor<5x4xf32>, %x: tensor<4xf32>) -> tensor<5xf32> {
  // CHECK-NEXT: %[[R:.+]] = jx.dot_general %[[W]], %[[X]], contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  // CHECK-NEXT: return %[[R]]
  %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// Batch dims lead, then the lhs's free dims, then the rhs's.
// CHECK-LABEL: func.func @batched
func.func @batched(%a: tensor<8x5x4xf64>, %b: tensor<4x8x3xf64>) -> tensor<8x5x3xf64> {
  // CHECK-NEXT: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [2] x [0], batch_dims = [0] x [1] : tensor<8x5x4xf64>, tensor<4x8x3xf64> -> tensor<8x5x3xf64>
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [0], batch_dims = [0] x [1]
         : tensor<8x5x4xf64>, tensor<4x8x3xf64> -> tensor<8x5x3xf64>
  return %0 : tensor<8x5x3xf64>
}

// Two contracting dims, two batch dims, contracting dims listed out of order.
// CHECK-LABEL: func.func @multi_dims
func.func @multi_dims(%a: tensor<2x3x4x5x6xf16>, %b: tensor<3x2x5x4x7xf16>) -> tensor<2x3x6x7xf16> {
  // CHECK-NEXT: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [3, 2] x [2, 3], batch_dims = [0, 1] x [1, 0] : tensor<2x3x4x5x6xf16>, tensor<3x2x5x4x7xf16> -> tensor<2x3x6x7xf16>
  %0 = jx.dot_general %a, %b, contracting_dims = [3, 2] x [2, 3], batch_dims = [0, 1] x [1, 0]
         : tensor<2x3x4x5x6xf16>, tensor<3x2x5x4x7xf16> -> tensor<2x3x6x7xf16>
  return %0 : tensor<2x3x6x7xf16>
}

// No contraction at all is an outer product; two vectors contract to a scalar.
// CHECK-LABEL: func.func @outer_and_inner
func.func @outer_and_inner(%x: tensor<3xbf16>, %y: tensor<4xbf16>) -> (tensor<3x4xbf16>, tensor<bf16>) {
  // CHECK-NEXT: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [] x [], batch_dims = [] x [] : tensor<3xbf16>, tensor<4xbf16> -> tensor<3x4xbf16>
  // CHECK-NEXT: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [0] x [0], batch_dims = [] x [] : tensor<4xbf16>, tensor<4xbf16> -> tensor<bf16>
  %0 = jx.dot_general %x, %y, contracting_dims = [] x [], batch_dims = [] x []
         : tensor<3xbf16>, tensor<4xbf16> -> tensor<3x4xbf16>
  %1 = jx.dot_general %y, %y, contracting_dims = [0] x [0], batch_dims = [] x []
         : tensor<4xbf16>, tensor<4xbf16> -> tensor<bf16>
  return %0, %1 : tensor<3x4xbf16>, tensor<bf16>
}

// preferred_element_type sets the result's element type and is kept.
// CHECK-LABEL: func.func @preferred
func.func @preferred(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %i: tensor<3xi32>)
    -> (tensor<2x4xf32>, tensor<i64>, tensor<2x4xbf16>) {
  // CHECK-NEXT: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = f32} : tensor<2x3xbf16>, tensor<3x4xbf16> -> tensor<2x4xf32>
  // CHECK-NEXT: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [0] x [0], batch_dims = [] x [] {preferred_element_type = i64} : tensor<3xi32>, tensor<3xi32> -> tensor<i64>
  // CHECK-NEXT: jx.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = bf16} : tensor<2x3xbf16>, tensor<3x4xbf16> -> tensor<2x4xbf16>
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = f32}
         : tensor<2x3xbf16>, tensor<3x4xbf16> -> tensor<2x4xf32>
  %1 = jx.dot_general %i, %i, contracting_dims = [0] x [0], batch_dims = [] x [] {preferred_element_type = i64}
         : tensor<3xi32>, tensor<3xi32> -> tensor<i64>
  %2 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = bf16}
         : tensor<2x3xbf16>, tensor<3x4xbf16> -> tensor<2x4xbf16>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<i64>, tensor<2x4xbf16>
}
