// The MLP with relu (first layer under nothing_saveable): the PTX that --jx-to-nvvm emits for the function and for its
// VJP after --jx-vjp --jx-remat (@mlp_fwd, @mlp_bwd, @mlp_vjp) is
// accepted by ptxas for sm_90 and, compiled for chip=sm_80, for sm_80.
// REQUIRES: ptxas
// RUN: cotangent-opt %S/Inputs/mlp-relu.mlir --jx-to-nvvm="format=isa" -o %t.90.mlir
// RUN: %check-ptx %t.90.mlir --arch sm_90 --out-dir %t.90 | FileCheck %s --check-prefix=SM90
// RUN: cotangent-opt %S/Inputs/mlp-relu.mlir --jx-to-nvvm="chip=sm_80 format=isa" -o %t.80.mlir
// RUN: %check-ptx %t.80.mlir --arch sm_80 --out-dir %t.80 | FileCheck %s --check-prefix=SM80
// RUN: cotangent-opt %S/Inputs/mlp-relu.mlir --jx-vjp --jx-remat -o %t.vjp.mlir
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="format=isa" -o %t.vjp90.mlir
// RUN: %check-ptx %t.vjp90.mlir --arch sm_90 --out-dir %t.vjp90 | FileCheck %s --check-prefix=VJP90
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="chip=sm_80 format=isa" -o %t.vjp80.mlir
// RUN: %check-ptx %t.vjp80.mlir --arch sm_80 --out-dir %t.vjp80 | FileCheck %s --check-prefix=VJP80
// Elementwise kernels read and write 16 bytes per access (jx-gpu-vectorize-accesses);
// with vector-bytes=0, 4.
// RUN: cat %t.vjp90/*.ptx | FileCheck %s --check-prefix=V4
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="format=isa vector-bytes=0" -o %t.scalar.mlir
// RUN: %check-ptx %t.scalar.mlir --arch sm_90 --out-dir %t.scalar > /dev/null
// RUN: cat %t.scalar/*.ptx | FileCheck %s --check-prefix=SCALAR
// V4-DAG:     ld.global.v4.b32
// V4-DAG:     st.global.v4.b32
// SCALAR-NOT: .v4.
// SCALAR:     st.global.b32

// SM90: mlp_kernel: .target sm_90 entries mlp_kernel: ok
// SM90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// SM80: mlp_kernel: .target sm_80 entries mlp_kernel: ok
// SM80: ptxas -arch=sm_80 accepted {{[1-9][0-9]*}} modules
// VJP90-DAG: mlp_{{(fwd_)?}}kernel{{(_[0-9]+)?}}: .target sm_90 entries mlp_{{(fwd_)?}}kernel: ok
// VJP90-DAG: mlp_bwd_kernel{{(_[0-9]+)?}}: .target sm_90 entries mlp_bwd_kernel: ok
// VJP90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// VJP80-DAG: mlp_bwd_kernel{{(_[0-9]+)?}}: .target sm_80 entries mlp_bwd_kernel: ok
// VJP80: ptxas -arch=sm_80 accepted {{[1-9][0-9]*}} modules
