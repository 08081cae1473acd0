// --jx-remat=budget-step=true: a memory_budget bounds the peak of the fused
// value-and-grad step (@deep_value_and_grad, one call: each residual freed
// after its last use in the backward) instead of the split's (@deep_fwd, then
// @deep_bwd: every residual held until the backward returns). Three layers of
// sin(h @ W), 64x16 activations (4 KiB) against a 16x16 weight: the split
// cannot go below 19456 bytes, the step fits 19000 by rebuilding three ops.
// A function that returns no scalar has no value-and-grad step to bound.
// The proof of the split's smallest peak takes seconds (46 predictions), more
// on a loaded machine: the search has time enough for it to be exact.
// RUN: not cotangent-opt %s -split-input-file --jx-vjp --jx-remat=budget-seconds=120 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not cotangent-opt %s -split-input-file --jx-vjp --jx-remat="budget-step=true budget-seconds=120" --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEP
// A search time that is not a positive number is refused before any search.
// RUN: not cotangent-opt %s -split-input-file --jx-vjp --jx-remat=budget-seconds=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SECONDS
// RUN: not cotangent-opt %s -split-input-file --jx-vjp --jx-remat=budget-seconds=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO

// SECONDS: error: --jx-remat: budget-seconds must be a positive number of seconds, got -1
// ZERO: error: --jx-remat: budget-seconds must be a positive number of seconds, got 0

// SPLIT: error: memory_budget: no schedule of this step peaks within 19000 bytes; the smallest peak is 19456 bytes

// STEP: remark: memory_budget: step peak 18436 of 19000 bytes (25604 without remat), recomputing 34816 FLOPs in 3 of 10 ops; optimal under the working-set bound (the step's peak has no proof)
// STEP: error: memory_budget: the step's peak needs a value-and-grad step (its function returns one scalar)
// STEP-LABEL: saved residuals of @deep
// STEP: total: 5 residuals, 17408 bytes

func.func @deep(%x: tensor<64x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %r = jx.remat(%x, %w) : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<f32>
      policy = #jx.policy<memory_budget(19000)> {
  ^bb0(%a: tensor<64x16xf32>, %b: tensor<16x16xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
    %1 = jx.sin %0 : tensor<64x16xf32>
    %2 = jx.dot_general %1, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
    %3 = jx.sin %2 : tensor<64x16xf32>
    %4 = jx.dot_general %3, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
    %5 = jx.sin %4 : tensor<64x16xf32>
    %6 = jx.reduce_sum %5, axes = [0, 1] : tensor<64x16xf32> -> tensor<f32>
    jx.yield %6 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @vector(%x: tensor<64x16xf32>, %w: tensor<16x16xf32>) -> tensor<64x16xf32> {
  %r = jx.remat(%x, %w) : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
      policy = #jx.policy<memory_budget(19000)> {
  ^bb0(%a: tensor<64x16xf32>, %b: tensor<16x16xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
    %1 = jx.sin %0 : tensor<64x16xf32>
    jx.yield %1 : tensor<64x16xf32>
  }
  return %r : tensor<64x16xf32>
}
