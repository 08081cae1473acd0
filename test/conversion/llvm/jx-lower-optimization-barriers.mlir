// RUN: cotangent-opt %s -split-input-file -verify-diagnostics --jx-lower-optimization-barriers | FileCheck %s

// The barrier's call (what jx-to-linalg makes of jx.optimization_barrier,
// after bufferization) becomes one side-effecting inline asm per buffer,
// which takes the buffer's aligned pointer and clobbers memory; the results
// are the operands themselves (cast where the result's layout differs), and
// the declaration is erased. The load after the barrier stays a second load:
// LLVM must assume the asm rewrote the buffer.
// CHECK-NOT:   @__jx_optimization_barrier_0
// CHECK-LABEL: func.func @recompute
// CHECK-SAME:    (%[[M:.*]]: memref<5xf32>, %[[N:.*]]: memref<2x3xf64>)
// CHECK:         %[[BEFORE:.*]] = memref.load %[[M]]
// CHECK:         %[[MI:.*]] = memref.extract_aligned_pointer_as_index %[[M]] : memref<5xf32> -> index
// CHECK:         %[[MI64:.*]] = arith.index_cast %[[MI]] : index to i64
// CHECK:         %[[MP:.*]] = llvm.inttoptr %[[MI64]] : i64 to !llvm.ptr
// CHECK:         llvm.inline_asm has_side_effects "", "r,~{memory}" %[[MP]] : (!llvm.ptr) -> ()
// CHECK:         %[[NI:.*]] = memref.extract_aligned_pointer_as_index %[[N]]
// CHECK:         %[[NI64:.*]] = arith.index_cast %[[NI]] : index to i64
// CHECK:         %[[NP:.*]] = llvm.inttoptr %[[NI64]] : i64 to !llvm.ptr
// CHECK:         llvm.inline_asm has_side_effects "", "r,~{memory}" %[[NP]] : (!llvm.ptr) -> ()
// CHECK:         %[[CAST:.*]] = memref.cast %[[N]] : memref<2x3xf64> to memref<2x3xf64, strided<[?, ?], offset: ?>>
// CHECK-NOT:     call @__jx_optimization_barrier_0
// CHECK:         %[[AFTER:.*]] = memref.load %[[M]]
// CHECK:         call @consume(%[[M]])
// CHECK:         arith.addf %[[BEFORE]], %[[AFTER]]
// CHECK:         return %{{.*}}, %[[CAST]]
func.func private @__jx_optimization_barrier_0(memref<5xf32>, memref<2x3xf64>) -> (memref<5xf32>, memref<2x3xf64, strided<[?, ?], offset: ?>>)
func.func private @consume(memref<5xf32>)

func.func @recompute(%m: memref<5xf32>, %n: memref<2x3xf64>) -> (f32, memref<2x3xf64, strided<[?, ?], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %before = memref.load %m[%c0] : memref<5xf32>
  %r:2 = call @__jx_optimization_barrier_0(%m, %n) : (memref<5xf32>, memref<2x3xf64>) -> (memref<5xf32>, memref<2x3xf64, strided<[?, ?], offset: ?>>)
  %after = memref.load %r#0[%c0] : memref<5xf32>
  call @consume(%r#0) : (memref<5xf32>) -> ()
  %s = arith.addf %before, %after : f32
  return %s, %r#1 : f32, memref<2x3xf64, strided<[?, ?], offset: ?>>
}

// -----

// Before bufferization there is no buffer to take the address of.
func.func private @__jx_optimization_barrier_0(tensor<3xf32>) -> tensor<3xf32>

func.func @too_early(%t: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{optimization barrier on a non-buffer value 'tensor<3xf32>'}}
  %0 = call @__jx_optimization_barrier_0(%t) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
