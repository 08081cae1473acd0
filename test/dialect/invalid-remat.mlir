// Verifier errors of jx.remat, jx.checkpoint_name and jx.optimization_barrier.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @remat_body_args(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.remat' op body takes ('tensor<4xf32>') but must take ('tensor<5xf32>')}}
  %0 = jx.remat (%x) : (tensor<5xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<4xf32>):
    %c = jx.constant dense<0.0> : tensor<5xf32>
    jx.yield %c : tensor<5xf32>
  }
  return
}

// -----

func.func @remat_yield_types(%x: tensor<5xf32>) {
  %0 = jx.remat (%x) : (tensor<5xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<5xf32>):
    %b = jx.convert_element_type %a : tensor<5xf32> -> tensor<5xf64>
    // expected-error @+1 {{'jx.yield' op yields ('tensor<5xf64>') but the body of 'jx.remat' must yield ('tensor<5xf32>')}}
    jx.yield %b : tensor<5xf64>
  }
  return
}

// -----

func.func @remat_empty_body(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.remat' op expects a non-empty block}}
  %0 = jx.remat (%x) : (tensor<5xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<5xf32>):
  }
  return
}

// -----

func.func @remat_no_yield(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.remat' op body must end in jx.yield}}
  %0 = jx.remat (%x) : (tensor<5xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<5xf32>):
    %1 = jx.sin %a : tensor<5xf32>
  }
  return
}

// -----

// What the region uses must be an operand: the region is isolated.
func.func @remat_captures(%x: tensor<5xf32>, %w: tensor<5xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = jx.remat (%x) : (tensor<5xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<5xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %1 = jx.mul %a, %w : tensor<5xf32>
    jx.yield %1 : tensor<5xf32>
  }
  return
}

// -----

func.func @remat_policy_not_a_policy(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.remat' op attribute 'policy' failed to satisfy constraint}}
  %0 = "jx.remat"(%x) ({
  ^bb0(%a: tensor<5xf32>):
    jx.yield %a : tensor<5xf32>
  }) {policy = "nothing_saveable"} : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @remat_policy_missing(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.remat' op requires attribute 'policy'}}
  %0 = "jx.remat"(%x) ({
  ^bb0(%a: tensor<5xf32>):
    jx.yield %a : tensor<5xf32>
  }) : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @remat_prevent_cse_not_bool(%x: tensor<5xf32>) {
  %0 = jx.remat (%x) : (tensor<5xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%a: tensor<5xf32>):
    jx.yield %a : tensor<5xf32>
  // expected-error @+1 {{'jx.remat' op attribute 'prevent_cse' failed to satisfy constraint: bool attribute}}
  } attributes {prevent_cse = 0 : i32}
  return
}

// -----

func.func @checkpoint_name_type(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.checkpoint_name' op requires the same type for all operands and results}}
  %0 = "jx.checkpoint_name"(%x) {name = "h"} : (tensor<5xf32>) -> tensor<5xf16>
  return
}

// -----

func.func @checkpoint_name_not_a_string(%x: tensor<5xf32>) {
  // expected-error @+1 {{'jx.checkpoint_name' op attribute 'name' failed to satisfy constraint: string attribute}}
  %0 = "jx.checkpoint_name"(%x) {name = 3 : i64} : (tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @barrier_result_types(%x: tensor<5xf32>, %y: tensor<i32>) {
  // expected-error @+2 {{'jx.optimization_barrier' op inferred type(s) 'tensor<5xf32>', 'tensor<i32>' are incompatible with return type(s) of operation 'tensor<i32>', 'tensor<5xf32>'}}
  // expected-error @+1 {{'jx.optimization_barrier' op failed to infer returned types}}
  %0:2 = "jx.optimization_barrier"(%x, %y) : (tensor<5xf32>, tensor<i32>) -> (tensor<i32>, tensor<5xf32>)
  return
}

// -----

func.func @barrier_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{'jx.optimization_barrier' op operand #0 must be variadic of statically shaped tensor of}}
  %0 = jx.optimization_barrier %x : tensor<?xf32>
  return
}
