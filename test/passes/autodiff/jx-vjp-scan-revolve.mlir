// RUN: cotangent-opt %s --jx-vjp --jx-remat | FileCheck %s

// Five iterations with two snapshots (Griewank's binomial schedule). The
// forward scan writes each incoming carry into its slot of a [3, 8] buffer:
// iteration 0 into slot 0, iteration 3 into slot 1, the others into the
// scratch slot 2; its final carry also holds the last iteration's tape (the
// carry and tanh's factor). The backward reverses iteration 4 from that
// tape, then runs 11 actions coded kind + 4 * argument: restore slot 1
// (iteration 3: 2 + 4 * (1 + 2 * 3) = 30), reverse, restore slot 0, advance,
// save into slot 1 (1 + 4 * 1 = 5), advance, reverse (iteration 2), restore
// slot 1 (iteration 1: 14), reverse, restore slot 0, reverse. Advances: 4 in
// the sweep + 2 = 6 = 2 * 5 - C(4, 3), the optimum for two snapshots.
func.func @f(%w: tensor<8xf32>, %h0: tensor<8xf32>, %xs: tensor<5x8xf32>) -> tensor<f32> {
  %c = jx.scan (%w, %h0, %xs) length = 5, consts = 1, carry = 1
      : (tensor<8xf32>, tensor<8xf32>, tensor<5x8xf32>) -> tensor<8xf32> {
  ^bb0(%wi: tensor<8xf32>, %h: tensor<8xf32>, %x: tensor<8xf32>):
    %0 = jx.mul %h, %wi : tensor<8xf32>
    %1 = jx.add %0, %x : tensor<8xf32>
    %2 = jx.tanh %1 : tensor<8xf32>
    jx.yield %2 : tensor<8xf32>
  } attributes {snapshots = 2 : i64}
  %s = jx.reduce_sum %c, axes = [0] : tensor<8xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// CHECK-LABEL: func.func @f_fwd
// CHECK-SAME: -> (tensor<f32>, tensor<8xf32>, tensor<5x8xf32>, tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: %[[SLOTS:.*]] = jx.constant dense<[0, 2, 2, 1, 2]> : tensor<5xi32>
// CHECK: jx.scan({{.*}}, %[[SLOTS]]) length = 5, consts = 1, carry = 4
// CHECK: jx.tanh
// CHECK: jx.dynamic_update_slice {{.*}} : tensor<3x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>
// CHECK-NOT: snapshots

// CHECK-LABEL: func.func @f_bwd
// CHECK: %[[CODES:.*]] = jx.constant dense<[30, 3, 2, 0, 5, 0, 3, 14, 3, 2, 3]> : tensor<11xi32>
// CHECK: jx.scan({{.*}}, %[[CODES]]) length = 11, consts = 2, carry = 6
// CHECK: %[[KIND:.*]] = jx.rem
// CHECK: jx.cond %[[KIND]]
// Advance: one iteration, no tape.
// CHECK: jx.tanh
// CHECK-NOT: jx.sub
// CHECK: }, {
// Save.
// CHECK: jx.dynamic_update_slice {{.*}} : tensor<3x8xf32>
// CHECK: }, {
// Restore: slot = argument rem 2, iteration = argument div 2.
// CHECK: jx.rem
// CHECK: jx.dynamic_slice
// CHECK: jx.div
// CHECK: }, {
// Reverse: the forward half, then the backward half; x's cotangent written at its index.
// CHECK: jx.tanh
// CHECK: jx.sub
// CHECK: jx.dynamic_update_slice {{.*}} : tensor<5x8xf32>
