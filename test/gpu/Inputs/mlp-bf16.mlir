// A two-layer tanh MLP in bf16 on a batch of 8: y = tanh(x W1) W2. On the
// GPU each dot is one cuBLAS GEMM that reads the bf16 operands and
// accumulates in f32 (rounded to bf16 once, as on the CPU).
func.func @mlp(%x: tensor<8x16xbf16>, %W1: tensor<16x32xbf16>, %W2: tensor<32x4xbf16>)
    -> tensor<8x4xbf16> {
  %0 = jx.dot_general %x, %W1, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xbf16>
  %h = jx.tanh %0 : tensor<8x32xbf16>
  %y = jx.dot_general %h, %W2, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<8x32xbf16>, tensor<32x4xbf16> -> tensor<8x4xbf16>
  return %y : tensor<8x4xbf16>
}
