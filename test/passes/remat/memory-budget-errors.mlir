// memory_budget errors, located at the budget region: a budget below every
// schedule's peak names the smallest peak; a budget region may not nest with
// another remat region.
// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat -verify-diagnostics -o /dev/null

func.func @too_small(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %r = jx.remat(%x, %w) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
      policy = #jx.policy<memory_budget(0.3)> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    // expected-error @+1 {{memory_budget: no schedule of this step peaks within 2150 bytes; the smallest peak is 4096 bytes}}
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %1 = jx.tanh %0 : tensor<16x16xf32>
    %2 = jx.dot_general %1, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %3 = jx.tanh %2 : tensor<16x16xf32>
    %4 = jx.reduce_sum %3, axes = [0, 1] : tensor<16x16xf32> -> tensor<f32>
    jx.yield %4 : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = jx.remat(%x) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<4xf32>):
    %s = jx.remat(%a) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<memory_budget(64)> {
    ^bb0(%b: tensor<4xf32>):
      // expected-error @+1 {{memory_budget: a budget region cannot be nested with another jx.remat region}}
      %0 = jx.sin %b : tensor<4xf32>
      %1 = jx.sin %0 : tensor<4xf32>
      jx.yield %1 : tensor<4xf32>
    }
    jx.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
