// memory_budget on three layers of tanh(h @ W) (16x16 f32, 1 KiB a tensor):
// without remat the step peaks at 8192 bytes (tanh keeps its output, which
// the next layer's weight gradient reads too). Each budget gets the schedule
// with the fewest recomputed FLOPs whose predicted peak fits, reported as a
// remark; the tighter the budget, the less is saved. A fraction is of the
// peak without remat. budget-proof proves the schedule optimal, within
// budget-seconds (the tighter budgets take longer: many cheap schedules
// pass the proven bound and must each be predicted).
// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s
// RUN: cotangent-opt %s --jx-vjp --jx-remat="budget-proof=true budget-seconds=10" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF
// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-memory-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN

// CHECK: remark: memory_budget: peak 7168 of 7168 bytes (8192 without remat), recomputing 8448 FLOPs in 2 of 7 ops
// CHECK: remark: memory_budget: peak 6144 of 6144 bytes (8192 without remat), recomputing 16896 FLOPs in 4 of 7 ops
// CHECK: remark: memory_budget: peak 5120 of 5120 bytes (8192 without remat), recomputing 25344 FLOPs in 6 of 7 ops

// CHECK-SAME: optimal under the working-set bound

// Most bytes: the last layer's output is rebuilt (its dot and tanh: the
// cheapest, as only tanh's backward reads it); the other two stay.
// CHECK-LABEL: saved residuals of @roomy
// CHECK-COUNT-2: output of tanh
// CHECK: total: 4 residuals, 4096 bytes
// CHECK-LABEL: saved residuals of @tight
// CHECK: output of tanh
// CHECK: total: 3 residuals, 3072 bytes
// Least: only the inputs are kept, everything else is rebuilt.
// CHECK-LABEL: saved residuals of @least
// CHECK-NEXT: f32[16,16] from the argument arg0
// CHECK-NEXT: f32[16,16] from the argument arg1
// CHECK-NEXT: total: 2 residuals, 2048 bytes

// PROOF: peak 7168 of 7168 bytes {{.*}}; proven optimal (9 schedules predicted)
// PROOF: peak 6144 of 6144 bytes {{.*}}; {{proven optimal|the best found in 10 s, not proven optimal}}

// The plan predicts each schedule's peak, which fits its budget.
// PLAN: memory plan of @roomy
// PLAN-NEXT: peak: 7168 bytes
// PLAN: memory plan of @tight
// PLAN-NEXT: peak: 6144 bytes
// PLAN: memory plan of @least
// PLAN-NEXT: peak: 5120 bytes

func.func @roomy(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %r = jx.remat(%x, %w) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
      policy = #jx.policy<memory_budget(7168)> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %1 = jx.tanh %0 : tensor<16x16xf32>
    %2 = jx.dot_general %1, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %3 = jx.tanh %2 : tensor<16x16xf32>
    %4 = jx.dot_general %3, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %5 = jx.tanh %4 : tensor<16x16xf32>
    %6 = jx.reduce_sum %5, axes = [0, 1] : tensor<16x16xf32> -> tensor<f32>
    jx.yield %6 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @tight(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %r = jx.remat(%x, %w) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
      policy = #jx.policy<memory_budget(0.75)> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %1 = jx.tanh %0 : tensor<16x16xf32>
    %2 = jx.dot_general %1, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %3 = jx.tanh %2 : tensor<16x16xf32>
    %4 = jx.dot_general %3, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %5 = jx.tanh %4 : tensor<16x16xf32>
    %6 = jx.reduce_sum %5, axes = [0, 1] : tensor<16x16xf32> -> tensor<f32>
    jx.yield %6 : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @least(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<f32> {
  %r = jx.remat(%x, %w) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<f32>
      policy = #jx.policy<memory_budget(5120)> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %1 = jx.tanh %0 : tensor<16x16xf32>
    %2 = jx.dot_general %1, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %3 = jx.tanh %2 : tensor<16x16xf32>
    %4 = jx.dot_general %3, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %5 = jx.tanh %4 : tensor<16x16xf32>
    %6 = jx.reduce_sum %5, axes = [0, 1] : tensor<16x16xf32> -> tensor<f32>
    jx.yield %6 : tensor<f32>
  }
  return %r : tensor<f32>
}
