// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-gpu-block-reductions,canonicalize))" | FileCheck %s
// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-gpu-block-reductions{min-reduced=1024}))" | FileCheck %s --check-prefix=MIN

// Row sums of a 16x512 matrix: 16 blocks of 256 threads; block %b sums row
// %b, its threads folding columns %t and %t + 256 from 0.0, and thread 0
// adds the total into out[%b].
// CHECK-LABEL: func.func @row_sums
// CHECK:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c16{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK:           %[[SHARE:.*]] = scf.for %[[K:.*]] = %[[T]] to %c512{{.*}} step %c256{{.*}} iter_args(%[[ACC:.*]] = %cst{{.*}})
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[B]], %[[K]]]
// CHECK:             arith.addf %[[ACC]], %[[X]]
// CHECK:           %[[SUM:.*]] = gpu.all_reduce add %[[SHARE]] uniform
// CHECK:           scf.if
// CHECK:             %[[OLD:.*]] = memref.load %arg1[%[[B]]]
// CHECK:             %[[NEW:.*]] = arith.addf %[[OLD]], %[[SUM]]
// CHECK:             memref.store %[[NEW]], %arg1[%[[B]]]
// CHECK-NOT:     scf.parallel
// With min-reduced=1024 the 512-long rows keep one thread each.
// MIN-LABEL: func.func @row_sums
// MIN:         scf.parallel
// MIN-NOT:     gpu.launch
func.func @row_sums(%in: memref<16x512xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %k = %c0 to %c512 step %c1 {
      %a = memref.load %out[%i] : memref<16xf32>
      %x = memref.load %in[%i, %k] : memref<16x512xf32>
      %s = arith.addf %a, %x : f32
      memref.store %s, %out[%i] : memref<16xf32>
    }
    scf.reduce
  }
  return
}

// A max over the last dimension of 4x8x64 (a softmax's): 32 blocks of 64
// threads; the block number is split row-major into the two kept indices.
// CHECK-LABEL: func.func @max_last
// CHECK:         gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32{{.*}}, {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}},
// CHECK:           %[[J:.*]] = arith.remui %[[B]], %c8
// CHECK:           %[[I:.*]] = arith.divui %[[B]], %c8
// CHECK:           memref.load %arg0[%[[I]], %[[J]], %{{.*}}]
// CHECK:           gpu.all_reduce maximumf
// CHECK:             memref.store %{{.*}}, %arg1[%[[I]], %[[J]]]
func.func @max_last(%in: memref<4x8x64xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %a = memref.load %out[%i, %j] : memref<4x8xf32>
      %x = memref.load %in[%i, %j, %k] : memref<4x8x64xf32>
      %m = arith.maximumf %a, %x : f32
      memref.store %m, %out[%i, %j] : memref<4x8xf32>
    }
    scf.reduce
  }
  return
}

// Left alone: 8 reduced iterations (fewer than min-reduced = 32), and a
// body that does more than the reduction.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     gpu.launch
// CHECK:         scf.parallel
// CHECK:         scf.parallel
func.func @left_alone(%in: memref<16x8xf32>, %out: memref<16xf32>, %other: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %a = memref.load %out[%i] : memref<16xf32>
      %x = memref.load %in[%i, %k] : memref<16x8xf32>
      %s = arith.addf %a, %x : f32
      memref.store %s, %out[%i] : memref<16xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %zero, %other[%i] : memref<16xf32>
    scf.for %k = %c0 to %c8 step %c1 {
      %a = memref.load %out[%i] : memref<16xf32>
      %x = memref.load %in[%i, %k] : memref<16x8xf32>
      %s = arith.addf %a, %x : f32
      memref.store %s, %out[%i] : memref<16xf32>
    }
    scf.reduce
  }
  return
}
