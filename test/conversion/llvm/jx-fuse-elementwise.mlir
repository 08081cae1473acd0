// RUN: cotangent-opt %s --inline --jx-to-linalg --jx-fuse-elementwise | FileCheck %s
// RUN: cotangent-opt %s --inline --jx-to-linalg --linalg-fuse-elementwise-ops | FileCheck %s --check-prefix=UPSTREAM

// A weight gradient (a contraction over the batch, through an explicit
// transpose) next to a bias gradient (a reduction) of the same cotangent:
// the elementwise mul fuses into the reduction, and both contractions stay
// batch_matmuls, which the BLAS pass turns into sgemm calls. Upstream's
// fusion pass pushes the reshapes through the second contraction and leaves
// a 5-d generic instead.
func.func @grads(%g: tensor<512x256xf32>, %w: tensor<256x256xf32>, %m: tensor<512x256xf32>,
                 %h: tensor<512x256xf32>) -> (tensor<256xf32>, tensor<256x256xf32>) {
  %0 = jx.dot_general %g, %w, contracting_dims = [1] x [1], batch_dims = [] x [] : tensor<512x256xf32>, tensor<256x256xf32> -> tensor<512x256xf32>
  %1 = jx.mul %0, %m : tensor<512x256xf32>
  %2 = jx.reduce_sum %1, axes = [0] : tensor<512x256xf32> -> tensor<256xf32>
  %t = jx.transpose %1, perm = [1, 0] : tensor<512x256xf32> -> tensor<256x512xf32>
  %3 = jx.dot_general %t, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<256x512xf32>, tensor<512x256xf32> -> tensor<256x256xf32>
  return %2, %3 : tensor<256xf32>, tensor<256x256xf32>
}
// CHECK-LABEL: func.func @grads
// CHECK-COUNT-2: linalg.batch_matmul
// CHECK-NOT:     "reduction", "reduction"]
// CHECK:         return
// UPSTREAM-LABEL: func.func @grads
// UPSTREAM-COUNT-1: linalg.batch_matmul
// UPSTREAM:       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
