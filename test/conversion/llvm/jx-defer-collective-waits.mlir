// RUN: cotangent-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(jx-defer-collective-waits))" | FileCheck %s
// Each @cotangent_collective_wait moves down to just before the first op that
// uses the collective's buffers: through views of them, inside nested
// regions, a deallocation included; else to the block's terminator.

func.func private @cotangent_collective_start(i64, i64, i64, index, index, i64, i64, index, i64) -> i64
func.func private @cotangent_collective_wait(i64)

// The gradient's pmean runs while the rest of the backward computes %h;
// the wait lands before the subview through which the update reads it.
// CHECK-LABEL: func.func @step
// CHECK: %[[T:.*]] = call @cotangent_collective_start
// CHECK-NEXT: %[[H:.*]] = memref.alloc()
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[H]]
// CHECK-NEXT: memref.dealloc %[[H]]
// CHECK-NEXT: call @cotangent_collective_wait(%[[T]])
// CHECK-NEXT: memref.subview
func.func @step(%out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %four = arith.constant 4 : i64
  %cst = arith.constant 1.0 : f32
  %g = memref.alloc() : memref<4xf32>
  linalg.fill ins(%cst : f32) outs(%g : memref<4xf32>)
  %p = memref.extract_aligned_pointer_as_index %g : memref<4xf32> -> index
  %t = func.call @cotangent_collective_start(%one, %z, %four, %p, %p, %one, %four, %c0, %z) : (i64, i64, i64, index, index, i64, i64, index, i64) -> i64
  func.call @cotangent_collective_wait(%t) : (i64) -> ()
  %h = memref.alloc() : memref<8xf32>
  linalg.fill ins(%cst : f32) outs(%h : memref<8xf32>)
  memref.dealloc %h : memref<8xf32>
  %v = memref.subview %g[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  memref.copy %v, %out : memref<2xf32, strided<[1]>> to memref<2xf32>
  memref.dealloc %g : memref<4xf32>
  return
}

// -----

func.func private @cotangent_collective_start(i64, i64, i64, index, index, i64, i64, index, i64) -> i64
func.func private @cotangent_collective_wait(i64)

// A use inside a loop waits before the loop; another collective's start on
// other buffers does not stop a wait; a buffer nothing uses again waits at
// the terminator.
// CHECK-LABEL: func.func @nested
// CHECK: %[[T0:.*]] = call @cotangent_collective_start
// CHECK-NEXT: %[[T1:.*]] = call @cotangent_collective_start
// CHECK-NEXT: arith.constant 2.0
// CHECK-NEXT: call @cotangent_collective_wait(%[[T0]])
// CHECK-NEXT: scf.for
// CHECK: call @cotangent_collective_wait(%[[T1]])
// CHECK-NEXT: return
func.func @nested(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %four = arith.constant 4 : i64
  %pa = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  %pb = memref.extract_aligned_pointer_as_index %b : memref<4xf32> -> index
  %t0 = func.call @cotangent_collective_start(%z, %z, %four, %pa, %pa, %one, %four, %c0, %z) : (i64, i64, i64, index, index, i64, i64, index, i64) -> i64
  func.call @cotangent_collective_wait(%t0) : (i64) -> ()
  %t1 = func.call @cotangent_collective_start(%z, %z, %four, %pb, %pb, %one, %four, %c0, %z) : (i64, i64, i64, index, index, i64, i64, index, i64) -> i64
  func.call @cotangent_collective_wait(%t1) : (i64) -> ()
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %two, %a[%i] : memref<4xf32>
  }
  return
}
