// RUN: cotangent-opt %s --split-input-file --jx-gpu-parallel-scatters | FileCheck %s
// RUN: cotangent-opt %s --split-input-file --jx-to-nvvm | FileCheck %s --check-prefix=NVVM

// jx.scatter_add's loop over its indices, each adding one row in place:
// the parallel loop over the row's columns comes outside, the loop over the
// indices (in their order) inside it, with the index read on the device.
// CHECK-LABEL: func.func @rows
// CHECK:         scf.parallel (%[[S:.*]]) = (%c0) to (%c16) step (%c1) {
// CHECK-NEXT:      scf.for %[[K:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:        %[[I:.*]] = memref.load %arg0[%[[K]]] : memref<8xi32>
// CHECK:             %[[ROW:.*]] = memref.subview %arg2[%{{.*}}, 0] [1, 16] [1, 1]
// CHECK:             memref.load %[[ROW]][%[[S]]]
// CHECK:             memref.store %{{.*}}, %[[ROW]][%[[S]]]
// CHECK-NOT:     scf.for
// NVVM-LABEL: llvm.func @rows
// NVVM-COUNT-1: gpu.launch_func
// NVVM-NOT:     cotangent_cuda_read_scalar
func.func @rows(%ids: memref<8xi32>, %upd: memref<8x16xf32>, %out: memref<100x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c99 = arith.constant 99 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %i = memref.load %ids[%k] : memref<8xi32>
    %ix = arith.index_cast %i : i32 to index
    %lo = arith.maxsi %ix, %c0 : index
    %row = arith.minsi %lo, %c99 : index
    %u = memref.subview %upd[%k, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%row, 0] [1, 16] [1, 1] : memref<100x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    scf.parallel (%s) = (%c0) to (%c16) step (%c1) {
      %a = memref.load %u[%s] : memref<16xf32, strided<[1], offset: ?>>
      %b = memref.load %o[%s] : memref<16xf32, strided<[1], offset: ?>>
      %sum = arith.addf %b, %a : f32
      memref.store %sum, %o[%s] : memref<16xf32, strided<[1], offset: ?>>
      scf.reduce
    }
  }
  return
}

// -----

// Rows of one element (a gather's flat gradient): the whole loop runs in
// one thread, in order (repeated indices accumulate as on the CPU).
// CHECK-LABEL: func.func @elements
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT:      scf.for
// CHECK:             memref.store
// NVVM-LABEL: llvm.func @elements
// NVVM-COUNT-1: gpu.launch_func
// NVVM-NOT:     cotangent_cuda_read_scalar
func.func @elements(%ids: memref<8xi32>, %upd: memref<8xf32>, %out: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c99 = arith.constant 99 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %i = memref.load %ids[%k] : memref<8xi32>
    %ix = arith.index_cast %i : i32 to index
    %row = arith.minsi %ix, %c99 : index
    %u = memref.subview %upd[%k] [1] [1] : memref<8xf32> to memref<f32, strided<[], offset: ?>>
    %o = memref.subview %out[%row] [1] [1] : memref<100xf32> to memref<f32, strided<[], offset: ?>>
    %a = memref.load %u[] : memref<f32, strided<[], offset: ?>>
    %b = memref.load %o[] : memref<f32, strided<[], offset: ?>>
    %sum = arith.addf %b, %a : f32
    memref.store %sum, %o[] : memref<f32, strided<[], offset: ?>>
  }
  return
}

// -----

// Not a row: the store's view is a column of the output, whose positions
// another index's row could reach at another thread's element. Left alone.
// CHECK-LABEL: func.func @not_a_row
// NVVM-LABEL: llvm.func @not_a_row
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK:           scf.parallel
func.func @not_a_row(%ids: memref<8xi32>, %out: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.for %k = %c0 to %c8 step %c1 {
    %i = memref.load %ids[%k] : memref<8xi32>
    %col = arith.index_cast %i : i32 to index
    %o = memref.subview %out[0, %col] [8, 1] [1, 1] : memref<16x16xf32> to memref<8xf32, strided<[16], offset: ?>>
    scf.parallel (%s) = (%c0) to (%c8) step (%c1) {
      memref.store %one, %o[%s] : memref<8xf32, strided<[16], offset: ?>>
      scf.reduce
    }
  }
  return
}

// -----

// Loads of what the loop writes outside the row loop (the host reads it):
// left alone.
// CHECK-LABEL: func.func @reads_written
// CHECK:         scf.for
// CHECK:           scf.parallel
func.func @reads_written(%out: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %first = memref.load %out[%c0, %c0] : memref<8x16xf32>
    %o = memref.subview %out[%k, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    scf.parallel (%s) = (%c0) to (%c16) step (%c1) {
      memref.store %first, %o[%s] : memref<16xf32, strided<[1], offset: ?>>
      scf.reduce
    }
  }
  return
}
