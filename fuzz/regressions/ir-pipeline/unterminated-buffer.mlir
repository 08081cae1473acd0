func.func @rhs_batch_repeated(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) {
  %0 = jx.dot_general %a, %b, contracting_dims = [] x [], batch_dims = [0, 0] x [1, 1] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}#