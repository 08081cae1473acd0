// jx.scan, jx.cond, jx.while and their jx.yield round-trip.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// A scan with a const, a carry, an xs and a ys: the body sees one slice of
// xs and yields one slice of ys.
// CHECK-LABEL: func.func @scan
// CHECK-SAME: (%[[W:[a-z0-9]+]]: tensor<4x4xf32>, %[[H:[a-z0-9]+]]: tensor<4xf32>, %[[XS:[a-z0-9]+]]: tensor<3x4xf32>)
func.func @scan(%w: tensor<4x4xf32>, %h0: tensor<4xf32>, %xs: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  // CHECK-NEXT: %[[R:.+]]:2 = jx.scan(%[[W]], %[[H]], %[[XS]]) length = 3, consts = 1, carry = 1 : (tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  // CHECK-NEXT: ^bb0(%[[WI:.+]]: tensor<4x4xf32>, %[[C:.+]]: tensor<4xf32>, %[[X:.+]]: tensor<4xf32>):
  // CHECK-NEXT:   %[[D:.+]] = jx.dot_general %[[WI]], %[[C]], contracting_dims = [1] x [0], batch_dims = [] x []
  // CHECK-NEXT:   %[[A:.+]] = jx.add %[[D]], %[[X]] : tensor<4xf32>
  // CHECK-NEXT:   jx.yield %[[A]], %[[A]] : tensor<4xf32>, tensor<4xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  %c, %ys = jx.scan (%w, %h0, %xs) length = 3, consts = 1, carry = 1
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.add %0, %x : tensor<4xf32>
    jx.yield %1, %1 : tensor<4xf32>, tensor<4xf32>
  }
  return %c, %ys : tensor<4xf32>, tensor<3x4xf32>
}

// reverse, several carries, two xs (one of them 1-d, sliced to a 0-d
// tensor), two ys, and extra attributes after the body.
// CHECK-LABEL: func.func @scan_reverse
func.func @scan_reverse(%a: tensor<f64>, %n: tensor<i64>, %xs: tensor<5xf64>, %ms: tensor<5x2xi1>)
    -> (tensor<f64>, tensor<i64>, tensor<5xf64>, tensor<5x2xi1>) {
  // CHECK-NEXT: %{{.+}}:4 = jx.scan(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) length = 5, consts = 0, carry = 2 reverse : (tensor<f64>, tensor<i64>, tensor<5xf64>, tensor<5x2xi1>) -> (tensor<f64>, tensor<i64>, tensor<5xf64>, tensor<5x2xi1>) {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<f64>, %{{.*}}: tensor<i64>, %{{.*}}: tensor<f64>, %{{.*}}: tensor<2xi1>):
  // CHECK:        jx.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<f64>, tensor<i64>, tensor<f64>, tensor<2xi1>
  // CHECK-NEXT: } attributes {note = "kept"}
  %r:4 = jx.scan (%a, %n, %xs, %ms) length = 5, consts = 0, carry = 2 reverse
      : (tensor<f64>, tensor<i64>, tensor<5xf64>, tensor<5x2xi1>) -> (tensor<f64>, tensor<i64>, tensor<5xf64>, tensor<5x2xi1>) {
  ^bb0(%acc: tensor<f64>, %k: tensor<i64>, %x: tensor<f64>, %m: tensor<2xi1>):
    %0 = jx.add %acc, %x : tensor<f64>
    %1 = jx.add %k, %k : tensor<i64>
    jx.yield %0, %1, %0, %m : tensor<f64>, tensor<i64>, tensor<f64>, tensor<2xi1>
  } attributes {note = "kept"}
  return %r#0, %r#1, %r#2, %r#3 : tensor<f64>, tensor<i64>, tensor<5xf64>, tensor<5x2xi1>
}

// A scan with no xs and no ys is a fixed-trip-count loop over the carry.
// CHECK-LABEL: func.func @scan_carry_only
func.func @scan_carry_only(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: jx.scan(%{{.*}}) length = 4, consts = 0, carry = 1 : (tensor<2xf32>) -> tensor<2xf32> {
  // CHECK-NEXT: ^bb0(%[[C:.+]]: tensor<2xf32>):
  // CHECK-NEXT:   %[[S:.+]] = jx.sin %[[C]]
  // CHECK-NEXT:   jx.yield %[[S]] : tensor<2xf32>
  %0 = jx.scan (%x) length = 4, consts = 0, carry = 1 : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%c: tensor<2xf32>):
    %1 = jx.sin %c : tensor<2xf32>
    jx.yield %1 : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// A boolean index picks between two branches.
// CHECK-LABEL: func.func @cond_bool
// CHECK-SAME: (%[[P:[a-z0-9]+]]: tensor<i1>, %[[X:[a-z0-9]+]]: tensor<5xf32>)
func.func @cond_bool(%p: tensor<i1>, %x: tensor<5xf32>) -> tensor<5xf32> {
  // CHECK-NEXT: %[[R:.+]] = jx.cond %[[P]](%[[X]]) : tensor<i1>, (tensor<5xf32>) -> tensor<5xf32> {
  // CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<5xf32>):
  // CHECK-NEXT:   %[[N:.+]] = jx.neg %[[A]] : tensor<5xf32>
  // CHECK-NEXT:   jx.yield %[[N]] : tensor<5xf32>
  // CHECK-NEXT: }, {
  // CHECK-NEXT: ^bb0(%[[B:.+]]: tensor<5xf32>):
  // CHECK-NEXT:   jx.yield %[[B]] : tensor<5xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[R]]
  %r = jx.cond %p (%x) : tensor<i1>, (tensor<5xf32>) -> tensor<5xf32> {
  ^bb0(%a: tensor<5xf32>):
    %0 = jx.neg %a : tensor<5xf32>
    jx.yield %0 : tensor<5xf32>
  }, {
  ^bb0(%a: tensor<5xf32>):
    jx.yield %a : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}

// An i32 index picks among three branches; several inputs and results.
// CHECK-LABEL: func.func @cond_index
func.func @cond_index(%i: tensor<i32>, %x: tensor<3xf16>, %y: tensor<i64>) -> (tensor<3xf16>, tensor<i64>) {
  // CHECK-NEXT: %{{.+}}:2 = jx.cond %{{.*}}(%{{.*}}, %{{.*}}) : tensor<i32>, (tensor<3xf16>, tensor<i64>) -> (tensor<3xf16>, tensor<i64>) {
  // CHECK:      jx.yield %{{.*}}, %{{.*}} : tensor<3xf16>, tensor<i64>
  // CHECK-NEXT: }, {
  // CHECK:      jx.abs
  // CHECK:      }, {
  // CHECK:      jx.neg
  // CHECK:      jx.yield
  // CHECK-NEXT: }
  // CHECK-NEXT: return
  %r:2 = jx.cond %i (%x, %y) : tensor<i32>, (tensor<3xf16>, tensor<i64>) -> (tensor<3xf16>, tensor<i64>) {
  ^bb0(%a: tensor<3xf16>, %b: tensor<i64>):
    jx.yield %a, %b : tensor<3xf16>, tensor<i64>
  }, {
  ^bb0(%a: tensor<3xf16>, %b: tensor<i64>):
    %0 = jx.abs %a : tensor<3xf16>
    jx.yield %0, %b : tensor<3xf16>, tensor<i64>
  }, {
  ^bb0(%a: tensor<3xf16>, %b: tensor<i64>):
    %0 = jx.neg %b : tensor<i64>
    jx.yield %a, %0 : tensor<3xf16>, tensor<i64>
  }
  return %r#0, %r#1 : tensor<3xf16>, tensor<i64>
}

// A cond without inputs or results.
// CHECK-LABEL: func.func @cond_empty
func.func @cond_empty(%i: tensor<i32>) {
  // CHECK-NEXT: jx.cond %{{.*}}() : tensor<i32>, () -> () {
  // CHECK-NEXT:   jx.yield{{$}}
  // CHECK-NEXT: }
  jx.cond %i () : tensor<i32>, () -> () {
    jx.yield
  }
  return
}

// CHECK-LABEL: func.func @while
// CHECK-SAME: (%[[I0:[a-z0-9]+]]: tensor<i32>, %[[X0:[a-z0-9]+]]: tensor<2xbf16>)
func.func @while(%i0: tensor<i32>, %x0: tensor<2xbf16>) -> (tensor<i32>, tensor<2xbf16>) {
  // CHECK-NEXT: %[[R:.+]]:2 = jx.while(%[[I0]], %[[X0]]) : (tensor<i32>, tensor<2xbf16>) -> (tensor<i32>, tensor<2xbf16>) cond {
  // CHECK-NEXT: ^bb0(%[[I:.+]]: tensor<i32>, %{{.+}}: tensor<2xbf16>):
  // CHECK-NEXT:   %[[N:.+]] = jx.constant dense<10> : tensor<i32>
  // CHECK-NEXT:   %[[C:.+]] = jx.lt %[[I]], %[[N]] : tensor<i32>
  // CHECK-NEXT:   jx.yield %[[C]] : tensor<i1>
  // CHECK-NEXT: } do {
  // CHECK-NEXT: ^bb0(%[[J:.+]]: tensor<i32>, %[[X:.+]]: tensor<2xbf16>):
  // CHECK:        jx.yield %{{.*}}, %{{.*}} : tensor<i32>, tensor<2xbf16>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  %r:2 = jx.while (%i0, %x0) : (tensor<i32>, tensor<2xbf16>) -> (tensor<i32>, tensor<2xbf16>) cond {
  ^bb0(%i: tensor<i32>, %x: tensor<2xbf16>):
    %n = jx.constant dense<10> : tensor<i32>
    %c = jx.lt %i, %n : tensor<i32>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %x: tensor<2xbf16>):
    %one = jx.constant dense<1> : tensor<i32>
    %j = jx.add %i, %one : tensor<i32>
    %y = jx.sin %x : tensor<2xbf16>
    jx.yield %j, %y : tensor<i32>, tensor<2xbf16>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<2xbf16>
}
