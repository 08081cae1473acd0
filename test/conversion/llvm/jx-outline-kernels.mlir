// RUN: cotangent-opt %s --jx-outline-kernels | FileCheck %s
// RUN: cotangent-opt %s --jx-outline-kernels --convert-scf-to-cf --finalize-memref-to-llvm \
// RUN:   --convert-math-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// Two layers of the same shape run the same loop nest on other buffers: one
// kernel, called twice. A nest of another shape is a kernel of its own. The
// allocations and frees stay in the caller, in their order.
// CHECK-LABEL: func.func @layers
// CHECK-SAME:      (%[[X:.*]]: memref<4x8xf32>, %[[Y:.*]]: memref<4x8xf32>, %[[Z:.*]]: memref<2xf32>)
// CHECK-NEXT:    %[[A:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    call @[[TANH:jx_kernel[_0-9]*]](%[[X]], %[[A]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:    call @[[TANH]](%[[A]], %[[Y]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK-NEXT:    call @[[OTHER:jx_kernel[_0-9]*]](%[[Z]]) : (memref<2xf32>) -> ()
// CHECK-NEXT:    return
func.func @layers(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<4x8xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %j] : memref<4x8xf32>
      %t = math.tanh %v : f32
      memref.store %t, %a[%i, %j] : memref<4x8xf32>
    }
  }
  // The same nest, its constants and values named otherwise.
  %k0 = arith.constant 0 : index
  %k1 = arith.constant 1 : index
  scf.for %p = %k0 to %c4 step %k1 {
    scf.for %q = %c0 to %c8 step %c1 {
      %w = memref.load %a[%p, %q] : memref<4x8xf32>
      %u = math.tanh %w : f32
      memref.store %u, %y[%p, %q] : memref<4x8xf32>
    }
  }
  memref.dealloc %a : memref<4x8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %v = memref.load %z[%i] : memref<2xf32>
    %s = math.sin %v : f32
    memref.store %s, %z[%i] : memref<2xf32>
  }
  return
}

// A nest that computes a value (a loop-carried sum) returns it; a scalar it
// reads from outside (not a constant) is an argument. Nests inside a branch
// are outlined and the branch stays; the equal nest of @layers is reused
// across functions.
// CHECK-LABEL: func.func @sum_and_branch
// CHECK-SAME:      (%[[X:.*]]: memref<4x8xf32>, %[[Y:.*]]: memref<4x8xf32>, %[[P:.*]]: i1, %[[S:.*]]: f32)
// CHECK-NEXT:    %[[SUM:.*]] = call @[[SUMK:jx_kernel[_0-9]*]](%[[S]], %[[X]]) : (f32, memref<4x8xf32>) -> f32
// CHECK-NEXT:    scf.if %[[P]] {
// CHECK-NEXT:      call @[[TANH]](%[[X]], %[[Y]])
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[SUM]] : f32
func.func @sum_and_branch(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %p: i1, %s0: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %s0) -> (f32) {
    %v = memref.load %x[%i, %c0] : memref<4x8xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  scf.if %p {
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %v = memref.load %x[%i, %j] : memref<4x8xf32>
        %t = math.tanh %v : f32
        memref.store %t, %y[%i, %j] : memref<4x8xf32>
      }
    }
  }
  return %sum : f32
}

// A library call on buffers is a kernel too (its C interface's descriptors
// are packed once, inside it); a call of a function with a body, or one on
// no buffers, stays.
func.func private @cotangent_batch_matmul_f32(memref<1x4x8xf32>, memref<1x8x8xf32>, memref<1x4x8xf32>) attributes {llvm.emit_c_interface}
func.func private @scalar_helper(f32) -> f32
// CHECK-LABEL: func.func @blas
// CHECK-NEXT:    call @[[GEMM:jx_kernel[_0-9]*]](%arg0, %arg1, %arg2)
// CHECK-NEXT:    call @[[GEMM]](%arg2, %arg1, %arg0)
// CHECK-NEXT:    call @scalar_helper(%arg3)
// CHECK-NEXT:    return
func.func @blas(%a: memref<1x4x8xf32>, %b: memref<1x8x8xf32>, %c: memref<1x4x8xf32>, %s: f32) -> f32 {
  call @cotangent_batch_matmul_f32(%a, %b, %c) : (memref<1x4x8xf32>, memref<1x8x8xf32>, memref<1x4x8xf32>) -> ()
  call @cotangent_batch_matmul_f32(%c, %b, %a) : (memref<1x4x8xf32>, memref<1x8x8xf32>, memref<1x4x8xf32>) -> ()
  %r = call @scalar_helper(%s) : (f32) -> f32
  return %r : f32
}

// Four kernels in all, private and kept out of line; the constants each
// uses are its own.
// CHECK:       func.func private @[[TANH]](%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// CHECK-DAG:     arith.constant 0 : index
// CHECK-DAG:     arith.constant 8 : index
// CHECK:         math.tanh
// CHECK:       func.func private @[[OTHER]](%{{.*}}: memref<2xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// CHECK:         math.sin
// CHECK:       func.func private @[[SUMK]](%{{.*}}: f32, %{{.*}}: memref<4x8xf32>) -> f32 attributes {llvm.linkage = #llvm.linkage<internal>, no_inline, passthrough = ["noinline"]}
// CHECK:         scf.for {{.*}} iter_args
// CHECK:         return %{{.*}} : f32
// CHECK:       func.func private @[[GEMM]](%{{.*}}: memref<1x4x8xf32>, %{{.*}}: memref<1x8x8xf32>, %{{.*}}: memref<1x4x8xf32>)
// CHECK-NEXT:    call @cotangent_batch_matmul_f32(
// CHECK-NEXT:    return
// CHECK-NOT:   func.func

// In LLVM, the kernels stay functions of their own that LLVM may not inline.
// LLVM-LABEL: llvm.func @layers
// LLVM:         llvm.call @[[K:jx_kernel[_0-9]*]](
// LLVM:         llvm.call @[[K]](
// LLVM:       llvm.func internal @[[K]]({{.*}}) attributes {passthrough = ["noinline"]
