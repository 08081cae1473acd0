// RUN: cotangent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(jx-schedule-collectives))" | FileCheck %s
// Each psum, pmean and psum_scatter moves up to just after the op computing
// its operand, or to its block's start (in order) for a block argument;
// gathers stay where they are.

// CHECK-LABEL: func.func @backward
// CHECK: %[[G1:.*]] = jx.sin
// CHECK-NEXT: %[[R1:.*]] = jx.pmean %[[G1]]
// CHECK-NEXT: %[[G0:.*]] = jx.cos
// CHECK-NEXT: %[[R0:.*]] = jx.psum_scatter %[[G0]]
// CHECK-NEXT: %[[A:.*]] = jx.all_gather %[[G1]]
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[A]]
func.func @backward(%x: tensor<4xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<8xf32>) {
  %g1 = jx.sin %x : tensor<4xf32>
  %g0 = jx.cos %x : tensor<4xf32>
  %a = jx.all_gather %g1, axis = "data"(2), dimension = 0 tiled : tensor<4xf32> -> tensor<8xf32>
  %r0 = jx.psum_scatter %g0, axis = "data"(2), dimension = 0 tiled : tensor<4xf32> -> tensor<2xf32>
  %r1 = jx.pmean %g1, axis = "data" : tensor<4xf32>
  return %r0, %r1, %a : tensor<2xf32>, tensor<4xf32>, tensor<8xf32>
}

// -----

// Reductions of arguments go to the block's start, in their order.
// CHECK-LABEL: func.func @arguments
// CHECK-NEXT: %[[P:.*]] = jx.psum %arg1
// CHECK-NEXT: %[[M:.*]] = jx.pmean %arg0
// CHECK-NEXT: jx.exp %arg0
func.func @arguments(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = jx.exp %x : tensor<4xf32>
  %p = jx.psum %y, axis = "data" : tensor<4xf32>
  %m = jx.pmean %x, axis = "data" : tensor<4xf32>
  return %e, %p, %m : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
