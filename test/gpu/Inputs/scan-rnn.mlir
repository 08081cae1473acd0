// An RNN cell over 3 steps: h' = tanh(W^T h + x), as a jx.scan.
func.func @rnn(%w: tensor<4x4xf32>, %h0: tensor<4xf32>, %xs: tensor<3x4xf32>)
    -> (tensor<4xf32>, tensor<3x4xf32>) {
  %c, %ys = jx.scan(%w, %h0, %xs) length = 3, consts = 1, carry = 1
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %t = jx.transpose %wi, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %0 = jx.dot_general %t, %h, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.add %0, %x : tensor<4xf32>
    %2 = jx.tanh %1 : tensor<4xf32>
    jx.yield %2, %2 : tensor<4xf32>, tensor<4xf32>
  }
  return %c, %ys : tensor<4xf32>, tensor<3x4xf32>
}
