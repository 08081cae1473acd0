// The seed tutorial's example: g(W, x) = sin(W @ x), f = g . g . g with
// W1[5,4], W2[6,5], W3[7,6], x[4], the middle layer under jax.checkpoint.
func.func @f(%W1: tensor<5x4xf32> {jx.arg_name = "W1"}, %W2: tensor<6x5xf32> {jx.arg_name = "W2"},
             %W3: tensor<7x6xf32> {jx.arg_name = "W3"}, %x: tensor<4xf32> {jx.arg_name = "x"})
    -> tensor<7xf32> {
  %0 = jx.dot_general %W1, %x, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  %1 = jx.sin %0 : tensor<5xf32>
  %2 = jx.remat(%W2, %1) : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6xf32>
      policy = #jx.policy<nothing_saveable> {
  ^bb0(%w: tensor<6x5xf32>, %h: tensor<5xf32>):
    %3 = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<6x5xf32>, tensor<5xf32> -> tensor<6xf32>
    %4 = jx.sin %3 : tensor<6xf32>
    jx.yield %4 : tensor<6xf32>
  }
  %5 = jx.dot_general %W3, %2, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<7x6xf32>, tensor<6xf32> -> tensor<7xf32>
  %6 = jx.sin %5 : tensor<7xf32>
  return %6 : tensor<7xf32>
}
