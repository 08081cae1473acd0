// memory_budget with one region per layer, as a user checkpoints a model:
// four layers of tanh(checkpoint_name(h @ W)) (16x64 f32, 4 KiB a tensor),
// each region under memory_budget(0.96). The regions are solved together
// and the first schedule predicted after the one that saves everything
// fits. tanh keeps its output, which the next layer's weight gradient reads
// too, so the only value worth rebuilding is the last layer's output, which
// nothing but tanh's backward reads: its dot and tanh run again (132096
// FLOPs). A name is a view: saving it would keep the dot's buffer, which the
// bound counts.
// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: memory_budget: peak 86016 of 86507 bytes (90112 without remat), recomputing 132096 FLOPs in 3 of 12 ops; optimal under the working-set bound {{.*}}(2 schedules predicted)
// CHECK-LABEL: saved residuals of @mlp
// CHECK-COUNT-3: f32[16,64] output of tanh
// CHECK-NEXT: total: 8 residuals, 81920 bytes

func.func @mlp(%x: tensor<16x64xf32>, %w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>, %w3: tensor<64x64xf32>) -> tensor<f32> {
  %h0 = jx.remat(%x, %w0) : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
      policy = #jx.policy<memory_budget(0.96)> {
  ^bb0(%a: tensor<16x64xf32>, %b: tensor<64x64xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
    %n = jx.checkpoint_name %0, "layer0" : tensor<16x64xf32>
    %1 = jx.tanh %n : tensor<16x64xf32>
    jx.yield %1 : tensor<16x64xf32>
  }
  %h1 = jx.remat(%h0, %w1) : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
      policy = #jx.policy<memory_budget(0.96)> {
  ^bb0(%a: tensor<16x64xf32>, %b: tensor<64x64xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
    %n = jx.checkpoint_name %0, "layer1" : tensor<16x64xf32>
    %1 = jx.tanh %n : tensor<16x64xf32>
    jx.yield %1 : tensor<16x64xf32>
  }
  %h2 = jx.remat(%h1, %w2) : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
      policy = #jx.policy<memory_budget(0.96)> {
  ^bb0(%a: tensor<16x64xf32>, %b: tensor<64x64xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
    %n = jx.checkpoint_name %0, "layer2" : tensor<16x64xf32>
    %1 = jx.tanh %n : tensor<16x64xf32>
    jx.yield %1 : tensor<16x64xf32>
  }
  %h3 = jx.remat(%h2, %w3) : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32>
      policy = #jx.policy<memory_budget(0.96)> {
  ^bb0(%a: tensor<16x64xf32>, %b: tensor<64x64xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x64xf32>, tensor<64x64xf32> -> tensor<16x64xf32>
    %n = jx.checkpoint_name %0, "layer3" : tensor<16x64xf32>
    %1 = jx.tanh %n : tensor<16x64xf32>
    jx.yield %1 : tensor<16x64xf32>
  }
  %s = jx.reduce_sum %h3, axes = [0, 1] : tensor<16x64xf32> -> tensor<f32>
  return %s : tensor<f32>
}
