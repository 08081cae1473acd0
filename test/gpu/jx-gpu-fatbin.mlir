// REQUIRES: ptxas
// RUN: cotangent-opt %s --jx-to-nvvm="chip=sm_80,sm_90" | FileCheck %s
// RUN: not cotangent-opt %s --jx-to-nvvm="chip=sm_80,sm_90 format=isa" 2>&1 | FileCheck %s --check-prefix=ISA

// Two chips: each kernel's gpu.binary holds one object, a fat binary (its
// magic 0xBA55ED50, little endian) under the first chip's target, packed
// from one cubin per chip; the default format (fatbin) is not printed.
// CHECK:     gpu.binary @f_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{.*}}, "P\EDU\BA
// CHECK-NOT: #gpu.object
// CHECK-SAME: ]
// Only cubins can be packed: PTX objects are an error at the kernel.
// ISA: error: a fat binary packs cubins of #nvvm.target objects (format=bin)
func.func @f(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %0 = jx.sin %x : tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
