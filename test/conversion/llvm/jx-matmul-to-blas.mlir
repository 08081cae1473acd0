// RUN: cotangent-opt %s --jx-matmul-to-blas | FileCheck %s

// The runtime's BLAS entry points are declared once per element type, with
// the C interface, over fully dynamic strided rank-3 buffers.
// CHECK-DAG: func.func private @cotangent_batch_matmul_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @cotangent_batch_matmul_f64(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}

// What jx-to-linalg and bufferization make of a dot_general: a zero fill of
// the output, then the matmul. The call computes C = A B (BLAS with beta =
// 0), so the fill goes too.
// CHECK-LABEL: func.func @f32_zeroed
// CHECK-SAME:    (%[[A:.*]]: memref<2x4x8xf32>, %[[B:.*]]: memref<2x8x3xf32>, %[[C:.*]]: memref<2x4x3xf32>)
// CHECK-NOT:     linalg.fill
// CHECK:         %[[CA:.*]] = memref.cast %[[A]] : memref<2x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK:         %[[CB:.*]] = memref.cast %[[B]] : memref<2x8x3xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK:         %[[CC:.*]] = memref.cast %[[C]] : memref<2x4x3xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK:         call @cotangent_batch_matmul_f32(%[[CA]], %[[CB]], %[[CC]])
// CHECK-NOT:     linalg.batch_matmul
// CHECK:         return
func.func @f32_zeroed(%a: memref<2x4x8xf32>, %b: memref<2x8x3xf32>, %c: memref<2x4x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4x3xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x3xf32>) outs(%c : memref<2x4x3xf32>)
  return
}

// f64, with an operand stored transposed: the descriptor carries the
// strides, and the runtime passes a transpose flag to cblas_dgemm.
// CHECK-LABEL: func.func @f64_transposed
// CHECK-SAME:    (%[[A:.*]]: memref<1x4x8xf64, strided<[32, 1, 4]>>
// CHECK:         %[[CA:.*]] = memref.cast %[[A]] : memref<1x4x8xf64, strided<[32, 1, 4]>> to memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK:         call @cotangent_batch_matmul_f64(%[[CA]],
// CHECK-NOT:     linalg.batch_matmul
func.func @f64_transposed(%a: memref<1x4x8xf64, strided<[32, 1, 4]>>, %b: memref<1x8x3xf64>, %c: memref<1x4x3xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<1x4x8xf64, strided<[32, 1, 4]>>, memref<1x8x3xf64>) outs(%c : memref<1x4x3xf64>)
  return
}

// Operands read transposed through the indexing maps (jx-to-linalg's
// dot_general for x^T g and g W^T): each becomes a memref.transpose view,
// whose strides make the runtime set the transpose flags.
// CHECK-LABEL: func.func @f32_maps_transposed
// CHECK-SAME:    (%[[A:.*]]: memref<1x8x4xf32>, %[[B:.*]]: memref<1x3x8xf32>, %[[C:.*]]: memref<1x4x3xf32>)
// CHECK:         %[[TA:.*]] = memref.transpose %[[A]] (d0, d1, d2) -> (d0, d2, d1) : memref<1x8x4xf32> to memref<1x4x8xf32, strided<[32, 1, 4]>>
// CHECK:         %[[TB:.*]] = memref.transpose %[[B]] (d0, d1, d2) -> (d0, d2, d1) : memref<1x3x8xf32> to memref<1x8x3xf32, strided<[24, 1, 8]>>
// CHECK:         %[[CA:.*]] = memref.cast %[[TA]]
// CHECK:         %[[CB:.*]] = memref.cast %[[TB]]
// CHECK:         call @cotangent_batch_matmul_f32(%[[CA]], %[[CB]],
// CHECK-NOT:     linalg.batch_matmul
func.func @f32_maps_transposed(%a: memref<1x8x4xf32>, %b: memref<1x3x8xf32>, %c: memref<1x4x3xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                                       affine_map<(b, m, n, k) -> (b, n, k)>,
                                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : memref<1x8x4xf32>, memref<1x3x8xf32>) outs(%c : memref<1x4x3xf32>)
  return
}

// Other maps (a broadcast operand) stay linalg.
// CHECK-LABEL: func.func @f32_broadcast_stays
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     call
func.func @f32_broadcast_stays(%a: memref<4x8xf32>, %b: memref<1x8x3xf32>, %c: memref<1x4x3xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (m, k)>,
                                       affine_map<(b, m, n, k) -> (b, k, n)>,
                                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : memref<4x8xf32>, memref<1x8x3xf32>) outs(%c : memref<1x4x3xf32>)
  return
}

// Integer matmuls have no BLAS routine: they stay linalg (and become loops).
// CHECK-LABEL: func.func @i32_stays
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : memref<1x4x8xi32>, memref<1x8x3xi32>)
// CHECK-NOT:     call
func.func @i32_stays(%a: memref<1x4x8xi32>, %b: memref<1x8x3xi32>, %c: memref<1x4x3xi32>) {
  linalg.batch_matmul ins(%a, %b : memref<1x4x8xi32>, memref<1x8x3xi32>) outs(%c : memref<1x4x3xi32>)
  return
}

// Before bufferization there is no buffer to hand to BLAS.
// CHECK-LABEL: func.func @tensors_stay
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x4x8xf32>, tensor<1x8x3xf32>)
// CHECK-NOT:     call
func.func @tensors_stay(%a: tensor<1x4x8xf32>, %b: tensor<1x8x3xf32>, %c: tensor<1x4x3xf32>) -> tensor<1x4x3xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<1x4x8xf32>, tensor<1x8x3xf32>) outs(%c : tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  return %0 : tensor<1x4x3xf32>
}
