// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat | FileCheck %s
// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s --check-prefix=REPORT

// An RNN cell over 3 steps. The loop-invariant transpose of the weights is
// hoisted and saved once; the carry and tanh's factor are stacked per
// iteration; the backward is a reverse scan carrying the carry's cotangent
// and the weights' accumulated cotangent.
func.func @rnn(%w: tensor<4x4xf32> {jx.arg_name = "w"}, %h0: tensor<4xf32> {jx.arg_name = "h0"},
               %xs: tensor<3x4xf32> {jx.arg_name = "xs"}) -> tensor<4xf32> {
  %c, %ys = jx.scan(%w, %h0, %xs) length = 3, consts = 1, carry = 1
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %t = jx.transpose %wi, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %0 = jx.dot_general %t, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.add %0, %x : tensor<4xf32>
    %2 = jx.tanh %1 : tensor<4xf32>
    jx.yield %2, %2 : tensor<4xf32>, tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
// CHECK-LABEL: func.func @rnn_fwd(
// CHECK:         %[[T:.*]] = jx.transpose %arg0
// CHECK:         %[[S:.*]]:4 = jx.scan(%arg0, %arg1, %arg2) length = 3, consts = 1, carry = 1
// CHECK:           jx.yield %{{.*}}, %{{.*}}, %arg4, %{{.*}} :
// CHECK:         return %[[S]]#0, %[[T]], %[[S]]#2, %[[S]]#3
// CHECK-LABEL: func.func @rnn_bwd(
// CHECK:         jx.scan({{.*}}) length = 3, consts = 1, carry = 2 reverse
// CHECK:           jx.dot_general
// CHECK:           jx.add
// CHECK:           jx.yield
// REPORT-LABEL: saved residuals of @rnn:
// REPORT-NEXT:  f32[4,4] output of transpose from
// REPORT-NEXT:  f32[3,4] stacked by the scan from {{.*}}, the carry at each iteration
// REPORT-NEXT:  f32[3,4] stacked by the scan from {{.*}}, one output of {{.*}} per iteration
// REPORT-NEXT:  total: 3 residuals, 160 bytes

// -----

// A checkpointed body saves only what its policy allows: with
// dots_with_no_batch_dims_saveable, the dot is stacked and tanh's factor is
// recomputed in the backward scan.
func.func @layers(%ws: tensor<6x4x4xf32> {jx.arg_name = "ws"}, %h0: tensor<4xf32> {jx.arg_name = "h0"}) -> tensor<4xf32> {
  %c = jx.scan(%h0, %ws) length = 6, consts = 0, carry = 1 : (tensor<4xf32>, tensor<6x4x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %w: tensor<4x4xf32>):
    %r = jx.remat(%h, %w) : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32> policy = #jx.policy<dots_with_no_batch_dims_saveable> {
    ^bb0(%hh: tensor<4xf32>, %ww: tensor<4x4xf32>):
      %0 = jx.dot_general %ww, %hh, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
      %1 = jx.tanh %0 : tensor<4xf32>
      jx.yield %1 : tensor<4xf32>
    }
    jx.yield %r : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
// REPORT-LABEL: saved residuals of @layers:
// REPORT-NEXT:  f32[6,4,4] from the argument ws
// REPORT-NEXT:  f32[6,4] stacked by the scan from {{.*}}, the carry at each iteration
// REPORT-NEXT:  f32[6,4] stacked by the scan from {{.*}}, one output of dot_general from {{.*}} per iteration
// REPORT-NEXT:  total: 3 residuals, 576 bytes
// CHECK-LABEL: func.func @layers_bwd(
// CHECK:         jx.scan
// CHECK:           jx.tanh
// CHECK:           jx.yield

// -----

// checkpoint_lengths = [2, 4] nests the loop: the forward keeps one carry per
// chunk of 4, and the report states the schedule.
func.func @sched(%ws: tensor<8x4x4xf32> {jx.arg_name = "ws"}, %h0: tensor<4xf32> {jx.arg_name = "h0"}) -> tensor<4xf32> {
  %c = jx.scan(%h0, %ws) length = 8, consts = 0, carry = 1 : (tensor<4xf32>, tensor<8x4x4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>, %w: tensor<4x4xf32>):
    %0 = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.tanh %0 : tensor<4xf32>
    jx.yield %1 : tensor<4xf32>
  } attributes {checkpoint_lengths = array<i64: 2, 4>}
  return %c : tensor<4xf32>
}
// REPORT-LABEL: saved residuals of @sched:
// REPORT-NEXT:  f32[8,4,4] from the argument ws
// REPORT-NEXT:  f32[2,4] stacked by the scan from {{.*}}, the carry at each iteration (schedule [2, 4]: at most 6 carries live, 8 iterations recomputed)
// REPORT-NEXT:  total: 2 residuals, 544 bytes

// -----

// cond: the branches share residual slots by type, as JAX joins them: the
// sin branch's cos(x) and the exp branch's exp(x) are both f32[4], so the
// cond keeps one f32[4] slot (not one per branch).
func.func @branchy(%p: tensor<i1>, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<4xf32> {
  %r = jx.cond %p(%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = jx.sin %a : tensor<4xf32>
    jx.yield %0 : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>):
    %0 = jx.exp %a : tensor<4xf32>
    jx.yield %0 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @branchy_fwd(
// CHECK-SAME:    -> (tensor<4xf32>, tensor<i1>, tensor<4xf32>)
// CHECK:         %[[C:.*]]:2 = jx.cond %arg0(%arg1)
// CHECK:           %[[SIN:.*]] = jx.sin
// CHECK:           %[[COS:.*]] = jx.cos
// CHECK:           jx.yield %[[SIN]], %[[COS]] :
// CHECK:           %[[EXP:.*]] = jx.exp
// CHECK:           jx.yield %[[EXP]], %[[EXP]] :
// CHECK:         return %[[C]]#0, %arg0, %[[C]]#1
// CHECK-LABEL: func.func @branchy_bwd(
// CHECK:         jx.cond %arg0(
// CHECK:           jx.mul
// CHECK:         }, {
// CHECK:           jx.mul

// -----

// Slots by type, and zeros only where a branch has fewer residuals of a type
// than another: branch 0 saves three f32[4] (y and sin x for the product,
// cos x for the sin), branch 1 two f32[4] (x and the sum) and one f32[2,4]
// (exp z). The cond keeps three f32[4] slots and one f32[2,4] slot, not
// five and one; branch 0 fills the f32[2,4] slot with zeros, branch 1 its
// third f32[4] slot.
func.func @slots(%p: tensor<i1>, %x: tensor<4xf32> {jx.arg_name = "x"}, %y: tensor<4xf32> {jx.arg_name = "y"},
                 %z: tensor<2x4xf32> {jx.arg_name = "z"}) -> tensor<4xf32> {
  %r = jx.cond %p(%x, %y, %z) : tensor<i1>, (tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<2x4xf32>):
    %0 = jx.sin %a : tensor<4xf32>
    %1 = jx.mul %0, %b : tensor<4xf32>
    jx.yield %1 : tensor<4xf32>
  }, {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<2x4xf32>):
    %0 = jx.exp %c : tensor<2x4xf32>
    %1 = jx.reduce_sum %0, axes = [0] : tensor<2x4xf32> -> tensor<4xf32>
    %2 = jx.mul %1, %a : tensor<4xf32>
    jx.yield %2 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// CHECK-LABEL: func.func @slots_fwd(
// CHECK-SAME:    -> (tensor<4xf32>, tensor<i1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>)
// CHECK:         %[[C:.*]]:5 = jx.cond
// CHECK:           %[[ZERO:.*]] = jx.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK:           jx.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]] :
// CHECK:           %[[EXP:.*]] = jx.exp
// CHECK:           %[[ZERO1:.*]] = jx.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:           jx.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO1]], %[[EXP]] :
// CHECK:         return %[[C]]#0, %arg0, %[[C]]#1, %[[C]]#2, %[[C]]#3, %[[C]]#4
// CHECK-LABEL: func.func @slots_bwd(
// CHECK:         jx.cond
// REPORT-LABEL: saved residuals of @slots:
// REPORT-NEXT:   bool[] from the argument arg0
// REPORT-NEXT:   f32[4] output of cond
// REPORT-NEXT:   f32[4] output of cond
// REPORT-NEXT:   f32[4] output of cond
// REPORT-NEXT:   f32[2,4] output of cond
// REPORT-NEXT:   total: 5 residuals, 81 bytes
