// A function that takes an argument donated (jit's donate): compiled, the
// result is written over the argument's buffer and the call allocates
// nothing; run again, each run gets its own copy of the donated input, so
// repeated runs give the same result. Without the donation the result is a
// block of its own.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cotangent-run %s --fn update --seed 3 --repeat 3 --warmup 2 --output-dir %t/update | FileCheck %s
// RUN: cotangent-run %s --fn kept --seed 3 --output-dir %t/kept | FileCheck %s --check-prefix=KEPT
// RUN: cmp %t/update/result0.npy %t/kept/result0.npy

// CHECK:      @update: 1 results
// CHECK-NEXT: result 0: f32[1024]
// CHECK:      peak bytes: 0
func.func @update(%p: tensor<1024xf32> {jx.donated_to = 0 : i64}, %g: tensor<1024xf32>) -> tensor<1024xf32> {
  %c = jx.constant dense<0.5> : tensor<1024xf32>
  %0 = jx.mul %g, %c : tensor<1024xf32>
  %1 = jx.sub %p, %0 : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}

// KEPT: peak bytes: 4096
func.func @kept(%p: tensor<1024xf32>, %g: tensor<1024xf32>) -> tensor<1024xf32> {
  %c = jx.constant dense<0.5> : tensor<1024xf32>
  %0 = jx.mul %g, %c : tensor<1024xf32>
  %1 = jx.sub %p, %0 : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}
