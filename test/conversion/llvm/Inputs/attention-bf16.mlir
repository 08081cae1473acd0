// bf16 fused attention, which the CPU kernels do not run (jx-to-linalg-attention.mlir).
func.func @low_float(%q: tensor<1x4x2x8xbf16>) -> tensor<1x4x2x8xbf16> {
  %o, %lse = jx.dot_product_attention %q, %q, %q, scale = 0.5
      : tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>, tensor<1x4x2x8xbf16>
  return %o : tensor<1x4x2x8xbf16>
}
