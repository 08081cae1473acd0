// RUN: cotangent-opt %s --jx-vjp -split-input-file | FileCheck %s

// The seed's three layers without checkpoint: sin saves cos, each dot saves
// its operands; the last sin's output is not needed.
#g = loc("g"("seed.cpp":3:3))
func.func @f(%W1: tensor<5x4xf32> {jx.arg_name = "W1"}, %W2: tensor<6x5xf32> {jx.arg_name = "W2"},
             %W3: tensor<7x6xf32> {jx.arg_name = "W3"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<7xf32> {
  %0 = jx.dot_general %W1, %x, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32> loc(#g)
  %1 = jx.sin %0 : tensor<5xf32> loc(#g)
  %2 = jx.dot_general %W2, %1, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<6x5xf32>, tensor<5xf32> -> tensor<6xf32> loc(#g)
  %3 = jx.sin %2 : tensor<6xf32> loc(#g)
  %4 = jx.dot_general %W3, %3, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<7x6xf32>, tensor<6xf32> -> tensor<7xf32> loc(#g)
  %5 = jx.sin %4 : tensor<7xf32> loc(#g)
  return %5 : tensor<7xf32>
}
// CHECK-LABEL: func.func @f_fwd(
// CHECK-SAME:    %[[W1:.*]]: tensor<5x4xf32> {jx.arg_name = "W1"}, %[[W2:.*]]: tensor<6x5xf32> {jx.arg_name = "W2"}, %[[W3:.*]]: tensor<7x6xf32> {jx.arg_name = "W3"}, %[[X:.*]]: tensor<4xf32> {jx.arg_name = "x"})
// CHECK-SAME:    attributes {jx.forward = #jx.forward<primal = @f, backward = @f_bwd, primal_results = 1>}
// CHECK:         %[[D1:.*]] = jx.dot_general %[[W1]], %[[X]]
// CHECK-NEXT:    %[[S1:.*]] = jx.sin %[[D1]]
// CHECK-NEXT:    %[[C1:.*]] = jx.cos %[[D1]]
// CHECK-NEXT:    %[[D2:.*]] = jx.dot_general %[[W2]], %[[S1]]
// CHECK-NEXT:    %[[S2:.*]] = jx.sin %[[D2]]
// CHECK-NEXT:    %[[C2:.*]] = jx.cos %[[D2]]
// CHECK-NEXT:    %[[D3:.*]] = jx.dot_general %[[W3]], %[[S2]]
// CHECK-NEXT:    %[[S3:.*]] = jx.sin %[[D3]]
// CHECK-NEXT:    %[[C3:.*]] = jx.cos %[[D3]]
// CHECK-NEXT:    return %[[S3]], %[[W1]], %[[W2]], %[[W3]], %[[X]], %[[S1]], %[[C1]], %[[S2]], %[[C2]], %[[C3]]
// CHECK-LABEL: func.func @f_bwd(
// CHECK-SAME:    %[[BW1:[^:]*]]: tensor<5x4xf32> {{.*}}%[[BW2:[^:]*]]: tensor<6x5xf32> {{.*}}%[[BW3:[^:]*]]: tensor<7x6xf32> {{.*}}%[[BX:[^:]*]]: tensor<4xf32> {{.*}}%[[BS1:[^:]*]]: tensor<5xf32> {{.*}}%[[BC1:[^:]*]]: tensor<5xf32> {{.*}}%[[BS2:[^:]*]]: tensor<6xf32> {{.*}}%[[BC2:[^:]*]]: tensor<6xf32> {{.*}}%[[BC3:[^:]*]]: tensor<7xf32> {{.*}}%[[CT:[^:]*]]: tensor<7xf32>)
// CHECK-SAME:    -> (tensor<5x4xf32>, tensor<6x5xf32>, tensor<7x6xf32>, tensor<4xf32>)
// CHECK-NOT:     jx.sin
// CHECK:         %[[T3:.*]] = jx.mul %[[CT]], %[[BC3]]
// CHECK:         %[[GW3:.*]] = jx.dot_general %[[T3]], %[[BS2]], contracting_dims = [] x []
// CHECK:         %[[G2:.*]] = jx.dot_general %[[T3]], %[[BW3]], contracting_dims = [0] x [0]
// CHECK:         jx.mul %[[G2]], %[[BC2]]
// CHECK:         return
// CHECK-LABEL: func.func @f_vjp(
// CHECK:         call @f_fwd
// CHECK:         call @f_bwd

// -----

// A scalar loss gets value_and_grad; a value used twice sums its cotangents;
// integer and stop_gradient values get no cotangent (zeros for int args).
func.func @loss(%x: tensor<3xf32>, %n: tensor<3xi32>) -> tensor<f32> {
  %0 = jx.mul %x, %x : tensor<3xf32>
  %1 = jx.stop_gradient %x : tensor<3xf32>
  %2 = jx.add %0, %1 : tensor<3xf32>
  %3 = jx.reduce_sum %2, axes = [0] : tensor<3xf32> -> tensor<f32>
  return %3 : tensor<f32>
}
// CHECK-LABEL: func.func @loss_fwd(
// CHECK:         return %{{.*}}, %arg0 : tensor<f32>, tensor<3xf32>
// CHECK:       func.func @loss_bwd(%[[X:.*]]: tensor<3xf32> {{.*}}, %[[CT:.*]]: tensor<f32>)
// CHECK:         %[[B:.*]] = jx.broadcast_in_dim %[[CT]], dims = [] : tensor<f32> -> tensor<3xf32>
// CHECK:         %[[M1:.*]] = jx.mul %[[B]], %[[X]]
// CHECK:         %[[M2:.*]] = jx.mul %[[B]], %[[X]]
// CHECK:         %[[SUM:.*]] = jx.add %[[M1]], %[[M2]]
// CHECK:         %[[ZI:.*]] = jx.constant dense<0> : tensor<3xi32>
// CHECK:         return %[[SUM]], %[[ZI]]
// CHECK-LABEL: func.func @loss_value_and_grad(
// CHECK:         jx.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         call @loss_vjp

// -----

// A constant operand is rebuilt in the backward, not saved.
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = jx.constant dense<2.0> : tensor<4xf32>
  %0 = jx.mul %c, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @scale_fwd(
// CHECK:         return %{{.*}} : tensor<4xf32>
// CHECK:       func.func @scale_bwd(%[[CT:.*]]: tensor<4xf32>)
// CHECK:         %[[C:.*]] = jx.constant dense<2.000000e+00>
// CHECK:         jx.mul %[[CT]], %[[C]]

// -----

// Batched dot: each operand's cotangent contracts the result's with the other
// operand, in the order that yields the operand's layout: ct . b^T for a,
// a^T . ct for b (no transpose), as a dense layer's weight gradient x^T g.
func.func @bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [1], batch_dims = [0] x [0] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
// CHECK:       func.func @bmm_bwd(%[[A:.*]]: tensor<2x3x4xf32> {{.*}}, %[[B:.*]]: tensor<2x4x5xf32> {{.*}}, %[[CT:.*]]: tensor<2x3x5xf32>)
// CHECK:         %[[GA:.*]] = jx.dot_general %[[CT]], %[[B]], contracting_dims = [2] x [2], batch_dims = [0] x [0] : tensor<2x3x5xf32>, tensor<2x4x5xf32> -> tensor<2x3x4xf32>
// CHECK:         %[[GB:.*]] = jx.dot_general %[[A]], %[[CT]], contracting_dims = [1] x [1], batch_dims = [0] x [0] : tensor<2x3x4xf32>, tensor<2x3x5xf32> -> tensor<2x4x5xf32>
// CHECK-NOT:     jx.transpose
// CHECK:         return %[[GA]], %[[GB]]

// -----

// Neither order yields the operand's layout (its contracting dim lies
// between its free ones): the product is transposed back.
func.func @dot_middle(%a: tensor<2x3x4xf32>, %b: tensor<3x5xf32>) -> tensor<2x4x5xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<2x3x4xf32>, tensor<3x5xf32> -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}
// CHECK:       func.func @dot_middle_bwd(%[[A:.*]]: tensor<2x3x4xf32> {{.*}}, %[[B:.*]]: tensor<3x5xf32> {{.*}}, %[[CT:.*]]: tensor<2x4x5xf32>)
// CHECK:         %[[T:.*]] = jx.dot_general %[[CT]], %[[B]], contracting_dims = [2] x [1], batch_dims = [] x [] : tensor<2x4x5xf32>, tensor<3x5xf32> -> tensor<2x4x3xf32>
// CHECK:         %[[GA:.*]] = jx.transpose %[[T]], perm = [0, 2, 1]

// -----

// A barrier works in place: both results of one operand are one buffer at
// run time, so the forward saves it once and the backward reads it twice.
func.func @barrier_twice(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jx.sin %x : tensor<4xf32>
  %1, %2 = jx.optimization_barrier %0, %0 : tensor<4xf32>, tensor<4xf32>
  %3 = jx.mul %1, %y : tensor<4xf32>
  %4 = jx.mul %2, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}
// CHECK-LABEL: func.func @barrier_twice_fwd(
// CHECK:         %[[B:.*]]:2 = jx.optimization_barrier
// CHECK:         return %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[B]]#0, %{{[^,]*}} :
// CHECK-LABEL: func.func @barrier_twice_bwd(
// CHECK-SAME:    %[[SAVED:arg2]]: tensor<4xf32>
// CHECK-SAME:    %[[CT:arg4]]: tensor<4xf32>)
// CHECK-SAME:    residuals = 4
// CHECK:         %[[T:.*]] = jx.mul %[[CT]], %[[SAVED]]
// CHECK:         jx.mul %[[T]], %[[SAVED]]

// -----

// take's cotangent adds each row's cotangent back at its index (a
// scatter-add into zeros); its only residual is the indices. The indices,
// integers, get a zero cotangent.
func.func @embed(%table: tensor<10x4xf32>, %ids: tensor<6xi32>) -> tensor<6x4xf32> {
  %0 = jx.take %table[%ids], axis = 0 : tensor<10x4xf32>, tensor<6xi32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}
// CHECK-LABEL: func.func @embed_fwd(
// CHECK:         %[[R:.*]] = jx.take
// CHECK:         return %[[R]], %{{.*}} : tensor<6x4xf32>, tensor<6xi32>
// CHECK:       func.func @embed_bwd(%[[I:.*]]: tensor<6xi32> {{.*}}, %[[CT:.*]]: tensor<6x4xf32>)
// CHECK:         %[[Z:.*]] = jx.constant dense<0.000000e+00> : tensor<10x4xf32>
// CHECK:         %[[G:.*]] = jx.scatter_add %[[Z]][%[[I]]], %[[CT]], axis = 0
// CHECK:         return %[[G]], %{{.*}} : tensor<10x4xf32>, tensor<6xi32>

// -----

// scatter_add passes the cotangent to its operand and takes the updates'
// rows from it.
func.func @accumulate(%x: tensor<5x3xf32>, %ids: tensor<4xi64>, %u: tensor<5x4xf32>) -> tensor<5x3xf32> {
  %0 = jx.scatter_add %x[%ids], %u, axis = 1 : tensor<5x3xf32>, tensor<4xi64>, tensor<5x4xf32>
  return %0 : tensor<5x3xf32>
}
// CHECK:       func.func @accumulate_bwd(%[[I:.*]]: tensor<4xi64> {{.*}}, %[[CT:.*]]: tensor<5x3xf32>)
// CHECK:         %[[GU:.*]] = jx.take %[[CT]][%[[I]]], axis = 1 : tensor<5x3xf32>, tensor<4xi64> -> tensor<5x4xf32>
// CHECK:         return %[[CT]], %{{.*}}, %[[GU]] : tensor<5x3xf32>, tensor<4xi64>, tensor<5x4xf32>
