// RUN: cotangent-opt %s --jx-inline-into-c-interface | FileCheck %s

// A function with a C interface wrapper is compiled inside it: internal
// linkage (no packed entry of its own) and always_inline. The wrapper and
// functions without one are left as they are.

// CHECK-LABEL: llvm.func internal @step(
// CHECK-SAME:    always_inline
llvm.func @step(%a: !llvm.ptr, %b: i64) -> i64 {
  llvm.return %b : i64
}
// CHECK-LABEL: llvm.func @_mlir_ciface_step(
// CHECK-NOT:     always_inline
// CHECK:         llvm.call @step
llvm.func @_mlir_ciface_step(%d: !llvm.ptr) -> i64 {
  %0 = llvm.load %d : !llvm.ptr -> i64
  %1 = llvm.call @step(%d, %0) : (!llvm.ptr, i64) -> i64
  llvm.return %1 : i64
}

// CHECK-LABEL: llvm.func @helper(
// CHECK-NOT:     always_inline
llvm.func @helper(%b: i64) -> i64 {
  llvm.return %b : i64
}

// A wrapper of an external function: nothing to inline.
// CHECK-LABEL: llvm.func @external(i64) -> i64
llvm.func @external(i64) -> i64
llvm.func @_mlir_ciface_external(%b: i64) -> i64 {
  %0 = llvm.call @external(%b) : (i64) -> i64
  llvm.return %0 : i64
}
