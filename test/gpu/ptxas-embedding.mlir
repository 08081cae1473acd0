// An embedding lookup (jx.take) under a tanh, and its VJP, whose table
// gradient is a jx.scatter_add: the PTX --jx-to-nvvm emits for both is
// accepted by ptxas for sm_90.
// REQUIRES: ptxas
// RUN: cotangent-opt %s --jx-to-nvvm="format=isa" -o %t.90.mlir
// RUN: %check-ptx %t.90.mlir --arch sm_90 --out-dir %t.90 | FileCheck %s --check-prefix=SM90
// RUN: cotangent-opt %s --jx-vjp --jx-remat -o %t.vjp.mlir
// RUN: FileCheck %s --check-prefix=VJP < %t.vjp.mlir
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="format=isa" -o %t.vjp90.mlir
// RUN: %check-ptx %t.vjp90.mlir --arch sm_90 --out-dir %t.vjp90 | FileCheck %s --check-prefix=VJP90

// SM90: embed_kernel: .target sm_90 entries embed_kernel: ok
// SM90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// VJP: func.func @embed_bwd(
// VJP:   jx.scatter_add
// VJP90-DAG: embed_{{(fwd_)?}}kernel{{(_[0-9]+)?}}: .target sm_90 entries embed_{{(fwd_)?}}kernel: ok
// VJP90-DAG: embed_bwd_kernel{{(_[0-9]+)?}}: .target sm_90 entries {{.*}}: ok
// VJP90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules

func.func @embed(%table: tensor<1000x64xf32>, %ids: tensor<256xi32>) -> tensor<256x64xf32> {
  %0 = jx.take %table[%ids], axis = 0 : tensor<1000x64xf32>, tensor<256xi32> -> tensor<256x64xf32>
  %1 = jx.tanh %0 : tensor<256x64xf32>
  return %1 : tensor<256x64xf32>
}
