// RUN: cotangent-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jx-alias-argument-results))' | FileCheck %s

// A forward that hands its arguments to the backward: the deallocation
// pipeline returned each as a clone; they are returned as themselves. The
// matmul only reads them (the runtime's BLAS call writes its last operand).
func.func private @cotangent_batch_matmul_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-LABEL: func.func @fwd(
// CHECK-SAME:    %[[X:.*]]: memref<4x8xf32>, %[[W:.*]]: memref<8x8xf32>)
// CHECK-NOT:     bufferization.clone
// CHECK:         return %{{.*}}, %[[X]], %[[W]] :
func.func @fwd(%x: memref<4x8xf32>, %w: memref<8x8xf32>) -> (memref<1x4x8xf32>, memref<4x8xf32>, memref<8x8xf32>) {
  %ex = memref.expand_shape %x [[0, 1], [2]] output_shape [1, 4, 8] : memref<4x8xf32> into memref<1x4x8xf32>
  %ew = memref.expand_shape %w [[0, 1], [2]] output_shape [1, 8, 8] : memref<8x8xf32> into memref<1x8x8xf32>
  %out = memref.alloc() : memref<1x4x8xf32>
  %a = memref.cast %ex : memref<1x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  %b = memref.cast %ew : memref<1x8x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  %c = memref.cast %out : memref<1x4x8xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  call @cotangent_batch_matmul_f32(%a, %b, %c) : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
  %0 = bufferization.clone %x : memref<4x8xf32> to memref<4x8xf32>
  %1 = bufferization.clone %w : memref<8x8xf32> to memref<8x8xf32>
  return %out, %0, %1 : memref<1x4x8xf32>, memref<4x8xf32>, memref<8x8xf32>
}

// -----

// Written into (here through a view, by a linalg op): the copy stays, or the
// caller would see its buffer change.
// CHECK-LABEL: func.func @written(
// CHECK:         %[[C:.*]] = bufferization.clone %arg0
// CHECK:         linalg.fill
// CHECK:         return %[[C]]
func.func @written(%x: memref<4xf32>) -> memref<4xf32> {
  %c = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  %v = memref.subview %x[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%v : memref<2xf32, strided<[1]>>)
  return %c : memref<4xf32>
}

// -----

// Passed to a function that may write into it: the copy stays.
func.func private @unknown(memref<4xf32>)
// CHECK-LABEL: func.func @called(
// CHECK:         bufferization.clone %arg0
func.func @called(%x: memref<4xf32>) -> memref<4xf32> {
  %c = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  call @unknown(%x) : (memref<4xf32>) -> ()
  return %c : memref<4xf32>
}

// -----

// The clone has another use: it stays.
// CHECK-LABEL: func.func @two_uses(
// CHECK:         %[[C:.*]] = bufferization.clone %arg0
// CHECK:         return %[[C]], %[[C]]
func.func @two_uses(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %c = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  return %c, %c : memref<4xf32>, memref<4xf32>
}

// -----

// Written into, but donated to the result that returns it: its buffer holds
// that result, which is returned as the argument itself. The clone of the
// other result stays (its caller must own a copy).
// CHECK-LABEL: func.func @donated(
// CHECK-SAME:    %[[P:[^:]*]]: memref<8xf32>)
// CHECK:         %[[C:.*]] = bufferization.clone %[[P]]
// CHECK:         return %[[P]], %[[C]] :
func.func @donated(%p: memref<8xf32> {jx.donated_to = 0 : i64}) -> (memref<8xf32>, memref<8xf32>) {
  %cst = arith.constant 1.000000e+00 : f32
  linalg.fill ins(%cst : f32) outs(%p : memref<8xf32>)
  %0 = bufferization.clone %p : memref<8xf32> to memref<8xf32>
  %1 = bufferization.clone %p : memref<8xf32> to memref<8xf32>
  return %0, %1 : memref<8xf32>, memref<8xf32>
}
