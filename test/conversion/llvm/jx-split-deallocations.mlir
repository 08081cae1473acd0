// RUN: cotangent-opt %s --pass-pipeline="builtin.module(func.func(jx-split-deallocations))" --split-input-file --allow-unregistered-dialect | FileCheck %s

// Two allocations nothing else comes from are freed on their own, with
// their conditions; the returned buffer and the view of it stay together
// in the op that retains it, which keeps its result.
// CHECK-LABEL: func.func @straight_line
// CHECK-SAME:      (%[[C:.*]]: i1)
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[R:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[V:.*]] = memref.subview %[[R]]
// CHECK-NEXT:    bufferization.dealloc (%[[A]] : memref<8xf32>) if (%[[C]])
// CHECK-NEXT:    bufferization.dealloc (%[[B]] : memref<8xf32>) if (%true)
// CHECK-NEXT:    %[[KEPT:.*]] = bufferization.dealloc (%[[R]], %[[V]] : memref<8xf32>, memref<4xf32, strided<[1]>>) if (%true, %true) retain (%[[R]] : memref<8xf32>)
// CHECK-NEXT:    "test.use"(%[[KEPT]])
func.func @straight_line(%c: i1) -> memref<8xf32> {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %r = memref.alloc() : memref<8xf32>
  %v = memref.subview %r[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %kept = bufferization.dealloc (%a, %b, %r, %v : memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<4xf32, strided<[1]>>)
      if (%c, %true, %true, %true) retain (%r : memref<8xf32>)
  "test.use"(%kept) : (i1) -> ()
  return %r : memref<8xf32>
}

// -----

// A retained value of unknown origin (a call's result may be any buffer the
// function passed it): the op stays whole.
// CHECK-LABEL: func.func @unknown_origin
// CHECK:         bufferization.dealloc (%{{.*}}, %{{.*}} : memref<8xf32>, memref<8xf32>) if (%true, %true) retain (%{{.*}} : memref<8xf32>)
// CHECK-NOT:     bufferization.dealloc
func.func private @pick(memref<8xf32>) -> memref<8xf32>
func.func @unknown_origin() -> memref<8xf32> {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %p = func.call @pick(%a) : (memref<8xf32>) -> memref<8xf32>
  %kept = bufferization.dealloc (%a, %b : memref<8xf32>, memref<8xf32>) if (%true, %true) retain (%p : memref<8xf32>)
  return %p : memref<8xf32>
}

// -----

// Two operands from one allocation (freed once, by upstream's
// deduplication) and an argument's view stay; the lone allocation goes.
// CHECK-LABEL: func.func @shared_origin
// CHECK-SAME:      (%[[ARG:.*]]: memref<8xf32>)
// CHECK:         %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[CAST:.*]] = memref.cast %[[A]]
// CHECK-NEXT:    bufferization.dealloc (%[[B]] : memref<8xf32>) if (%true)
// CHECK-NEXT:    bufferization.dealloc (%[[A]], %[[CAST]], %[[ARG]] : {{.*}}) if (%true, %true, %true) retain (%[[ARG]] : memref<8xf32>)
func.func @shared_origin(%arg: memref<8xf32>) -> memref<8xf32> {
  %true = arith.constant true
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %cast = memref.cast %a : memref<8xf32> to memref<?xf32>
  %kept = bufferization.dealloc (%a, %cast, %b, %arg : memref<8xf32>, memref<?xf32>, memref<8xf32>, memref<8xf32>)
      if (%true, %true, %true, %true) retain (%arg : memref<8xf32>)
  return %arg : memref<8xf32>
}
