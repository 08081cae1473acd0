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
