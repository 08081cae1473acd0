// Elementwise jx ops on values whose results are exact in the element type.
// All-equal results print as splats (dense<1.000000e+00>).
// RUN: cotangent-interpret %s --fn transcendental --arg "dense<[0.0, 1.0]> : tensor<2xf32>" | FileCheck %s --check-prefix=TRANS
// RUN: cotangent-interpret %s --fn erf --arg "dense<[0.0, 30.0, -30.0]> : tensor<3xf32>" | FileCheck %s --check-prefix=ERF
// RUN: cotangent-interpret %s --fn rounding --arg "dense<[-1.5, 2.5, -0.0]> : tensor<3xf32>" | FileCheck %s --check-prefix=ROUND
// RUN: cotangent-interpret %s --fn ints --arg "dense<[7, -7, 2147483647, -2147483648, 5]> : tensor<5xi32>" --arg "dense<[2, 2, 1, -1, 0]> : tensor<5xi32>" | FileCheck %s --check-prefix=INTS
// RUN: cotangent-interpret %s --fn floats --arg "dense<[1.0, -3.0, 8.0]> : tensor<3xf64>" --arg "dense<[2.0, 2.0, 3.0]> : tensor<3xf64>" | FileCheck %s --check-prefix=FLOATS
// RUN: cotangent-interpret %s --fn powers --arg "dense<[2.0, -3.0]> : tensor<2xf32>" --arg "dense<[2, -3]> : tensor<2xi32>" | FileCheck %s --check-prefix=POW
// RUN: cotangent-interpret %s --fn logic --arg "dense<[true, true, false]> : tensor<3xi1>" --arg "dense<[true, false, false]> : tensor<3xi1>" --arg "dense<[12, 5]> : tensor<2xi32>" | FileCheck %s --check-prefix=LOGIC
// RUN: cotangent-interpret %s --fn compare --arg "dense<[1.0, 2.0, 3.0]> : tensor<3xf32>" --arg "dense<2.0> : tensor<3xf32>" | FileCheck %s --check-prefix=CMP
// RUN: cotangent-interpret %s --fn select --arg "dense<[true, false]> : tensor<2xi1>" --arg "dense<[-1, 0, 1, 7]> : tensor<4xi32>" | FileCheck %s --check-prefix=SELECT
// RUN: cotangent-interpret %s --fn convert --arg "dense<[1.7, -1.7, 3.0e9, 2049.0]> : tensor<4xf32>" | FileCheck %s --check-prefix=CONVERT
// RUN: cotangent-interpret %s --fn half --arg "dense<[1.0, 1.0]> : tensor<2xf16>" --arg "dense<[4.8828125e-4, 1.46484375e-3]> : tensor<2xf16>" | FileCheck %s --check-prefix=HALF

// TRANS: result 0: dense<0.000000e+00> : tensor<2xf32>
// TRANS: result 1: dense<1.000000e+00> : tensor<2xf32>
// TRANS: result 2: dense<0.000000e+00> : tensor<2xf32>
// TRANS: result 3: dense<1.000000e+00> : tensor<2xf32>
// TRANS: result 4: dense<0.000000e+00> : tensor<2xf32>
// TRANS: result 5: dense<0.000000e+00> : tensor<2xf32>
// TRANS: result 6: dense<5.000000e-01> : tensor<2xf32>
// TRANS: result 7: dense<0.000000e+00> : tensor<2xf32>
// TRANS: result 8: dense<[2.000000e+00, 5.000000e-01]> : tensor<2xf32>
// TRANS: result 9: dense<[0.000000e+00, 0.785398185]> : tensor<2xf32>
func.func @transcendental(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
    tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %zero = jx.constant dense<0.0> : tensor<2xf32>
  %one = jx.constant dense<1.0> : tensor<2xf32>
  %four = jx.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %0 = jx.sin %zero : tensor<2xf32>
  %1 = jx.cos %zero : tensor<2xf32>
  %2 = jx.tan %zero : tensor<2xf32>
  %3 = jx.exp %zero : tensor<2xf32>
  %4 = jx.log %one : tensor<2xf32>
  %5 = jx.log1p %zero : tensor<2xf32>
  %6 = jx.logistic %zero : tensor<2xf32>
  %7 = jx.expm1 %zero : tensor<2xf32>
  %t = jx.tanh %zero : tensor<2xf32>
  %8 = jx.sqrt %four : tensor<2xf32>
  %r = jx.rsqrt %four : tensor<2xf32>
  %9 = jx.atan2 %x, %one : tensor<2xf32>
  %10 = jx.add %7, %t : tensor<2xf32>
  %11 = jx.mul %8, %r : tensor<2xf32>
  %12 = jx.div %8, %11 : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %10, %12, %9 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
    tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// erf and erfc where their f32 values are exact: at 0 and in the tails.
// ERF: result 0: dense<[0.000000e+00, 1.000000e+00, -1.000000e+00]> : tensor<3xf32>
// ERF: result 1: dense<[1.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<3xf32>
func.func @erf(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = jx.erf %x : tensor<3xf32>
  %1 = jx.erfc %x : tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// ROUND: result 0: dense<[1.500000e+00, 2.500000e+00, 0.000000e+00]> : tensor<3xf32>
// ROUND: result 1: dense<[-1.000000e+00, 1.000000e+00, -0.000000e+00]> : tensor<3xf32>
// ROUND: result 2: dense<[-2.000000e+00, 2.000000e+00, -0.000000e+00]> : tensor<3xf32>
// ROUND: result 3: dense<[-1.000000e+00, 3.000000e+00, -0.000000e+00]> : tensor<3xf32>
// ROUND: result 4: dense<[1.500000e+00, -2.500000e+00, 0.000000e+00]> : tensor<3xf32>
// ROUND: result 5: dense<[-1.500000e+00, 2.500000e+00, -0.000000e+00]> : tensor<3xf32>
func.func @rounding(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
    tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = jx.abs %x : tensor<3xf32>
  %1 = jx.sign %x : tensor<3xf32>
  %2 = jx.floor %x : tensor<3xf32>
  %3 = jx.ceil %x : tensor<3xf32>
  %4 = jx.neg %x : tensor<3xf32>
  %5 = jx.stop_gradient %x : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
    tensor<3xf32>, tensor<3xf32>
}

// Wrap-around, XLA's x / 0 == -1, x % 0 == x, INT_MIN / -1 == INT_MIN.
// INTS: result 0: dense<[9, -5, -2147483648, 2147483647, 5]> : tensor<5xi32>
// INTS: result 1: dense<[5, -9, 2147483646, -2147483647, 5]> : tensor<5xi32>
// INTS: result 2: dense<[14, -14, 2147483647, -2147483648, 0]> : tensor<5xi32>
// INTS: result 3: dense<[3, -3, 2147483647, -2147483648, -1]> : tensor<5xi32>
// INTS: result 4: dense<[1, -1, 0, 0, 5]> : tensor<5xi32>
// INTS: result 5: dense<[7, 2, 2147483647, -1, 5]> : tensor<5xi32>
// INTS: result 6: dense<[2, -7, 1, -2147483648, 0]> : tensor<5xi32>
// INTS: result 7: dense<[7, 7, 2147483647, -2147483648, 5]> : tensor<5xi32>
// INTS: result 8: dense<[1, -1, 1, -1, 1]> : tensor<5xi32>
func.func @ints(%a: tensor<5xi32>, %b: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>,
    tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
  %0 = jx.add %a, %b : tensor<5xi32>
  %1 = jx.sub %a, %b : tensor<5xi32>
  %2 = jx.mul %a, %b : tensor<5xi32>
  %3 = jx.div %a, %b : tensor<5xi32>
  %4 = jx.rem %a, %b : tensor<5xi32>
  %5 = jx.max %a, %b : tensor<5xi32>
  %6 = jx.min %a, %b : tensor<5xi32>
  %7 = jx.abs %a : tensor<5xi32>
  %8 = jx.sign %a : tensor<5xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>,
    tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
}

// FLOATS: result 0: dense<[5.000000e-01, -1.500000e+00, 2.6666666666666665]> : tensor<3xf64>
// FLOATS: result 1: dense<[1.000000e+00, -1.000000e+00, 2.000000e+00]> : tensor<3xf64>
// FLOATS: result 2: dense<[2.000000e+00, 2.000000e+00, 8.000000e+00]> : tensor<3xf64>
// FLOATS: result 3: dense<[1.000000e+00, -3.000000e+00, 3.000000e+00]> : tensor<3xf64>
// FLOATS: result 4: dense<[1.000000e+00, 9.000000e+00, 5.120000e+02]> : tensor<3xf64>
func.func @floats(%a: tensor<3xf64>, %b: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>,
    tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %0 = jx.div %a, %b : tensor<3xf64>
  %1 = jx.rem %a, %b : tensor<3xf64>
  %2 = jx.max %a, %b : tensor<3xf64>
  %3 = jx.min %a, %b : tensor<3xf64>
  %4 = jx.pow %a, %b : tensor<3xf64>
  return %0, %1, %2, %3, %4 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// POW: result 0: dense<[8.000000e+00, -2.700000e+01]> : tensor<2xf32>
// POW: result 1: dense<[2.500000e-01, 0.111111112]> : tensor<2xf32>
// POW: result 2: dense<1.000000e+00> : tensor<2xf32>
// POW: result 3: dense<[32, -243]> : tensor<2xi32>
func.func @powers(%x: tensor<2xf32>, %n: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xf32>,
    tensor<2xf32>, tensor<2xi32>) {
  %0 = jx.integer_pow %x, y = 3 : tensor<2xf32>
  %1 = jx.integer_pow %x, y = -2 : tensor<2xf32>
  %2 = jx.integer_pow %x, y = 0 : tensor<2xf32>
  %3 = jx.integer_pow %n, y = 5 : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>
}

// LOGIC: result 0: dense<[true, false, false]> : tensor<3xi1>
// LOGIC: result 1: dense<[true, true, false]> : tensor<3xi1>
// LOGIC: result 2: dense<[false, false, true]> : tensor<3xi1>
// LOGIC: result 3: dense<[-13, -6]> : tensor<2xi32>
// LOGIC: result 4: dense<4> : tensor<2xi32>
// LOGIC: result 5: dense<[14, 7]> : tensor<2xi32>
func.func @logic(%p: tensor<3xi1>, %q: tensor<3xi1>, %n: tensor<2xi32>) -> (tensor<3xi1>,
    tensor<3xi1>, tensor<3xi1>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %mask = jx.constant dense<[6, 6]> : tensor<2xi32>
  %0 = jx.and %p, %q : tensor<3xi1>
  %1 = jx.or %p, %q : tensor<3xi1>
  %2 = jx.not %p : tensor<3xi1>
  %3 = jx.not %n : tensor<2xi32>
  %4 = jx.and %n, %mask : tensor<2xi32>
  %5 = jx.or %n, %mask : tensor<2xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi32>,
    tensor<2xi32>, tensor<2xi32>
}

// CMP: result 0: dense<[false, true, false]> : tensor<3xi1>
// CMP: result 1: dense<[true, false, true]> : tensor<3xi1>
// CMP: result 2: dense<[true, false, false]> : tensor<3xi1>
// CMP: result 3: dense<[true, true, false]> : tensor<3xi1>
// CMP: result 4: dense<[false, false, true]> : tensor<3xi1>
// CMP: result 5: dense<[false, true, true]> : tensor<3xi1>
func.func @compare(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xi1>, tensor<3xi1>,
    tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = jx.eq %a, %b : tensor<3xf32>
  %1 = jx.ne %a, %b : tensor<3xf32>
  %2 = jx.lt %a, %b : tensor<3xf32>
  %3 = jx.le %a, %b : tensor<3xf32>
  %4 = jx.gt %a, %b : tensor<3xf32>
  %5 = jx.ge %a, %b : tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>,
    tensor<3xi1>, tensor<3xi1>
}

// select_n: false picks the first case; i32 indices are clamped.
// SELECT: result 0: dense<[2.000000e+00, 1.000000e+00]> : tensor<2xf32>
// SELECT: result 1: dense<[1.000000e+01, 1.000000e+01, 2.100000e+01, 3.200000e+01]> : tensor<4xf32>
func.func @select(%p: tensor<2xi1>, %k: tensor<4xi32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %a = jx.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %b = jx.constant dense<[2.0, 2.0]> : tensor<2xf32>
  %0 = jx.select_n %p, %a, %b : tensor<2xi1>, tensor<2xf32>, tensor<2xf32>
  %c0 = jx.constant dense<[10.0, 10.0, 10.0, 10.0]> : tensor<4xf32>
  %c1 = jx.constant dense<[21.0, 21.0, 21.0, 21.0]> : tensor<4xf32>
  %c2 = jx.constant dense<[32.0, 32.0, 32.0, 32.0]> : tensor<4xf32>
  %1 = jx.select_n %k, %c0, %c1, %c2 : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0, %1 : tensor<2xf32>, tensor<4xf32>
}

// float -> int truncates and saturates (3e9 -> INT_MAX); f16 and bf16 round to
// nearest even (2049 -> 2048, 3e9 -> inf printed as 0x7C00, 1 + 2^-8 -> 1 in bf16).
// CONVERT: result 0: dense<[1, -1, 2147483647, 2049]> : tensor<4xi32>
// CONVERT: result 1: dense<[1.700200e+00, -1.700200e+00, 0x7C00, 2.048000e+03]> : tensor<4xf16>
// CONVERT: result 2: dense<true> : tensor<4xi1>
// CONVERT: result 3: dense<[1.000000e+00, 1.015630e+00]> : tensor<2xbf16>
func.func @convert(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf16>, tensor<4xi1>, tensor<2xbf16>) {
  %0 = jx.convert_element_type %x : tensor<4xf32> -> tensor<4xi32>
  %1 = jx.convert_element_type %x : tensor<4xf32> -> tensor<4xf16>
  %2 = jx.convert_element_type %x : tensor<4xf32> -> tensor<4xi1>
  %ties = jx.constant dense<[1.00390625, 1.01171875]> : tensor<2xf32>
  %3 = jx.convert_element_type %ties : tensor<2xf32> -> tensor<2xbf16>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xf16>, tensor<4xi1>, tensor<2xbf16>
}

// f16 math runs in float and rounds back: 1 + 2^-11 is a tie (-> 1),
// 1 + 3 * 2^-11 rounds up to 1 + 2^-9.
// HALF: result 0: dense<[1.000000e+00, 1.001950e+00]> : tensor<2xf16>
func.func @half(%a: tensor<2xf16>, %b: tensor<2xf16>) -> tensor<2xf16> {
  %0 = jx.add %a, %b : tensor<2xf16>
  return %0 : tensor<2xf16>
}
