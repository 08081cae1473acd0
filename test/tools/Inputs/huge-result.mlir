// A result of 160 GB: compiled code cannot allocate it.
func.func @f(%x: tensor<4xf32>) -> tensor<100000x100000x4xf32> {
  %0 = jx.broadcast_in_dim %x, dims = [2] : tensor<4xf32> -> tensor<100000x100000x4xf32>
  return %0 : tensor<100000x100000x4xf32>
}
