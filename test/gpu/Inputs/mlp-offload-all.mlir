// A 3-layer tanh MLP under one offload policy: every layer's dot output
// ("dot") waits in pinned host memory, the rest is recomputed. The backward
// copies each back right before it needs it (jx-gpu-reload-residuals), so
// the device peak drops by the offloaded bytes.
func.func @mlp(%x: tensor<8x32xf32>, %W1: tensor<32x32xf32>, %W2: tensor<32x32xf32>,
               %W3: tensor<32x32xf32>) -> tensor<f32> {
  %h = jx.remat(%x, %W1, %W2, %W3)
      : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
      policy = #jx.policy<save_and_offload_only_these_names([], ["dot"], "device", "pinned_host")> {
  ^bb0(%a: tensor<8x32xf32>, %w1: tensor<32x32xf32>, %w2: tensor<32x32xf32>, %w3: tensor<32x32xf32>):
    %d1 = jx.dot_general %a, %w1, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
    %n1 = jx.checkpoint_name %d1, "dot" : tensor<8x32xf32>
    %h1 = jx.tanh %n1 : tensor<8x32xf32>
    %d2 = jx.dot_general %h1, %w2, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
    %n2 = jx.checkpoint_name %d2, "dot" : tensor<8x32xf32>
    %h2 = jx.tanh %n2 : tensor<8x32xf32>
    %d3 = jx.dot_general %h2, %w3, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<8x32xf32>, tensor<32x32xf32> -> tensor<8x32xf32>
    %n3 = jx.checkpoint_name %d3, "dot" : tensor<8x32xf32>
    %h3 = jx.tanh %n3 : tensor<8x32xf32>
    jx.yield %h3 : tensor<8x32xf32>
  }
  %s = jx.reduce_sum %h, axes = [0, 1] : tensor<8x32xf32> -> tensor<f32>
  return %s : tensor<f32>
}
