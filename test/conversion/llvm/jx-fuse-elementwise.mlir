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

// A value the function also returns (a residual) still fuses into its
// elementwise consumer: the one generic also writes it, so the chain is one
// loop nest and nothing is computed twice.
func.func @kept_value(%x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %a = jx.tanh %x : tensor<64x32xf32>
  %b = jx.mul %a, %a : tensor<64x32xf32>
  %c = jx.exp %b : tensor<64x32xf32>
  return %a, %c : tensor<64x32xf32>, tensor<64x32xf32>
}
// CHECK-LABEL: func.func @kept_value
// CHECK:         %[[F:.*]]:2 = linalg.generic
// CHECK:           math.tanh
// CHECK:           arith.mulf
// CHECK:           math.exp
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[F]]#0, %[[F]]#1

// Not fused when the value is used again inside the function (here by a
// reduction and by the consumer), or read through a broadcast (the fused op
// would write each element many times): upstream's single-use rule applies.
func.func @kept_not_fused(%x: tensor<64x32xf32>, %v: tensor<32xf32>)
    -> (tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<64x32xf32>) {
  %a = jx.exp %x : tensor<64x32xf32>
  %s = jx.reduce_sum %a, axes = [1] : tensor<64x32xf32> -> tensor<64xf32>
  %b = jx.mul %a, %a : tensor<64x32xf32>
  %e = jx.exp %v : tensor<32xf32>
  %eb = jx.broadcast_in_dim %e, dims = [1] : tensor<32xf32> -> tensor<64x32xf32>
  %c = jx.add %b, %eb : tensor<64x32xf32>
  return %s, %c, %e, %a : tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<64x32xf32>
}
// CHECK-LABEL: func.func @kept_not_fused
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<64x32xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      math.exp
// CHECK:         linalg.reduce {{.*}} ins(%[[A]] : tensor<64x32xf32>)
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<32xf32>)
// CHECK:         %[[C:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[E]] : tensor<64x32xf32>, tensor<32xf32>)
// CHECK:         return %{{.*}}, %[[C]], %[[E]], %[[A]]

// A cheap producer used by several elementwise consumers (GELU's tanh in
// its backward, read by 1 + t and by 1 - t * t) is computed again in each
// of them, so the shared value never takes a buffer: the whole expression
// is one loop nest over the inputs.
func.func @shared_cheap(%x: tensor<64x32xf32>, %g: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %t = jx.tanh %x : tensor<64x32xf32>
  %a = jx.mul %g, %t : tensor<64x32xf32>
  %b = jx.mul %t, %t : tensor<64x32xf32>
  %c = jx.add %a, %b : tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}
// CHECK-LABEL: func.func @shared_cheap
// CHECK:         %[[C:.*]] = linalg.generic
// CHECK:           math.tanh
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[C]]
// UPSTREAM-LABEL: func.func @shared_cheap

// Not computed again when its inputs would stay live in its place (two
// read in full: each consumer would keep both), nor when a use is not an
// elementwise consumer (a reduction).
func.func @shared_not_duplicated(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>) {
  %t = jx.mul %x, %y : tensor<64x32xf32>
  %a = jx.exp %t : tensor<64x32xf32>
  %b = jx.tanh %t : tensor<64x32xf32>
  %u = jx.tanh %x : tensor<64x32xf32>
  %v = jx.exp %u : tensor<64x32xf32>
  %s = jx.reduce_sum %u, axes = [1] : tensor<64x32xf32> -> tensor<64xf32>
  return %a, %b, %v, %s : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>
}
// CHECK-LABEL: func.func @shared_not_duplicated
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<64x32xf32>, tensor<64x32xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      linalg.yield
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : tensor<64x32xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : tensor<64x32xf32>)
// CHECK:         %[[U:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<64x32xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      math.tanh
// CHECK-NEXT:      linalg.yield
// CHECK:         linalg.reduce {{.*}} ins(%[[U]] : tensor<64x32xf32>)
