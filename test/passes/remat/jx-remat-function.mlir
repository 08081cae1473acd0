// --jx-remat-function puts a whole function under one policy: its body moves
// into a jx.remat region whose operands are the arguments. Under
// memory_budget(0.8) the three-layer tanh MLP (16x16 f32, 1 KiB a tensor)
// peaks at 6144 bytes instead of 8192, rebuilding the cheapest values.
// RUN: cotangent-opt %s --jx-remat-function="policy=memory_budget(0.8)" | FileCheck %s
// RUN: cotangent-opt %s --jx-remat-function="policy=memory_budget(0.8)" --jx-vjp --jx-remat --jx-print-memory-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: cotangent-opt %s --jx-remat-function="policy=nothing_saveable function=mlp" --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTHING

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:.*]]: tensor<16x16xf32>, %[[W:.*]]: tensor<16x16xf32>) -> tensor<f32>
// CHECK-NEXT: %[[R:.*]] = jx.remat(%[[X]], %[[W]]) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32> policy = #jx.policy<memory_budget(0.8)> {
// CHECK-NEXT: ^bb0(%[[IX:.*]]: tensor<16x16xf32>, %[[IW:.*]]: tensor<16x16xf32>):
// CHECK-NEXT: jx.dot_general %[[IX]], %[[IW]]
// CHECK-COUNT-5: jx.
// CHECK: %[[S:.*]] = jx.reduce_sum
// CHECK-NEXT: jx.yield %[[S]] : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<f32>

// BUDGET: remark: memory_budget: peak 6144 of 6553 bytes (8192 without remat)
// BUDGET: memory plan of @mlp
// BUDGET-NEXT: peak: 6144 bytes

// Nothing saved: only the arguments remain.
// NOTHING-LABEL: saved residuals of @mlp
// NOTHING-NEXT: f32[16,16] from the argument arg0
// NOTHING-NEXT: f32[16,16] from the argument arg1
// NOTHING-NEXT: total: 2 residuals, 2048 bytes
func.func @mlp(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %0 = jx.dot_general %x, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %1 = jx.tanh %0 : tensor<16x16xf32>
  %2 = jx.dot_general %1, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %3 = jx.tanh %2 : tensor<16x16xf32>
  %4 = jx.dot_general %3, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %5 = jx.tanh %4 : tensor<16x16xf32>
  %6 = jx.reduce_sum %5, axes = [0, 1] : tensor<16x16xf32> -> tensor<f32>
  return %6 : tensor<f32>
}
