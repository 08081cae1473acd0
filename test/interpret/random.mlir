// jx.threefry2x32 on Random123's known-answer vectors for Threefry-2x32-20
// (key, counter -> words, as uint32 bits in i32), and the bit ops JAX's
// uniform draws use: a logical shift, an or, a bitcast to f32.
// RUN: cotangent-interpret %s --fn kat | FileCheck %s --check-prefix=KAT
// RUN: cotangent-run %s --fn kat_compiled | FileCheck %s --check-prefix=COMPILED
// RUN: cotangent-interpret %s --fn bits --arg "dense<[-1, 8, 0, -2147483648]> : tensor<4xi32>" | FileCheck %s --check-prefix=BITS

// KAT: result 0: dense<[1797259609, 481924860, -997049700]> : tensor<3xi32>
// KAT: result 1: dense<[-1715843330, -1157616665, 1212020640]> : tensor<3xi32>
func.func @kat() -> (tensor<3xi32>, tensor<3xi32>) {
  %k0 = jx.constant dense<[0, -1, 320440878]> : tensor<3xi32>
  %k1 = jx.constant dense<[0, -1, 57701188]> : tensor<3xi32>
  %x0 = jx.constant dense<[0, -1, 608135816]> : tensor<3xi32>
  %x1 = jx.constant dense<[0, -1, -2052912941]> : tensor<3xi32>
  %y0, %y1 = jx.threefry2x32 %k0, %k1, %x0, %x1 : tensor<3xi32>
  return %y0, %y1 : tensor<3xi32>, tensor<3xi32>
}

// Compiled, against the same words.
// COMPILED: result 0: bool[3] [1, 1, 1] sum=3
// COMPILED: result 1: bool[3] [1, 1, 1] sum=3
func.func @kat_compiled() -> (tensor<3xi1>, tensor<3xi1>) {
  %y0, %y1 = call @kat() : () -> (tensor<3xi32>, tensor<3xi32>)
  %w0 = jx.constant dense<[1797259609, 481924860, -997049700]> : tensor<3xi32>
  %w1 = jx.constant dense<[-1715843330, -1157616665, 1212020640]> : tensor<3xi32>
  %0 = jx.eq %y0, %w0 : tensor<3xi32>
  %1 = jx.eq %y1, %w1 : tensor<3xi32>
  return %0, %1 : tensor<3xi1>, tensor<3xi1>
}

// Shifts by 9 fill with zeros; by 32, 40 or -1 give 0. JAX's uniform:
// (bits >> 9) | 0x3f800000 as f32 lies in [1, 2).
// BITS: result 0: dense<[8388607, 0, 0, 0]> : tensor<4xi32>
// BITS: result 1: dense<[1.99999988, 1.000000e+00, 1.000000e+00, 1.500000e+00]> : tensor<4xf32>
// BITS: result 2: dense<[-1065353217, 1065353224, 1065353216, -1082130432]> : tensor<4xi32>
func.func @bits(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi32>) {
  %s = jx.constant dense<[9, 32, 40, -1]> : tensor<4xi32>
  %0 = jx.shift_right_logical %x, %s : tensor<4xi32>
  %nine = jx.constant dense<9> : tensor<4xi32>
  %m = jx.shift_right_logical %x, %nine : tensor<4xi32>
  %one = jx.constant dense<1065353216> : tensor<4xi32>
  %o = jx.or %m, %one : tensor<4xi32>
  %1 = jx.bitcast_convert_type %o : tensor<4xi32> -> tensor<4xf32>
  %2 = jx.xor %x, %one : tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xf32>, tensor<4xi32>
}
