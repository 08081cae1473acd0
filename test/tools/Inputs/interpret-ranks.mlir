func.func @mean(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jx.pmean %x, axis = "data" : tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @index() -> tensor<i32> {
  %0 = jx.axis_index axis = "data" : tensor<i32>
  return %0 : tensor<i32>
}

// Rank 0 runs psum, rank 1 pmean: not the same collective.
func.func @diverge(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = jx.axis_index axis = "data" : tensor<i32>
  %zero = jx.constant dense<0> : tensor<i32>
  %first = jx.eq %r, %zero : tensor<i32>
  %y = jx.cond %first (%x) : tensor<i1>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    %0 = jx.pmean %a, axis = "data" : tensor<2xf32>
    jx.yield %0 : tensor<2xf32>
  }, {
  ^bb0(%b: tensor<2xf32>):
    %1 = jx.psum %b, axis = "data" : tensor<2xf32>
    jx.yield %1 : tensor<2xf32>
  }
  return %y : tensor<2xf32>
}

func.func @gather(%x: tensor<2xf32>) -> tensor<4xf32> {
  %0 = jx.all_gather %x, axis = "data"(2), dimension = 0 tiled : tensor<2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
