func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %b = jx.broadcast_in_dim %x, dims = [3] : tensor<4xf32> -> tensor<100000x100000x100000x4xf32>
  %s = jx.reduce_sum %b, axes = [0, 1, 2, 3] : tensor<100000x100000x100000x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
