// jx.cond on a boolean computed on the device: the sum of x decides between
// two branches; the host reads the predicate from managed memory.
func.func @cond(%x: tensor<6xf32>) -> tensor<6xf32> {
  %zero = jx.constant dense<0.0> : tensor<f32>
  %s = jx.reduce_sum %x, axes = [0] : tensor<6xf32> -> tensor<f32>
  %p = jx.gt %s, %zero : tensor<f32>
  %r = jx.cond %p (%x) : tensor<i1>, (tensor<6xf32>) -> tensor<6xf32> {
  ^bb0(%a: tensor<6xf32>):
    %0 = jx.neg %a : tensor<6xf32>
    jx.yield %0 : tensor<6xf32>
  }, {
  ^bb0(%a: tensor<6xf32>):
    %0 = jx.exp %a : tensor<6xf32>
    %1 = jx.mul %0, %a : tensor<6xf32>
    jx.yield %1 : tensor<6xf32>
  }
  return %r : tensor<6xf32>
}
