// Dropout whose keep mask is drawn inside the step (jx.threefry2x32 on the
// counters, the bits turned into uniform floats, compared with the keep
// probability), and its VJP: the PTX --jx-to-nvvm emits is accepted by
// ptxas for sm_90, the cipher inlined into the kernels.
// REQUIRES: ptxas
// RUN: cotangent-opt %s --jx-to-nvvm="format=isa" -o %t.90.mlir
// RUN: %check-ptx %t.90.mlir --arch sm_90 --out-dir %t.90 | FileCheck %s --check-prefix=SM90
// RUN: cotangent-opt %s --jx-vjp --jx-remat -o %t.vjp.mlir
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="format=isa" -o %t.vjp90.mlir
// RUN: %check-ptx %t.vjp90.mlir --arch sm_90 --out-dir %t.vjp90 | FileCheck %s --check-prefix=VJP90

// SM90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// VJP90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules

func.func @dropout(%x: tensor<256xf32>, %key: tensor<2xi32>) -> tensor<256xf32> {
  %k0s = jx.slice %key, start = [0], limit = [1], strides = [1] : tensor<2xi32> -> tensor<1xi32>
  %k1s = jx.slice %key, start = [1], limit = [2], strides = [1] : tensor<2xi32> -> tensor<1xi32>
  %k0 = jx.broadcast_in_dim %k0s, dims = [0] : tensor<1xi32> -> tensor<256xi32>
  %k1 = jx.broadcast_in_dim %k1s, dims = [0] : tensor<1xi32> -> tensor<256xi32>
  %zero = jx.constant dense<0> : tensor<256xi32>
  %ctr = jx.iota dim = 0 : tensor<256xi32>
  %y0, %y1 = jx.threefry2x32 %k0, %k1, %zero, %ctr : tensor<256xi32>
  %bits = jx.xor %y0, %y1 : tensor<256xi32>
  %nine = jx.constant dense<9> : tensor<256xi32>
  %m = jx.shift_right_logical %bits, %nine : tensor<256xi32>
  %expo = jx.constant dense<1065353216> : tensor<256xi32>
  %o = jx.or %m, %expo : tensor<256xi32>
  %f = jx.bitcast_convert_type %o : tensor<256xi32> -> tensor<256xf32>
  %one = jx.constant dense<1.0> : tensor<256xf32>
  %u = jx.sub %f, %one : tensor<256xf32>
  %p = jx.constant dense<0.9> : tensor<256xf32>
  %keep = jx.lt %u, %p : tensor<256xf32>
  %scale = jx.constant dense<1.11111116> : tensor<256xf32>
  %xs = jx.mul %x, %scale : tensor<256xf32>
  %z = jx.constant dense<0.0> : tensor<256xf32>
  %r = jx.select_n %keep, %z, %xs : tensor<256xi1>, tensor<256xf32>, tensor<256xf32>
  return %r : tensor<256xf32>
}
