// --jx-remat-frontier on two remat regions of a tanh MLP (16x16 f32): for
// every peak from the one without remat (8192 bytes) down to the smallest,
// the fewest FLOPs the budget recomputes, and JAX's named policies on the
// same axes. At 8192 bytes the budget recomputes nothing where dots_saveable
// recomputes 512 FLOPs (tanh, which keeps its output, needs nothing a dot
// policy would drop); one layer's output rebuilt saves 1 KiB for 8448 FLOPs,
// both for 16896, which is where nothing_saveable is. The frontier of one
// elimination (default) and the sweep of one solve per budget agree.
// RUN: cotangent-opt %s --jx-vjp --jx-remat-frontier -o /dev/null | FileCheck %s --check-prefixes=CHECK,ELIM
// RUN: cotangent-opt %s --jx-vjp --jx-remat-frontier=per-budget=true -o /dev/null | FileCheck %s --check-prefixes=CHECK,SWEEP
// RUN: not cotangent-opt %s --jx-remat-frontier -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOVJP

// ELIM:       "by_elimination": true,
// SWEEP:      "by_elimination": false,
// CHECK:      "frontier": [
// CHECK:        "budget_bytes": 8192,
// CHECK:        "optimality": "proven",
// CHECK-NEXT:   "peak_bytes": 8192,
// CHECK-NEXT:   "recomputed_flops": 0,
// CHECK:        "budget_bytes": 8191,
// CHECK:        "optimality": "tight_bound",
// CHECK-NEXT:   "peak_bytes": 7168,
// CHECK-NEXT:   "recomputed_flops": 8448,
// CHECK:        "budget_bytes": 7167,
// CHECK:        "optimality": "tight_bound",
// CHECK-NEXT:   "peak_bytes": 6144,
// CHECK-NEXT:   "recomputed_flops": 16896,
// CHECK:      ],
// CHECK-NEXT: "no_remat_peak_bytes": 8192,
// CHECK-NEXT: "policies": [
// CHECK:        "peak_bytes": 8192,
// CHECK-NEXT:   "policy": "everything_saveable",
// CHECK-NEXT:   "recomputed_flops": 0
// CHECK:        "peak_bytes": 6144,
// CHECK-NEXT:   "policy": "nothing_saveable",
// CHECK-NEXT:   "recomputed_flops": 16896
// CHECK:        "peak_bytes": 8192,
// CHECK-NEXT:   "policy": "dots_saveable",
// CHECK-NEXT:   "recomputed_flops": 512
// CHECK:        "policy": "min_residual_bytes",
// ELIM:       "schedules_predicted": 3,
// SWEEP-NOT:  "schedules_predicted"
// CHECK:      "split": "mlp"

// NOVJP: error: --jx-remat-frontier: no forward/backward pair in the module; run --jx-vjp first

func.func @mlp(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %r = jx.remat(%x, %w) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
      policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %1 = jx.tanh %0 : tensor<16x16xf32>
    jx.yield %1 : tensor<16x16xf32>
  }
  %r2 = jx.remat(%r, %w) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
      policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %2 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %3 = jx.tanh %2 : tensor<16x16xf32>
    %4 = jx.dot_general %3, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %5 = jx.tanh %4 : tensor<16x16xf32>
    %6 = jx.reduce_sum %5, axes = [0, 1] : tensor<16x16xf32> -> tensor<f32>
    jx.yield %6 : tensor<f32>
  }
  return %r2 : tensor<f32>
}
