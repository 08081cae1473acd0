// Three tanh layers of a 64 x 64 activation (16 KiB each), no remat region:
// what cotangent-run-predicted-oom.test plans under a memory limit.
func.func @f(%w: tensor<64x64xf32>, %x: tensor<64x64xf32>) -> tensor<f32> {
  %0 = jx.dot_general %x, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %1 = jx.tanh %0 : tensor<64x64xf32>
  %2 = jx.dot_general %1, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %3 = jx.tanh %2 : tensor<64x64xf32>
  %4 = jx.dot_general %3, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %5 = jx.tanh %4 : tensor<64x64xf32>
  %6 = jx.reduce_sum %5, axes = [0, 1] : tensor<64x64xf32> -> tensor<f32>
  return %6 : tensor<f32>
}
