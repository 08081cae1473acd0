// RUN: not cotangent-opt %s --jx-to-linalg 2>&1 | FileCheck %s
// Collectives are not lowered yet (MPI and NCCL are to come): a located
// error that says where they do run, not a failed legalization.

// CHECK: error: jx.psum is not compiled yet: collectives run on the reference interpreter's simulated ranks (interp::runSpmd), not on the CPU or GPU
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.psum %x, axis = "data" : tensor<4xf32>
  return %0 : tensor<4xf32>
}
