// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-gpu-tile-parallel-loops))" | FileCheck %s
// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-gpu-tile-parallel-loops{threads-per-block=64}))" | FileCheck %s --check-prefix=T64

// A 8x32 loop: dimensions reversed (columns first), one 32x8 block; the
// inner loop has constant bounds.
// CHECK-LABEL: func.func @two_d
// CHECK:         %[[BX:.*]] = arith.muli %c1, %c32
// CHECK:         %[[BY:.*]] = arith.muli %c1, %c8
// CHECK:         scf.parallel (%[[J:.*]], %[[I:.*]]) = (%c0, %c0) to (%c32, %c8) step (%[[BX]], %[[BY]])
// CHECK:           scf.parallel (%[[TJ:.*]], %[[TI:.*]]) = (%{{.*}}, %{{.*}}) to (%[[BX]], %[[BY]]) step (%c1, %c1)
// CHECK:             %[[COL:.*]] = arith.addi %[[TJ]], %[[J]]
// CHECK:             %[[ROW:.*]] = arith.addi %[[TI]], %[[I]]
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]] : memref<8x32xf32>
// With 64 threads: 32 columns by 2 rows.
// T64-LABEL: func.func @two_d
// T64:         arith.muli %c1, %c32
// T64:         arith.muli %c1, %c2
func.func @two_d(%m: memref<8x32xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c32) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<8x32xf32>
    scf.reduce
  }
  return
}

// 1000 elements in blocks of 256: the last block is guarded.
// CHECK-LABEL: func.func @ragged
// CHECK:         %[[B:.*]] = arith.muli %c1, %c256
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c1000) step (%[[B]])
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[B]]) step (%c1)
// CHECK:             arith.cmpi ult, %{{.*}}, %c1000
// CHECK:             scf.if
func.func @ragged(%m: memref<1000xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}

// A dynamic trip count is left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%arg2) step (%c1) {
// CHECK-NOT:       scf.parallel
func.func @dynamic(%m: memref<?xf32>, %v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// 100000 x 16 x 16: a 16 x 16 block per z index would take 100000 blocks
// along z (the hardware launches 65535): the loop becomes one dimension of
// 25600000 points in blocks of 256, each thread dividing its index back.
// CHECK-LABEL: func.func @many_blocks
// CHECK:         %[[B:.*]] = arith.muli %c1{{.*}}, %c256
// CHECK:         scf.parallel (%[[L0:.*]]) = (%c0{{.*}}) to (%c25600000) step (%[[B]])
// CHECK:           scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[B]]) step (%c1{{.*}})
// CHECK:             %[[L:.*]] = arith.addi %[[T]], %[[L0]]
// CHECK:             %[[K:.*]] = arith.remui %[[L]], %c16
// CHECK:             %[[R:.*]] = arith.divui %[[L]], %c16
// CHECK:             %[[J:.*]] = arith.remui %[[R]], %c16
// CHECK:             %[[I:.*]] = arith.divui %[[R]], %c16
// CHECK:             memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<100000x16x16xf32>
// The same loop of 60000 keeps its three dimensions.
// CHECK-LABEL: func.func @fewer_blocks
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%c0, %c0, %c0) to (%c16, %c16, %c60000)
func.func @many_blocks(%m: memref<100000x16x16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = arith.constant 100000 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%n, %c16, %c16) step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<100000x16x16xf32>
    scf.reduce
  }
  return
}
func.func @fewer_blocks(%m: memref<60000x16x16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = arith.constant 60000 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%n, %c16, %c16) step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<60000x16x16xf32>
    scf.reduce
  }
  return
}
