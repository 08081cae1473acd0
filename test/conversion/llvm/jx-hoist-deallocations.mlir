// RUN: cotangent-opt %s --jx-hoist-deallocations | FileCheck %s

// The deallocation pipeline frees a block's buffers at its end, so without
// this pass every intermediate would be live until the function returns.
// Each free moves up to just after the buffer's last use in its block.

func.func private @use(memref<4xf32>)
func.func private @use2(memref<2xf32>)
func.func private @work()

// Two buffers: each is freed right after its own last use, before the work
// that follows.
// CHECK-LABEL: func.func @straight
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         linalg.copy ins(%{{.*}} : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT:    linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    call @use(%[[B]])
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    call @work()
// CHECK-NEXT:    return
func.func @straight(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%out : memref<4xf32>) outs(%a : memref<4xf32>)
  linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  call @use(%b) : (memref<4xf32>) -> ()
  call @work() : () -> ()
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// The last use is through a view of a view: the free waits for it.
// CHECK-LABEL: func.func @through_views
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK:         %[[ROW:.*]] = memref.subview %[[V]]
// CHECK:         call @work()
// CHECK-NEXT:    linalg.copy ins(%[[ROW]] : memref<2xf32, strided<[1], offset: 2>>)
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    call @use2
func.func @through_views(%in: memref<2x2xf32>, %out: memref<2xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  linalg.copy ins(%in : memref<2x2xf32>) outs(%v : memref<2x2xf32>)
  %row = memref.subview %v[1, 0] [1, 2] [1, 1] : memref<2x2xf32> to memref<2xf32, strided<[1], offset: 2>>
  call @work() : () -> ()
  linalg.copy ins(%row : memref<2xf32, strided<[1], offset: 2>>) outs(%out : memref<2xf32>)
  call @use2(%out) : (memref<2xf32>) -> ()
  memref.dealloc %a : memref<4xf32>
  return
}

// A use inside a loop counts as a use by the loop.
// CHECK-LABEL: func.func @nested
// CHECK:         %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         scf.for
// CHECK-NEXT:      linalg.copy ins(%[[A]] : memref<4xf32>)
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    call @work()
func.func @nested(%out: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%out : memref<4xf32>) outs(%a : memref<4xf32>)
  scf.for %i = %c0 to %n step %c1 {
    linalg.copy ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  }
  call @work() : () -> ()
  memref.dealloc %a : memref<4xf32>
  return
}

// Only buffers allocated in the same block move: this one may be used by
// code the pass cannot see.
// CHECK-LABEL: func.func @not_allocated_here
// CHECK:         call @use
// CHECK-NEXT:    call @work()
// CHECK-NEXT:    memref.dealloc
// CHECK-NEXT:    return
func.func @not_allocated_here(%arg: memref<4xf32>) {
  call @use(%arg) : (memref<4xf32>) -> ()
  call @work() : () -> ()
  memref.dealloc %arg : memref<4xf32>
  return
}

func.func private @cotangent_collective_start(i64, i64, i64, index, index, i64, i64, index, i64) -> i64
func.func private @cotangent_collective_wait(i64)

// A buffer handed to a compiled collective (its address taken for
// @cotangent_collective_start) is in use until that collective's wait: its
// free goes after the wait, not after the address.
// CHECK-LABEL: func.func @collective_operand
// CHECK: %[[T:.*]] = call @cotangent_collective_start
// CHECK-NEXT: %[[H:.*]] = memref.alloc()
// CHECK-NEXT: memref.dealloc %[[H]]
// CHECK-NEXT: call @cotangent_collective_wait(%[[T]])
// CHECK-NEXT: memref.dealloc %{{.*}} : memref<4xf32>
// CHECK-NEXT: memref.copy
func.func @collective_operand(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  %two = arith.constant 2 : i64
  %four = arith.constant 4 : i64
  %g = memref.alloc() : memref<4xf32>
  %r = memref.alloc() : memref<8xf32>
  %pg = memref.extract_aligned_pointer_as_index %g : memref<4xf32> -> index
  %pr = memref.extract_aligned_pointer_as_index %r : memref<8xf32> -> index
  %t = func.call @cotangent_collective_start(%two, %z, %four, %pg, %pr, %two, %four, %c0, %z) : (i64, i64, i64, index, index, i64, i64, index, i64) -> i64
  %h = memref.alloc() : memref<8xf32>
  func.call @cotangent_collective_wait(%t) : (i64) -> ()
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %r : memref<8xf32>
  memref.dealloc %g : memref<4xf32>
  memref.dealloc %h : memref<8xf32>
  return
}
