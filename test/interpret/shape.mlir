// Shape ops: broadcast_in_dim, reshape, transpose, squeeze, expand_dims,
// concatenate, slice, dynamic_slice, dynamic_update_slice, pad, iota.
// RUN: cotangent-interpret %s --fn broadcast --arg "dense<[1.0, 2.0, 3.0]> : tensor<3xf32>" | FileCheck %s --check-prefix=BCAST
// RUN: cotangent-interpret %s --fn layout --arg "dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>" | FileCheck %s --check-prefix=LAYOUT
// RUN: cotangent-interpret %s --fn concat | FileCheck %s --check-prefix=CONCAT
// RUN: cotangent-interpret %s --fn slices --arg "dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>" --arg "dense<5> : tensor<i32>" | FileCheck %s --check-prefix=SLICE
// RUN: cotangent-interpret %s --fn slices --arg "dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>" --arg "dense<-3> : tensor<i32>" | FileCheck %s --check-prefix=SLICENEG
// RUN: cotangent-interpret %s --fn pads --arg "dense<[1.0, 2.0, 3.0]> : tensor<3xf32>" | FileCheck %s --check-prefix=PAD
// RUN: cotangent-interpret %s --fn iotas | FileCheck %s --check-prefix=IOTA

// BCAST: result 0: dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<2x3xf32>
// BCAST: result 1: dense<{{\[}}[1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00], [3.000000e+00, 3.000000e+00]]> : tensor<3x2xf32>
// BCAST: result 2: dense<{{\[}}[5.000000e+00, 5.000000e+00], [6.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
func.func @broadcast(%x: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  %0 = jx.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %1 = jx.broadcast_in_dim %x, dims = [0] : tensor<3xf32> -> tensor<3x2xf32>
  %c = jx.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %2 = jx.broadcast_in_dim %c, dims = [0, 1] : tensor<2x1xf32> -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}

// LAYOUT: result 0: dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// LAYOUT: result 1: dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// LAYOUT: result 2: dense<{{\[}}{{\[}}[1, 2, 3]], {{\[}}[4, 5, 6]]]> : tensor<2x1x3xi32>
// LAYOUT: result 3: dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
func.func @layout(%x: tensor<2x3xi32>) -> (tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x1x3xi32>, tensor<6xi32>) {
  %0 = jx.transpose %x, perm = [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %1 = jx.reshape %x : tensor<2x3xi32> -> tensor<3x2xi32>
  %2 = jx.expand_dims %x, dims = [1] : tensor<2x3xi32> -> tensor<2x1x3xi32>
  %3 = jx.expand_dims %x, dims = [0] : tensor<2x3xi32> -> tensor<1x2x3xi32>
  %4 = jx.reshape %3 : tensor<1x2x3xi32> -> tensor<1x6xi32>
  %5 = jx.squeeze %4, dims = [0] : tensor<1x6xi32> -> tensor<6xi32>
  return %0, %1, %2, %5 : tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x1x3xi32>, tensor<6xi32>
}

// CONCAT: result 0: dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// CONCAT: result 1: dense<{{\[}}[1, 2, 5], [3, 4, 6]]> : tensor<2x3xi64>
func.func @concat() -> (tensor<5xf32>, tensor<2x3xi64>) {
  %a = jx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = jx.constant dense<[3.0, 4.0, 5.0]> : tensor<3xf32>
  %0 = jx.concatenate(%a, %b) dim = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %c = jx.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %d = jx.constant dense<[[5], [6]]> : tensor<2x1xi64>
  %1 = jx.concatenate(%c, %d) dim = 1 : tensor<2x2xi64>, tensor<2x1xi64> -> tensor<2x3xi64>
  return %0, %1 : tensor<5xf32>, tensor<2x3xi64>
}

// Starts are clamped: 5 -> 4 for a size-2 slice, 5 -> 3 for a size-3 update;
// -3 -> 0.
// SLICE: result 0: dense<[1, 3]> : tensor<2xi32>
// SLICE: result 1: dense<[4, 5]> : tensor<2xi32>
// SLICE: result 2: dense<[0, 1, 2, -1, -1, -1]> : tensor<6xi32>
// SLICENEG: result 1: dense<[0, 1]> : tensor<2xi32>
// SLICENEG: result 2: dense<[-1, -1, -1, 3, 4, 5]> : tensor<6xi32>
func.func @slices(%x: tensor<6xi32>, %i: tensor<i32>) -> (tensor<2xi32>, tensor<2xi32>, tensor<6xi32>) {
  %0 = jx.slice %x, start = [1], limit = [5], strides = [2] : tensor<6xi32> -> tensor<2xi32>
  %1 = jx.dynamic_slice %x[%i], sizes = [2] : tensor<6xi32>, tensor<i32> -> tensor<2xi32>
  %u = jx.constant dense<-1> : tensor<3xi32>
  %2 = jx.dynamic_update_slice %x, %u[%i] : tensor<6xi32>, tensor<3xi32>, tensor<i32>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi32>, tensor<6xi32>
}

// PAD: result 0: dense<[0.000000e+00, 1.000000e+00, 0.000000e+00, 2.000000e+00, 0.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<8xf32>
// PAD: result 1: dense<[9.000000e+00, 2.000000e+00, 9.000000e+00, 9.000000e+00, 3.000000e+00]> : tensor<5xf32>
// PAD: result 2: dense<{{\[}}[7, 7, 7], [7, 1, 2], [7, 3, 4]]> : tensor<3x3xi32>
func.func @pads(%x: tensor<3xf32>) -> (tensor<8xf32>, tensor<5xf32>, tensor<3x3xi32>) {
  %zero = jx.constant dense<0.0> : tensor<f32>
  %nine = jx.constant dense<9.0> : tensor<f32>
  %0 = jx.pad %x, %zero, low = [1], high = [2], interior = [1] : tensor<3xf32>, tensor<f32> -> tensor<8xf32>
  %1 = jx.pad %x, %nine, low = [-2], high = [0], interior = [2] : tensor<3xf32>, tensor<f32> -> tensor<5xf32>
  %m = jx.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %seven = jx.constant dense<7> : tensor<i32>
  %2 = jx.pad %m, %seven, low = [1, 1], high = [0, 0], interior = [0, 0] : tensor<2x2xi32>, tensor<i32> -> tensor<3x3xi32>
  return %0, %1, %2 : tensor<8xf32>, tensor<5xf32>, tensor<3x3xi32>
}

// IOTA: result 0: dense<{{\[}}[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>
// IOTA: result 1: dense<{{\[}}[0.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<2x3xf32>
func.func @iotas() -> (tensor<2x3xi32>, tensor<2x3xf32>) {
  %0 = jx.iota dim = 1 : tensor<2x3xi32>
  %1 = jx.iota dim = 0 : tensor<2x3xf32>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xf32>
}
