// Reductions, argmax and cumsum.
// RUN: cotangent-interpret %s --fn reductions --arg "dense<[[1.0, 5.0, 2.0], [7.0, 3.0, 7.0]]> : tensor<2x3xf32>" | FileCheck %s --check-prefix=RED
// RUN: cotangent-interpret %s --fn argmaxes --arg "dense<[[1.0, 5.0, 2.0], [7.0, 3.0, 7.0]]> : tensor<2x3xf32>" | FileCheck %s --check-prefix=ARGMAX
// RUN: cotangent-interpret %s --fn long_sum | FileCheck %s --check-prefix=LONG
// RUN: cotangent-interpret %s --fn cumsums --arg "dense<[[1, 5, 2], [7, 3, 7]]> : tensor<2x3xi32>" | FileCheck %s --check-prefix=CUMSUM

// RED: result 0: dense<[8.000000e+00, 1.700000e+01]> : tensor<2xf32>
// RED: result 1: dense<2.500000e+01> : tensor<f32>
// RED: result 2: dense<[5.000000e+00, 7.000000e+00]> : tensor<2xf32>
// RED: result 3: dense<[1.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
// RED: result 4: dense<[1.000000e+01, 1.470000e+02]> : tensor<2xf32>
// RED: result 5: dense<[8, 8, 9]> : tensor<3xi32>
func.func @reductions(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<f32>, tensor<2xf32>,
    tensor<3xf32>, tensor<2xf32>, tensor<3xi32>) {
  %0 = jx.reduce_sum %x, axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = jx.reduce_sum %x, axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %2 = jx.reduce_max %x, axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %3 = jx.reduce_min %x, axes = [0] : tensor<2x3xf32> -> tensor<3xf32>
  %4 = jx.reduce_prod %x, axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %i = jx.convert_element_type %x : tensor<2x3xf32> -> tensor<2x3xi32>
  %5 = jx.reduce_sum %i, axes = [0] : tensor<2x3xi32> -> tensor<3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<f32>, tensor<2xf32>, tensor<3xf32>,
    tensor<2xf32>, tensor<3xi32>
}

// Ties pick the first index: row 1 has 7 at 0 and 2.
// ARGMAX: result 0: dense<[1, 0]> : tensor<2xi32>
// ARGMAX: result 1: dense<[1, 0, 1]> : tensor<3xi64>
func.func @argmaxes(%x: tensor<2x3xf32>) -> (tensor<2xi32>, tensor<3xi64>) {
  %0 = jx.argmax %x, axis = 1 : tensor<2x3xf32> -> tensor<2xi32>
  %1 = jx.argmax %x, axis = 0 : tensor<2x3xf32> -> tensor<3xi64>
  return %0, %1 : tensor<2xi32>, tensor<3xi64>
}

// CUMSUM: result 0: dense<{{\[}}[1, 6, 8], [7, 10, 17]]> : tensor<2x3xi32>
// CUMSUM: result 1: dense<{{\[}}[8, 7, 2], [17, 10, 7]]> : tensor<2x3xi32>
// CUMSUM: result 2: dense<{{\[}}[1, 5, 2], [8, 8, 9]]> : tensor<2x3xi32>
func.func @cumsums(%x: tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
  %0 = jx.cumsum %x, axis = 1 : tensor<2x3xi32>
  %1 = jx.cumsum %x, axis = 1 reverse : tensor<2x3xi32>
  %2 = jx.cumsum %x, axis = 0 : tensor<2x3xi32>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>
}

// 2^21 times 0.1f: the exact sum (209715.203) rounded once. A float
// accumulator would end at 206132.781, 1.7% low.
// LONG: result 0: dense<209715.203> : tensor<f32>
func.func @long_sum() -> tensor<f32> {
  %c = jx.constant dense<0.1> : tensor<2048x1024xf32>
  %s = jx.reduce_sum %c, axes = [0, 1] : tensor<2048x1024xf32> -> tensor<f32>
  return %s : tensor<f32>
}
