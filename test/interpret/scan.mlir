// jx.scan: consts, carry, xs slices along the leading axis, stacked ys, reverse.
// RUN: cotangent-interpret %s --fn running_sum --arg "dense<[1.0, 2.0, 3.0]> : tensor<3xf32>" | FileCheck %s --check-prefix=SUM
// RUN: cotangent-interpret %s --fn running_sum_reverse --arg "dense<[1.0, 2.0, 3.0]> : tensor<3xf32>" | FileCheck %s --check-prefix=REV
// RUN: cotangent-interpret %s --fn recurrence --arg "dense<[2.0, 1.0]> : tensor<2xf32>" --arg "dense<[[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]> : tensor<3x2xf32>" | FileCheck %s --check-prefix=REC

// SUM: result 0: dense<6.000000e+00> : tensor<f32>
// SUM: result 1: dense<[1.000000e+00, 3.000000e+00, 6.000000e+00]> : tensor<3xf32>
func.func @running_sum(%xs: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %zero = jx.constant dense<0.0> : tensor<f32>
  %c, %ys = jx.scan (%zero, %xs) length = 3, consts = 0, carry = 1
      : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%h: tensor<f32>, %x: tensor<f32>):
    %0 = jx.add %h, %x : tensor<f32>
    jx.yield %0, %0 : tensor<f32>, tensor<f32>
  }
  return %c, %ys : tensor<f32>, tensor<3xf32>
}

// Reverse runs from the last slice; ys[i] still pairs with xs[i].
// REV: result 0: dense<6.000000e+00> : tensor<f32>
// REV: result 1: dense<[6.000000e+00, 5.000000e+00, 3.000000e+00]> : tensor<3xf32>
func.func @running_sum_reverse(%xs: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %zero = jx.constant dense<0.0> : tensor<f32>
  %c, %ys = jx.scan (%zero, %xs) length = 3, consts = 0, carry = 1 reverse
      : (tensor<f32>, tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  ^bb0(%h: tensor<f32>, %x: tensor<f32>):
    %0 = jx.add %h, %x : tensor<f32>
    jx.yield %0, %0 : tensor<f32>, tensor<f32>
  }
  return %c, %ys : tensor<f32>, tensor<3xf32>
}

// h' = h * w + x, y = sum(h'): h = [1, 1], [3, 3], [7, 6]; ys = 2, 6, 13.
// REC: result 0: dense<[7.000000e+00, 6.000000e+00]> : tensor<2xf32>
// REC: result 1: dense<[2.000000e+00, 6.000000e+00, 1.300000e+01]> : tensor<3xf32>
func.func @recurrence(%w: tensor<2xf32>, %xs: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %h0 = jx.constant dense<0.0> : tensor<2xf32>
  %c, %ys = jx.scan (%w, %h0, %xs) length = 3, consts = 1, carry = 1
      : (tensor<2xf32>, tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  ^bb0(%wi: tensor<2xf32>, %h: tensor<2xf32>, %x: tensor<2xf32>):
    %0 = jx.mul %h, %wi : tensor<2xf32>
    %1 = jx.add %0, %x : tensor<2xf32>
    %2 = jx.reduce_sum %1, axes = [0] : tensor<2xf32> -> tensor<f32>
    jx.yield %1, %2 : tensor<2xf32>, tensor<f32>
  }
  return %c, %ys : tensor<2xf32>, tensor<3xf32>
}
