// A two-layer MLP with relu on a batch of 8: y = relu(x W1 + b1) W2 + b2.
// The first layer is checkpointed with nothing_saveable.
func.func @mlp(%x: tensor<8x16xf32>, %W1: tensor<16x32xf32>, %b1: tensor<32xf32>,
               %W2: tensor<32x4xf32>, %b2: tensor<4xf32>) -> tensor<8x4xf32> {
  %h = jx.remat(%x, %W1, %b1) : (tensor<8x16xf32>, tensor<16x32xf32>, tensor<32xf32>)
      -> tensor<8x32xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%xi: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>):
    %0 = jx.dot_general %xi, %w, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
    %1 = jx.broadcast_in_dim %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %2 = jx.add %0, %1 : tensor<8x32xf32>
    %z = jx.constant dense<0.0> : tensor<8x32xf32>
    %3 = jx.max %2, %z : tensor<8x32xf32>
    jx.yield %3 : tensor<8x32xf32>
  }
  %4 = jx.dot_general %h, %W2, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32>
  %5 = jx.broadcast_in_dim %b2, dims = [1] : tensor<4xf32> -> tensor<8x4xf32>
  %6 = jx.add %4, %5 : tensor<8x4xf32>
  return %6 : tensor<8x4xf32>
}
