// jx.remat, jx.checkpoint_name and jx.optimization_barrier round-trip.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @remat
// CHECK-SAME: (%[[W:[a-z0-9]+]]: tensor<5x4xf32>, %[[X:[a-z0-9]+]]: tensor<4xf32>)
func.func @remat(%W: tensor<5x4xf32>, %x: tensor<4xf32>) -> tensor<5xf32> {
  // CHECK-NEXT: %[[R:.+]] = jx.remat(%[[W]], %[[X]]) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  // CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<5x4xf32>, %[[B:.+]]: tensor<4xf32>):
  // CHECK-NEXT:   %[[D:.+]] = jx.dot_general %[[A]], %[[B]], contracting_dims = [1] x [0], batch_dims = [] x []
  // CHECK-NEXT:   %[[N:.+]] = jx.checkpoint_name %[[D]], "layer0" : tensor<5xf32>
  // CHECK-NEXT:   %[[S:.+]] = jx.sin %[[N]] : tensor<5xf32>
  // CHECK-NEXT:   jx.yield %[[S]] : tensor<5xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[R]]
  %r = jx.remat (%W, %x) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5xf32>
      policy = #jx.policy<nothing_saveable> {
  ^bb0(%w: tensor<5x4xf32>, %v: tensor<4xf32>):
    %0 = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
    %1 = jx.checkpoint_name %0, "layer0" : tensor<5xf32>
    %2 = jx.sin %1 : tensor<5xf32>
    jx.yield %2 : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}

// prevent_cse = true is the default and is not printed; false is kept.
// Several results, and a remat nested in another.
// CHECK-LABEL: func.func @remat_no_cse
func.func @remat_no_cse(%x: tensor<3xf64>, %i: tensor<3xi32>) -> (tensor<3xf64>, tensor<3xi32>) {
  // CHECK-NEXT: %{{.+}}:2 = jx.remat(%{{.*}}, %{{.*}}) : (tensor<3xf64>, tensor<3xi32>) -> (tensor<3xf64>, tensor<3xi32>) policy = #jx.policy<save_from_both_policies(dots_saveable, save_only_these_names("a", "b"))> {
  // CHECK:        jx.remat(%{{.*}}) : (tensor<3xf64>) -> tensor<3xf64> policy = #jx.policy<everything_saveable> {
  // CHECK:        }{{$}}
  // CHECK:        jx.yield %{{.*}}, %{{.*}} : tensor<3xf64>, tensor<3xi32>
  // CHECK-NEXT: } attributes {prevent_cse = false}
  %r:2 = jx.remat (%x, %i) : (tensor<3xf64>, tensor<3xi32>) -> (tensor<3xf64>, tensor<3xi32>)
      policy = #jx.policy<save_from_both_policies(dots_saveable, save_only_these_names("a", "b"))> {
  ^bb0(%a: tensor<3xf64>, %b: tensor<3xi32>):
    %0 = jx.remat (%a) : (tensor<3xf64>) -> tensor<3xf64> policy = #jx.policy<everything_saveable> {
    ^bb0(%c: tensor<3xf64>):
      %1 = jx.cos %c : tensor<3xf64>
      jx.yield %1 : tensor<3xf64>
    } attributes {prevent_cse = true}
    jx.yield %0, %b : tensor<3xf64>, tensor<3xi32>
  } attributes {prevent_cse = false}
  return %r#0, %r#1 : tensor<3xf64>, tensor<3xi32>
}

// checkpoint_name takes any element type; optimization_barrier any number
// of operands, none included.
// CHECK-LABEL: func.func @names_and_barriers
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<5xf32>, %[[P:[a-z0-9]+]]: tensor<2xi1>, %[[K:[a-z0-9]+]]: tensor<i64>)
func.func @names_and_barriers(%x: tensor<5xf32>, %p: tensor<2xi1>, %k: tensor<i64>)
    -> (tensor<5xf32>, tensor<2xi1>, tensor<i64>) {
  // CHECK-NEXT: %[[N:.+]] = jx.checkpoint_name %[[P]], "mask" : tensor<2xi1>
  // CHECK-NEXT: %[[B:.+]]:3 = jx.optimization_barrier %[[X]], %[[N]], %[[K]] : tensor<5xf32>, tensor<2xi1>, tensor<i64>
  // CHECK-NEXT: %[[C:.+]] = jx.optimization_barrier %[[B]]#0 : tensor<5xf32>
  // CHECK-NEXT: jx.optimization_barrier{{$}}
  // CHECK-NEXT: return %[[C]], %[[B]]#1, %[[B]]#2
  %0 = jx.checkpoint_name %p, "mask" : tensor<2xi1>
  %1:3 = jx.optimization_barrier %x, %0, %k : tensor<5xf32>, tensor<2xi1>, tensor<i64>
  %2 = jx.optimization_barrier %1#0 : tensor<5xf32>
  jx.optimization_barrier
  return %2, %1#1, %1#2 : tensor<5xf32>, tensor<2xi1>, tensor<i64>
}
