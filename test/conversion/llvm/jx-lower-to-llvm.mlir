// RUN: cotangent-opt %s --jx-lower-to-llvm | FileCheck %s \
// RUN:   --implicit-check-not="func.func" --implicit-check-not="linalg." \
// RUN:   --implicit-check-not="memref." --implicit-check-not="tensor<" \
// RUN:   --implicit-check-not="arith." --implicit-check-not="math." \
// RUN:   --implicit-check-not="scf." --implicit-check-not="unrealized_conversion_cast"

// The CPU pipeline end to end, on a layer whose activation is recomputed
// behind a barrier (as --jx-remat leaves it): nothing but the LLVM dialect
// remains. Every buffer comes from and goes back to the runtime's counting
// hooks; the dot_general is a BLAS call; f32 tanh is a polynomial (fused
// multiply-adds, jx-approximate-math) and sin a libm call; the barrier
// is inline asm; and tanh writes over the dot's output, which dies with it
// (jx-elementwise-in-place): one allocation fewer.
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = jx.dot_general %x, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %1 = jx.tanh %0 : tensor<4x3xf32>
  %2 = jx.optimization_barrier %1 : tensor<4x3xf32>
  %3 = jx.sin %2 : tensor<4x3xf32>
  %4 = jx.mul %3, %1 : tensor<4x3xf32>
  return %4 : tensor<4x3xf32>
}

// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK-DAG: llvm.func @sinf(f32) -> f32
// CHECK-DAG: llvm.func @_mlir_ciface_cotangent_batch_matmul_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr)

// The function is compiled inside its C interface wrapper
// (jx-inline-into-c-interface); its loops are kernels of their own
// (jx-outline-kernels).
// CHECK-LABEL: llvm.func internal @layer(
// CHECK-SAME:    attributes {always_inline, llvm.emit_c_interface}
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.call @[[GEMM:jx_kernel[_0-9]*]](
// CHECK-NOT:     llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.call @[[TANH:jx_kernel[_0-9]*]](
// CHECK-NOT:     llvm.call @_mlir_memref_to_llvm_free
// CHECK:         llvm.inline_asm has_side_effects "", "r,~{memory}"
// CHECK:         llvm.call @_mlir_memref_to_llvm_alloc
// CHECK:         llvm.call @[[SIN:jx_kernel[_0-9]*]](
// CHECK:         llvm.call @_mlir_memref_to_llvm_free
// CHECK:         llvm.return

// The C interface the runtime calls.
// CHECK-LABEL: llvm.func @_mlir_ciface_layer
// CHECK:         llvm.call @layer(

// CHECK:       llvm.func internal @[[GEMM]](
// CHECK:         llvm.call @cotangent_batch_matmul_f32(
// CHECK:         llvm.return
// CHECK:       llvm.func internal @[[TANH]](
// CHECK-NOT:     llvm.call @tanhf
// CHECK:         llvm.intr.fma
// CHECK:         llvm.return
// CHECK:       llvm.func internal @[[SIN]](
// CHECK:         llvm.call @sinf
// CHECK:         llvm.return
