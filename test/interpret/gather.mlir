// jx.take and jx.scatter_add: indices out of range are clamped (9 reads
// row 2, -1 row 0), repeated ones accumulate, along either axis.
// RUN: cotangent-interpret %s --fn rows --arg "dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>" --arg "dense<[2, 0, 9, -1, 2]> : tensor<5xi32>" | FileCheck %s --check-prefix=ROWS
// RUN: cotangent-interpret %s --fn columns --arg "dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>" --arg "dense<[1, 1]> : tensor<2xi64>" | FileCheck %s --check-prefix=COLS

// ROWS: result 0: dense<{{\[}}[5.000000e+00, 6.000000e+00], [1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00], [1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<5x2xf32>
// ROWS: result 1: dense<{{\[}}[2.000000e+00, 2.000000e+00], [0.000000e+00, 0.000000e+00], [3.000000e+00, 3.000000e+00]]> : tensor<3x2xf32>
func.func @rows(%x: tensor<3x2xf32>, %i: tensor<5xi32>) -> (tensor<5x2xf32>, tensor<3x2xf32>) {
  %0 = jx.take %x[%i], axis = 0 : tensor<3x2xf32>, tensor<5xi32> -> tensor<5x2xf32>
  %z = jx.constant dense<0.0> : tensor<3x2xf32>
  %ones = jx.constant dense<1.0> : tensor<5x2xf32>
  %1 = jx.scatter_add %z[%i], %ones, axis = 0 : tensor<3x2xf32>, tensor<5xi32>, tensor<5x2xf32>
  return %0, %1 : tensor<5x2xf32>, tensor<3x2xf32>
}

// COLS: result 0: dense<{{\[}}[2, 2], [5, 5]]> : tensor<2x2xi32>
// COLS: result 1: dense<{{\[}}[1, 6, 3], [4, 15, 6]]> : tensor<2x3xi32>
func.func @columns(%x: tensor<2x3xi32>, %i: tensor<2xi64>) -> (tensor<2x2xi32>, tensor<2x3xi32>) {
  %0 = jx.take %x[%i], axis = 1 : tensor<2x3xi32>, tensor<2xi64> -> tensor<2x2xi32>
  %1 = jx.scatter_add %x[%i], %0, axis = 1 : tensor<2x3xi32>, tensor<2xi64>, tensor<2x2xi32>
  return %0, %1 : tensor<2x2xi32>, tensor<2x3xi32>
}
