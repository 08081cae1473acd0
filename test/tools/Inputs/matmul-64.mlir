// sum(tanh(x @ W)) at 64 x 64 x 64: a product large enough for oneDNN
// (runtime/cpu/OneDnnMatmul.h, kMinOneDnnWork).
func.func @layer(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<f32> {
  %d = jx.dot_general %x, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %h = jx.tanh %d : tensor<64x64xf32>
  %s = jx.reduce_sum %h, axes = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  return %s : tensor<f32>
}
