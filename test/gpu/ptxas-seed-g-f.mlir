// The seed's g/f: the PTX that --jx-to-nvvm emits for the function and for its
// VJP after --jx-vjp --jx-remat (@f_fwd, @f_bwd, @f_vjp) is
// accepted by ptxas for sm_90 and, compiled for chip=sm_80, for sm_80.
// REQUIRES: ptxas
// RUN: cotangent-opt %S/Inputs/seed-g-f.mlir --jx-to-nvvm="format=isa" -o %t.90.mlir
// RUN: %check-ptx %t.90.mlir --arch sm_90 --out-dir %t.90 | FileCheck %s --check-prefix=SM90
// RUN: cotangent-opt %S/Inputs/seed-g-f.mlir --jx-to-nvvm="chip=sm_80 format=isa" -o %t.80.mlir
// RUN: %check-ptx %t.80.mlir --arch sm_80 --out-dir %t.80 | FileCheck %s --check-prefix=SM80
// RUN: cotangent-opt %S/Inputs/seed-g-f.mlir --jx-vjp --jx-remat -o %t.vjp.mlir
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="format=isa" -o %t.vjp90.mlir
// RUN: %check-ptx %t.vjp90.mlir --arch sm_90 --out-dir %t.vjp90 | FileCheck %s --check-prefix=VJP90
// RUN: cotangent-opt %t.vjp.mlir --jx-to-nvvm="chip=sm_80 format=isa" -o %t.vjp80.mlir
// RUN: %check-ptx %t.vjp80.mlir --arch sm_80 --out-dir %t.vjp80 | FileCheck %s --check-prefix=VJP80

// SM90: f_kernel: .target sm_90 entries f_kernel: ok
// SM90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// SM80: f_kernel: .target sm_80 entries f_kernel: ok
// SM80: ptxas -arch=sm_80 accepted {{[1-9][0-9]*}} modules
// VJP90-DAG: f_fwd_kernel: .target sm_90 entries f_fwd_kernel: ok
// VJP90-DAG: f_bwd_kernel{{(_[0-9]+)?}}: .target sm_90 entries f_bwd_kernel: ok
// VJP90: ptxas -arch=sm_90 accepted {{[1-9][0-9]*}} modules
// VJP80-DAG: f_bwd_kernel{{(_[0-9]+)?}}: .target sm_80 entries f_bwd_kernel: ok
// VJP80: ptxas -arch=sm_80 accepted {{[1-9][0-9]*}} modules
