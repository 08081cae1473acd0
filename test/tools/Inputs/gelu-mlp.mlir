// Two layers of tanh-approximated GELU(h @ W), loss = sum: without a policy
// the VJP saves several elementwise intermediates of each GELU, which
// elementwise ops rebuild from fewer bytes (cotangent-run --default-policy).
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<f32> {
  %h1 = jx.dot_general %x, %w1, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %ahalf = jx.constant dense<0.5> : tensor<8x32xf32>
  %aone = jx.constant dense<1.0> : tensor<8x32xf32>
  %ac = jx.constant dense<0.797884583> : tensor<8x32xf32>
  %ak = jx.constant dense<0.044715> : tensor<8x32xf32>
  %ax2 = jx.mul %h1, %h1 : tensor<8x32xf32>
  %ax3 = jx.mul %ax2, %h1 : tensor<8x32xf32>
  %akx3 = jx.mul %ak, %ax3 : tensor<8x32xf32>
  %ain = jx.add %h1, %akx3 : tensor<8x32xf32>
  %acin = jx.mul %ac, %ain : tensor<8x32xf32>
  %at = jx.tanh %acin : tensor<8x32xf32>
  %au = jx.add %aone, %at : tensor<8x32xf32>
  %ahx = jx.mul %ahalf, %h1 : tensor<8x32xf32>
  %ay = jx.mul %ahx, %au : tensor<8x32xf32>
  %h2 = jx.dot_general %ay, %w2, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  %bhalf = jx.constant dense<0.5> : tensor<8x16xf32>
  %bone = jx.constant dense<1.0> : tensor<8x16xf32>
  %bc = jx.constant dense<0.797884583> : tensor<8x16xf32>
  %bk = jx.constant dense<0.044715> : tensor<8x16xf32>
  %bx2 = jx.mul %h2, %h2 : tensor<8x16xf32>
  %bx3 = jx.mul %bx2, %h2 : tensor<8x16xf32>
  %bkx3 = jx.mul %bk, %bx3 : tensor<8x16xf32>
  %bin = jx.add %h2, %bkx3 : tensor<8x16xf32>
  %bcin = jx.mul %bc, %bin : tensor<8x16xf32>
  %bt = jx.tanh %bcin : tensor<8x16xf32>
  %bu = jx.add %bone, %bt : tensor<8x16xf32>
  %bhx = jx.mul %bhalf, %h2 : tensor<8x16xf32>
  %by = jx.mul %bhx, %bu : tensor<8x16xf32>
  %s = jx.reduce_sum %by, axes = [0, 1] : tensor<8x16xf32> -> tensor<f32>
  return %s : tensor<f32>
}
