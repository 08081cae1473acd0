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

// -----

// ppermute's pairs are read by the host runtime (@cotangent_collective_start
// takes their address as an integer): their address stays the host's.
// CHECK-LABEL: llvm.func @permute
// CHECK:         %[[PAIRS:.*]] = llvm.mlir.addressof @__jx_ppermute_pairs
// CHECK-NOT:     cotangent_cuda_device_global
// CHECK:         %[[AT:.*]] = llvm.getelementptr %[[PAIRS]][0, 0]
// CHECK:         %[[INT:.*]] = llvm.ptrtoint %[[AT]]
// CHECK:         llvm.call @cotangent_collective_start(%{{.*}}, %[[INT]])
llvm.mlir.global private constant @__jx_ppermute_pairs(dense<[0, 1, 1, 0]> : tensor<4xi64>) : !llvm.array<4 x i64>
llvm.func @cotangent_collective_start(i64, i64) -> i64
llvm.func @permute(%kind: i64) -> i64 {
  %0 = llvm.mlir.addressof @__jx_ppermute_pairs : !llvm.ptr
  %1 = llvm.getelementptr %0[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i64>
  %2 = llvm.ptrtoint %1 : !llvm.ptr to i64
  %3 = llvm.call @cotangent_collective_start(%kind, %2) : (i64, i64) -> i64
  llvm.return %3 : i64
}
