// The MLP whose named pre-activation is offloaded to pinned_host: the PTX that --jx-to-nvvm emits for the function and for its
// VJP after --jx-vjp --jx-remat (@mlp_fwd, @mlp_bwd, @mlp_vjp) is
// accepted by ptxas for sm_90 and, compiled for chip=sm_80, for sm_80.
// REQUIRES: ptxas
// RUN: cotangent-opt %S/Inputs/mlp-offload.mlir --jx-to-nvvm="format=isa" -o %t.90.mlir
// RUN: %check-ptx %t.90.mlir --arch sm_90 --out-dir %t.90 | FileCheck %s --check-prefix=SM90
// RUN: cotangent-opt %S/Inputs/mlp-offload.mlir --jx-to-nvvm="chip=sm_80 format=isa" -o %t.80.mlir
// RUN: %check-ptx %t.80.mlir --arch sm_80 --out-dir %t.80 | FileCheck %s --check-prefix=SM80
// RUN: cotangent-opt %S/Inputs/mlp-offload.mlir --jx-vjp --jx-remat -o %t.vjp.mlir
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="format=isa" -o %t.vjp90.mlir
// RUN: %check-ptx %t.vjp90.mlir --arch sm_90 --out-dir %t.vjp90 | FileCheck %s --check-prefix=VJP90
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="chip=sm_80 format=isa" -o %t.vjp80.mlir
// RUN: %check-ptx %t.vjp80.mlir --arch sm_80 --out-dir %t.vjp80 | FileCheck %s --check-prefix=VJP80

// SM90: mlp_kernel: .target sm_90 entries mlp_kernel: ok
// SM90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// SM80: mlp_kernel: .target sm_80 entries mlp_kernel: ok
// SM80: ptxas -arch=sm_80 accepted {{[1-9][0-9]*}} modules
// VJP90-DAG: mlp_fwd_kernel: .target sm_90 entries mlp_fwd_kernel: ok
// VJP90-DAG: mlp_bwd_kernel{{(_[0-9]+)?}}: .target sm_90 entries mlp_bwd_kernel: ok
// VJP90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// VJP80-DAG: mlp_bwd_kernel{{(_[0-9]+)?}}: .target sm_80 entries mlp_bwd_kernel: ok
// VJP80: ptxas -arch=sm_80 accepted {{[1-9][0-9]*}} modules
