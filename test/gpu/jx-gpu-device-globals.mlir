// RUN: cotangent-opt %s --jx-gpu-device-globals --split-input-file --verify-diagnostics | FileCheck %s

// The address of a constant global (4x4 f32: 64 bytes) becomes its device
// copy's; a mutable global is left alone.
// CHECK-LABEL: llvm.func @host
// CHECK:         %[[HOST:.*]] = llvm.mlir.addressof @__constant_4x4xf32 : !llvm.ptr
// CHECK:         %[[BYTES:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK:         %[[DEV:.*]] = llvm.call @cotangent_cuda_device_global(%[[HOST]], %[[BYTES]])
// CHECK:         llvm.insertvalue %[[DEV]]
// CHECK:         %[[MUT:.*]] = llvm.mlir.addressof @counter
// CHECK-NOT:     cotangent_cuda_device_global
// CHECK:         llvm.return
// CHECK:       llvm.func @cotangent_cuda_device_global(!llvm.ptr, i64) -> !llvm.ptr
llvm.mlir.global private constant @__constant_4x4xf32(dense<1.0> : tensor<4x4xf32>) : !llvm.array<4 x array<4 x f32>>
llvm.mlir.global private @counter(0 : i64) : i64
llvm.func @host() -> !llvm.struct<(ptr, ptr)> {
  %0 = llvm.mlir.addressof @__constant_4x4xf32 : !llvm.ptr
  %1 = llvm.mlir.undef : !llvm.struct<(ptr, ptr)>
  %2 = llvm.insertvalue %0, %1[1] : !llvm.struct<(ptr, ptr)>
  %3 = llvm.mlir.addressof @counter : !llvm.ptr
  %4 = llvm.insertvalue %3, %2[0] : !llvm.struct<(ptr, ptr)>
  llvm.return %4 : !llvm.struct<(ptr, ptr)>
}

// -----

// expected-error @+1 {{kernels cannot read this constant: unsupported type}}
llvm.mlir.global private constant @pair(dense<1> : tensor<2xi32>) : !llvm.struct<(i32, i32)>
llvm.func @host() -> !llvm.ptr {
  %0 = llvm.mlir.addressof @pair : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
