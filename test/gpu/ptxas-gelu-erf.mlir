// Exact GELU, 0.5 x erfc(-x / sqrt 2), and erf: the PTX that --jx-to-nvvm
// emits for the function and for its VJP (whose backward forms
// 2/sqrt(pi) exp(-x^2)) is accepted by ptxas for sm_90. erf and erfc come
// from the toolkit's libdevice, linked into the module: no call is left.
// REQUIRES: ptxas
// RUN: cotangent-opt %s --jx-to-nvvm="format=isa" -o %t.90.mlir
// RUN: %check-ptx %t.90.mlir --arch sm_90 --out-dir %t.90 | FileCheck %s --check-prefix=SM90
// RUN: not grep -l "call.*__nv_erf" %t.90/*.ptx
// RUN: cotangent-opt %s --jx-vjp --jx-remat -o %t.vjp.mlir
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="format=isa" -o %t.vjp90.mlir
// RUN: %check-ptx %t.vjp90.mlir --arch sm_90 --out-dir %t.vjp90 | FileCheck %s --check-prefix=VJP90

// SM90: gelu_kernel: .target sm_90 entries gelu_kernel: ok
// SM90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// VJP90-DAG: gelu_fwd_kernel: .target sm_90 entries gelu_fwd_kernel: ok
// VJP90-DAG: gelu_bwd_kernel{{(_[0-9]+)?}}: .target sm_90 entries gelu_bwd_kernel: ok
// VJP90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules

func.func @gelu(%x: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %c = jx.constant dense<-0.707106769> : tensor<64x128xf32>
  %half = jx.constant dense<0.5> : tensor<64x128xf32>
  %0 = jx.mul %c, %x : tensor<64x128xf32>
  %1 = jx.erfc %0 : tensor<64x128xf32>
  %2 = jx.mul %half, %x : tensor<64x128xf32>
  %3 = jx.mul %2, %1 : tensor<64x128xf32>
  %4 = jx.erf %x : tensor<64x128xf32>
  return %3, %4 : tensor<64x128xf32>, tensor<64x128xf32>
}
