func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // the result type does not match
  %0 = jx.add %x, %x : tensor<3xf32>
  return %0 : tensor<2xf32>
}
