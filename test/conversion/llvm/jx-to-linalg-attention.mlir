// RUN: cotangent-opt %s --split-input-file --jx-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s
// RUN: not cotangent-opt %S/Inputs/attention-bf16.mlir --jx-to-linalg --one-shot-bufferize="bufferize-function-boundaries" 2>&1 | FileCheck %s --check-prefix=BF16
// jx-to-linalg keeps f32 fused attention; one-shot bufferization gives each
// result a new buffer and makes the op one call of the runtime's kernel
// (runtime/cpu/Attention.h), every buffer passed as a fully dynamic strided
// descriptor (q, k, v read where they are: here views of one projection,
// never copied), then causal as an i64 and the scale as an f32. The
// kernels are f32 only: other types must be expanded first (a located error).

// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[QKV:.*]]: memref<2x8x192xf32>)
// CHECK-NOT: memref.copy
// CHECK: %[[O:.*]] = memref.alloc() {{.*}} : memref<2x8x4x16xf32>
// CHECK: %[[L:.*]] = memref.alloc() {{.*}} : memref<2x4x8xf32>
// CHECK: call @cotangent_attention_fwd_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %cst) : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i64, f32) -> ()
// CHECK: return %[[O]], %[[L]]
// CHECK: func.func private @cotangent_attention_fwd_f32({{.*}}) attributes {llvm.emit_c_interface}
func.func @forward(%qkv: tensor<2x8x192xf32>) -> (tensor<2x8x4x16xf32>, tensor<2x4x8xf32>) {
  %q = jx.slice %qkv, start = [0, 0, 0], limit = [2, 8, 64], strides = [1, 1, 1] : tensor<2x8x192xf32> -> tensor<2x8x64xf32>
  %k = jx.slice %qkv, start = [0, 0, 64], limit = [2, 8, 128], strides = [1, 1, 1] : tensor<2x8x192xf32> -> tensor<2x8x64xf32>
  %v = jx.slice %qkv, start = [0, 0, 128], limit = [2, 8, 192], strides = [1, 1, 1] : tensor<2x8x192xf32> -> tensor<2x8x64xf32>
  %q4 = jx.reshape %q : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %k4 = jx.reshape %k : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %v4 = jx.reshape %v : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %o, %lse = jx.dot_product_attention %q4, %k4, %v4, scale = 0.25 causal
      : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>
  return %o, %lse : tensor<2x8x4x16xf32>, tensor<2x4x8xf32>
}

// -----

// The backward: three new buffers, one call, not causal.
// CHECK-LABEL: func.func @backward
// CHECK-COUNT-3: memref.alloc() {{.*}} : memref<1x4x2x8xf32>
// CHECK: call @cotangent_attention_bwd_f32({{.*}}, %c0_i64, %cst)
// CHECK: func.func private @cotangent_attention_bwd_f32({{.*}}) attributes {llvm.emit_c_interface}
func.func @backward(%q: tensor<1x4x2x8xf32>, %lse: tensor<1x2x4xf32>)
    -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>) {
  %dq, %dk, %dv = jx.dot_product_attention_grad %q, %q, %q, %q, %lse, %q, scale = 0.5
      : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>,
        tensor<1x2x4xf32>, tensor<1x4x2x8xf32>
  return %dq, %dk, %dv : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>
}

// BF16: error: the compiled attention kernels are f32: run --jx-expand-composites first for 'tensor<1x4x2x8xbf16>'
