// jx.cond (boolean: false -> branch 0; i32: clamped) and jx.while.
// RUN: cotangent-interpret %s --fn cond_bool --arg "dense<false> : tensor<i1>" --arg "dense<[1.0, -2.0]> : tensor<2xf32>" | FileCheck %s --check-prefix=FALSE
// RUN: cotangent-interpret %s --fn cond_bool --arg "dense<true> : tensor<i1>" --arg "dense<[1.0, -2.0]> : tensor<2xf32>" | FileCheck %s --check-prefix=TRUE
// RUN: cotangent-interpret %s --fn cond_index --arg "dense<-4> : tensor<i32>" | FileCheck %s --check-prefix=IDX0
// RUN: cotangent-interpret %s --fn cond_index --arg "dense<1> : tensor<i32>" | FileCheck %s --check-prefix=IDX1
// RUN: cotangent-interpret %s --fn cond_index --arg "dense<9> : tensor<i32>" | FileCheck %s --check-prefix=IDX2
// RUN: cotangent-interpret %s --fn count --arg "dense<0> : tensor<i32>" | FileCheck %s --check-prefix=WHILE
// RUN: cotangent-interpret %s --fn count --arg "dense<7> : tensor<i32>" | FileCheck %s --check-prefix=NOLOOP

// FALSE: result 0: dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// TRUE: result 0: dense<[2.000000e+00, -4.000000e+00]> : tensor<2xf32>
func.func @cond_bool(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = jx.cond %p (%x) : tensor<i1>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    %0 = jx.neg %a : tensor<2xf32>
    jx.yield %0 : tensor<2xf32>
  }, {
  ^bb0(%a: tensor<2xf32>):
    %0 = jx.add %a, %a : tensor<2xf32>
    jx.yield %0 : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// IDX0: result 0: dense<1.100000e+01> : tensor<f32>
// IDX1: result 0: dense<2.000000e+01> : tensor<f32>
// IDX2: result 0: dense<1.000000e+02> : tensor<f32>
func.func @cond_index(%i: tensor<i32>) -> tensor<f32> {
  %x = jx.constant dense<10.0> : tensor<f32>
  %r = jx.cond %i (%x) : tensor<i32>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    %one = jx.constant dense<1.0> : tensor<f32>
    %0 = jx.add %a, %one : tensor<f32>
    jx.yield %0 : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    %0 = jx.add %a, %a : tensor<f32>
    jx.yield %0 : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    %0 = jx.mul %a, %a : tensor<f32>
    jx.yield %0 : tensor<f32>
  }
  return %r : tensor<f32>
}

// while i < 5: s += i; i += 1.
// WHILE: result 0: dense<5> : tensor<i32>
// WHILE: result 1: dense<10> : tensor<i32>
// NOLOOP: result 0: dense<7> : tensor<i32>
// NOLOOP: result 1: dense<0> : tensor<i32>
func.func @count(%i0: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %s0 = jx.constant dense<0> : tensor<i32>
  %i, %s = jx.while (%i0, %s0) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>) cond {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %n = jx.constant dense<5> : tensor<i32>
    %c = jx.lt %a, %n : tensor<i32>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %one = jx.constant dense<1> : tensor<i32>
    %t = jx.add %b, %a : tensor<i32>
    %j = jx.add %a, %one : tensor<i32>
    jx.yield %j, %t : tensor<i32>, tensor<i32>
  }
  return %i, %s : tensor<i32>, tensor<i32>
}
