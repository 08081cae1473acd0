// The jx-to-nvvm pipeline on a data-parallel fragment: the gradient's pmean
// becomes calls of @cotangent_collective_start and _wait in the host code
// (the runtime binds them to NCCL on a communication stream), the start
// right after the kernel computing its operand, the wait just before the
// kernel that reads the mean, with the kernel that does not in between.
// RUN: cotangent-opt %s --jx-to-nvvm="format=isa" -o - | FileCheck %s

// CHECK-LABEL: llvm.func @step
// CHECK: gpu.launch_func
// CHECK: %[[T:.*]] = llvm.call @cotangent_collective_start
// CHECK: gpu.launch_func
// CHECK: llvm.call @cotangent_collective_wait(%[[T]])
// CHECK: gpu.launch_func
func.func @step(%x: tensor<1024xf32>, %w: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %g = jx.sin %x : tensor<1024xf32>
  %other = jx.cos %w : tensor<1024xf32>
  %m = jx.pmean %g, axis = "data" : tensor<1024xf32>
  %u = jx.mul %m, %w : tensor<1024xf32>
  return %u, %other : tensor<1024xf32>, tensor<1024xf32>
}
