// .npy round trip, the forward/backward split with residual bytes, AOT output.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cotangent-run %s --fn make --output-dir %t | FileCheck %s --check-prefix=MAKE
// RUN: cotangent-run %s --fn square_sum --input %t/result0.npy | FileCheck %s --check-prefix=DIRECT
// RUN: cotangent-run %s --fn square_sum --vjp --split --input %t/result0.npy --output-dir %t/split | FileCheck %s --check-prefix=SPLIT
// RUN: cotangent-run %s --fn square_sum --input %t/split/gradient0.npy | FileCheck %s --check-prefix=GRAD
// RUN: cotangent-run %s --emit-object %t/m.o --emit-header %t/m.h
// RUN: FileCheck %s --check-prefix=HEADER < %t/m.h
// RUN: %cxx -x c -fsyntax-only %t/m.h
// RUN: od -A n -t x1 -N 4 %t/m.o | FileCheck %s --check-prefix=ELF

// MAKE: result 0: f32[3] [0, 1, 2] sum=3
func.func @make() -> tensor<3xf32> {
  %0 = jx.iota dim = 0 : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// DIRECT: result 0: f32[] [5] sum=5
// SPLIT: @square_sum_fwd / @square_sum_bwd: 1 outputs, 1 residuals, 1 gradients
// SPLIT-NEXT: output 0: f32[] [5] sum=5
// SPLIT-NEXT: gradient 0: f32[3] [0, 2, 4] sum=6
// SPLIT: residual bytes: 12
// SPLIT: peak bytes: {{[1-9][0-9]*}}
// GRAD: result 0: f32[] [20] sum=20
func.func @square_sum(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = jx.mul %x, %x : tensor<3xf32>
  %1 = jx.reduce_sum %0, axes = [0] : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// HEADER: typedef struct {
// HEADER: } cotangent_memref_1;
// HEADER: /* The runtime entry points the object calls (runtime/core/RuntimeAbi.def). */
// HEADER-NEXT: void *_mlir_memref_to_llvm_alloc(uint64_t bytes);
// HEADER-NEXT: void _mlir_memref_to_llvm_free(void *ptr);
// HEADER: void _mlir_ciface_make(cotangent_memref_1 *result);
// HEADER: void _mlir_ciface_square_sum(cotangent_memref_0 *result, cotangent_memref_1 *arg0);
// ELF: 7f 45 4c 46
