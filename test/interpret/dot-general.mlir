// jx.dot_general: result dims are batch, lhs free, rhs free.
// RUN: cotangent-interpret %s --fn matvec --arg "dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>" --arg "dense<[1.0, 0.5, -1.0]> : tensor<3xf32>" | FileCheck %s --check-prefix=MATVEC
// RUN: cotangent-interpret %s --fn batched | FileCheck %s --check-prefix=BATCHED
// RUN: cotangent-interpret %s --fn outer | FileCheck %s --check-prefix=OUTER
// RUN: cotangent-interpret %s --fn contract_leading | FileCheck %s --check-prefix=LEADING
// RUN: cotangent-interpret %s --fn batch_not_leading | FileCheck %s --check-prefix=MIDBATCH
// RUN: cotangent-interpret %s --fn preferred --arg "dense<[256.0, 1.0]> : tensor<2xbf16>" | FileCheck %s --check-prefix=PREFERRED
// RUN: cotangent-interpret %s --fn long_dot | FileCheck %s --check-prefix=LONG
// RUN: cotangent-interpret %s --fn ints --arg "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>" --arg "dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>" | FileCheck %s --check-prefix=INTS

// MATVEC: result 0: dense<[-1.000000e+00, 5.000000e-01]> : tensor<2xf32>
func.func @matvec(%W: tensor<2x3xf32>, %x: tensor<3xf32>) -> tensor<2xf32> {
  %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<2x3xf32>, tensor<3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// BATCHED: result 0: dense<{{\[}}{{\[}}[1.700000e+01]], {{\[}}[5.300000e+01]]]> : tensor<2x1x1xf32>
func.func @batched() -> tensor<2x1x1xf32> {
  %a = jx.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %b = jx.constant dense<[[[5.0], [6.0]], [[7.0], [8.0]]]> : tensor<2x2x1xf32>
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [1], batch_dims = [0] x [0]
         : tensor<2x1x2xf32>, tensor<2x2x1xf32> -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// OUTER: result 0: dense<{{\[}}[3.000000e+00, 4.000000e+00, 5.000000e+00], [6.000000e+00, 8.000000e+00, 1.000000e+01]]> : tensor<2x3xf32>
func.func @outer() -> tensor<2x3xf32> {
  %a = jx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = jx.constant dense<[3.0, 4.0, 5.0]> : tensor<3xf32>
  %0 = jx.dot_general %a, %b, contracting_dims = [] x [], batch_dims = [] x []
         : tensor<2xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// LEADING: result 0: dense<[9.000000e+00, 1.200000e+01]> : tensor<2xf64>
func.func @contract_leading() -> tensor<2xf64> {
  %a = jx.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>
  %b = jx.constant dense<1.0> : tensor<3xf64>
  %0 = jx.dot_general %a, %b, contracting_dims = [0] x [0], batch_dims = [] x []
         : tensor<3x2xf64>, tensor<3xf64> -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// result[b] = sum_k a[k, b] * c[b, k]
// MIDBATCH: result 0: dense<[5.000000e+00, 4.000000e+00, 1.800000e+01]> : tensor<3xf32>
func.func @batch_not_leading() -> tensor<3xf32> {
  %a = jx.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = jx.constant dense<[[1.0, 1.0], [2.0, 0.0], [0.0, 3.0]]> : tensor<3x2xf32>
  %0 = jx.dot_general %a, %c, contracting_dims = [0] x [1], batch_dims = [1] x [0]
         : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// bf16 operands accumulate in f32 when f32 is preferred: 256 + 1 stays 257
// (in bf16 it would round to 256).
// PREFERRED: result 0: dense<2.570000e+02> : tensor<f32>
// PREFERRED: result 1: dense<2.560000e+02> : tensor<bf16>
func.func @preferred(%x: tensor<2xbf16>) -> (tensor<f32>, tensor<bf16>) {
  %ones = jx.constant dense<1.0> : tensor<2xbf16>
  %0 = jx.dot_general %x, %ones, contracting_dims = [0] x [0], batch_dims = [] x []
         {preferred_element_type = f32} : tensor<2xbf16>, tensor<2xbf16> -> tensor<f32>
  %1 = jx.dot_general %x, %ones, contracting_dims = [0] x [0], batch_dims = [] x []
         : tensor<2xbf16>, tensor<2xbf16> -> tensor<bf16>
  return %0, %1 : tensor<f32>, tensor<bf16>
}

// INTS: result 0: dense<{{\[}}[19, 22], [43, 50]]> : tensor<2x2xi32>
func.func @ints(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<2x2xi32>, tensor<2x2xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// A dot product of 2^21 terms 0.1f * 1.0f: its exact value (209715.203)
// rounded once; a float accumulator would end at 206132.781.
// LONG: result 0: dense<209715.203> : tensor<f32>
func.func @long_dot() -> tensor<f32> {
  %a = jx.constant dense<0.1> : tensor<2097152xf32>
  %b = jx.constant dense<1.0> : tensor<2097152xf32>
  %d = jx.dot_general %a, %b, contracting_dims = [0] x [0], batch_dims = [] x []
         : tensor<2097152xf32>, tensor<2097152xf32> -> tensor<f32>
  return %d : tensor<f32>
}
