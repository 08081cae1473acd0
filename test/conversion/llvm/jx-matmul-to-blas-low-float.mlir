// RUN: cotangent-opt %s --jx-matmul-to-blas=low-float=true | FileCheck %s
// RUN: cotangent-opt %s --jx-matmul-to-blas | FileCheck %s --check-prefix=DEFAULT

// With low-float (the GPU's), bf16 or f16 operands into an f32 product call
// the runtime's entry of their type: bf16/f16 operand descriptors, an f32
// product's (cuBLAS's GemmEx reads them and accumulates in f32).
// CHECK-DAG: func.func private @cotangent_batch_matmul_bf16(memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @cotangent_batch_matmul_f16(memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @bf16_into_f32
// CHECK:         call @cotangent_batch_matmul_bf16
// CHECK-NOT:     linalg.batch_matmul
// CHECK-LABEL: func.func @f16_transposed
// CHECK:         memref.transpose
// CHECK:         call @cotangent_batch_matmul_f16
// Without it (the CPU: its BLAS reads no low floats) they stay loops.
// DEFAULT-NOT: call @cotangent_batch_matmul
func.func @bf16_into_f32(%a: memref<2x4x8xbf16>, %b: memref<2x8x3xbf16>, %c: memref<2x4x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4x3xf32>)
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xbf16>, memref<2x8x3xbf16>) outs(%c : memref<2x4x3xf32>)
  return
}

func.func @f16_transposed(%a: memref<1x8x4xf16>, %b: memref<1x8x3xf16>, %c: memref<1x4x3xf32>) {
  linalg.batch_matmul
    indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, k, n)>,
                     affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : memref<1x8x4xf16>, memref<1x8x3xf16>) outs(%c : memref<1x4x3xf32>)
  return
}

// Mixed operands, or a low-float product, stay loops.
// CHECK-LABEL: func.func @mixed
// CHECK:         linalg.batch_matmul
// CHECK:         linalg.batch_matmul
func.func @mixed(%a: memref<1x4x8xbf16>, %b: memref<1x8x3xf16>, %c: memref<1x4x3xf32>,
                 %d: memref<1x4x8xbf16>, %e: memref<1x8x3xbf16>, %f: memref<1x4x3xbf16>) {
  linalg.batch_matmul ins(%a, %b : memref<1x4x8xbf16>, memref<1x8x3xf16>) outs(%c : memref<1x4x3xf32>)
  linalg.batch_matmul ins(%d, %e : memref<1x4x8xbf16>, memref<1x8x3xbf16>) outs(%f : memref<1x4x3xbf16>)
  return
}
