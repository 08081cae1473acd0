// RUN: cotangent-opt %s --jx-inline-into-c-interface | FileCheck %s

// A function with a C interface wrapper is compiled inside it: internal
// linkage (no packed entry of its own) and always_inline. The wrapper, a
// straight line of kernel calls once kernels are outlined, is compiled on the
// code generator's fast path (optnone, with the noinline LLVM requires).
// Functions without a wrapper
// are left as they are.

// CHECK-LABEL: llvm.func internal @step(
// CHECK-SAME:    always_inline
llvm.func @step(%a: !llvm.ptr, %b: i64) -> i64 {
  llvm.return %b : i64
}
// CHECK-LABEL: llvm.func @_mlir_ciface_step(
// CHECK-SAME:    no_inline
// CHECK-SAME:    optimize_none
// CHECK-NOT:     always_inline
// CHECK:         llvm.call @step
llvm.func @_mlir_ciface_step(%d: !llvm.ptr) -> i64 {
  %0 = llvm.load %d : !llvm.ptr -> i64
  %1 = llvm.call @step(%d, %0) : (!llvm.ptr, i64) -> i64
  llvm.return %1 : i64
}

// CHECK-LABEL: llvm.func @helper(
// CHECK-NOT:     always_inline
// CHECK-NOT:     optimize_none
llvm.func @helper(%b: i64) -> i64 {
  llvm.return %b : i64
}

// A wrapper of an external function: nothing to inline, nothing changed.
// CHECK-LABEL: llvm.func @external(i64) -> i64
// CHECK-LABEL: llvm.func @_mlir_ciface_external(
// CHECK-NOT:     optimize_none
// CHECK:         llvm.call @external
llvm.func @external(i64) -> i64
llvm.func @_mlir_ciface_external(%b: i64) -> i64 {
  %0 = llvm.call @external(%b) : (i64) -> i64
  llvm.return %0 : i64
}
