// memory_budget prices a collective it would rebuild by the bytes it moves
// between ranks (kFlopsPerCommunicatedByte = 256 FLOPs a byte,
// passes/remat/MemoryBudget.h): an FSDP step's re-gathered weight (4x64
// f32, half of it from the other rank: 512 bytes, 131072 FLOPs) against a
// 4x64x64 dot (32768 FLOPs). The budget (0.96 of the peak) drops one 1 KiB
// residual: it keeps the gathered weight and recomputes the dot, where
// counting the gather by its elements (256) would re-gather instead.
// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: memory_budget: peak 22016 of 22118 bytes (23040 without remat), recomputing 32768 FLOPs in 1 of 7 ops
// CHECK-LABEL: saved residuals of @step
// CHECK-DAG: f32[4,64] output of all_gather
// CHECK-DAG: f32[4,64] from the argument arg2
// CHECK-NOT: output of dot_general
// CHECK: total: 4 residuals, 20480 bytes
func.func @step(%ws: tensor<2x64xf32>, %x: tensor<8x64xf32>, %v: tensor<4x64xf32>, %m: tensor<64x64xf32>) -> tensor<f32> {
  %r = jx.remat(%ws, %x, %v, %m) : (tensor<2x64xf32>, tensor<8x64xf32>, tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<f32>
      policy = #jx.policy<memory_budget(0.96)> {
  ^bb0(%a: tensor<2x64xf32>, %b: tensor<8x64xf32>, %c: tensor<4x64xf32>, %d: tensor<64x64xf32>):
    %wf = jx.all_gather %a, axis = "data"(2), dimension = 0 tiled : tensor<2x64xf32> -> tensor<4x64xf32>
    %h = jx.dot_general %b, %wf, contracting_dims = [1] x [1], batch_dims = [] x [] : tensor<8x64xf32>, tensor<4x64xf32> -> tensor<8x4xf32>
    %s0 = jx.reduce_sum %h, axes = [0, 1] : tensor<8x4xf32> -> tensor<f32>
    %q = jx.dot_general %c, %d, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
    %p = jx.mul %q, %q : tensor<4x64xf32>
    %s1 = jx.reduce_sum %p, axes = [0, 1] : tensor<4x64xf32> -> tensor<f32>
    %s = jx.add %s0, %s1 : tensor<f32>
    jx.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}
