// With prevent_cse (the default), the recomputation in the backward starts
// from optimization barriers, so once forward and backward are inlined into
// one function, CSE cannot merge it into the forward's computation.
// RUN: cotangent-opt %s --jx-vjp --jx-remat --inline --cse --canonicalize | FileCheck %s
// RUN: cotangent-opt %s --jx-vjp --jx-remat --inline --cse --canonicalize | FileCheck %s --check-prefix=NOCSE

func.func @guarded(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = jx.remat(%x) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%h: tensor<4xf32>):
    %0 = jx.sin %h : tensor<4xf32>
    %1 = jx.sin %0 : tensor<4xf32>
    jx.yield %1 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// The recomputed sin survives next to the forward's sin.
// CHECK-LABEL: func.func @guarded_vjp
// CHECK-SAME:    (%[[X:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[S0:.*]] = jx.sin %[[X]]
// CHECK:         %[[G:.*]] = jx.optimization_barrier %[[X]]
// CHECK:         %[[R:.*]] = jx.sin %[[G]]
// CHECK:         jx.cos %[[R]]
// CHECK:         return

func.func @unguarded(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = jx.remat(%x) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%h: tensor<4xf32>):
    %0 = jx.sin %h : tensor<4xf32>
    %1 = jx.sin %0 : tensor<4xf32>
    jx.yield %1 : tensor<4xf32>
  } attributes {prevent_cse = false}
  return %r : tensor<4xf32>
}
// Without the barrier, CSE merges the recomputed sin with the forward's: one sin of x is left.
// NOCSE-LABEL: func.func @unguarded_vjp
// NOCSE-SAME:    (%[[X:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<4xf32>)
// NOCSE-NOT:     jx.optimization_barrier
// NOCSE:         %[[S:.*]] = jx.sin %[[X]]
// NOCSE-NOT:     jx.sin %[[X]]
// NOCSE:         jx.cos %[[S]]
// NOCSE:         return
