// Rows of a softmax, large enough (64 x 1024) for jx-parallel-loops to run
// them on threads.
func.func @softmax(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %m = jx.reduce_max %x, axes = [1] : tensor<64x1024xf32> -> tensor<64xf32>
  %mb = jx.broadcast_in_dim %m, dims = [0] : tensor<64xf32> -> tensor<64x1024xf32>
  %d = jx.sub %x, %mb : tensor<64x1024xf32>
  %e = jx.exp %d : tensor<64x1024xf32>
  %s = jx.reduce_sum %e, axes = [1] : tensor<64x1024xf32> -> tensor<64xf32>
  %sb = jx.broadcast_in_dim %s, dims = [0] : tensor<64xf32> -> tensor<64x1024xf32>
  %p = jx.div %e, %sb : tensor<64x1024xf32>
  return %p : tensor<64x1024xf32>
}
