// Verifier errors of jx.scan, jx.cond, jx.while and jx.yield.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

func.func @scan_negative_length(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op length must not be negative, got -1}}
  %0 = jx.scan (%c) length = -1, consts = 0, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @scan_counts(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op consts (1) and carry (1) exceed the 1 operands}}
  %0 = jx.scan (%c) length = 2, consts = 1, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @scan_negative_count(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op consts (-1) and carry (1) exceed the 1 operands}}
  %0 = jx.scan (%c) length = 2, consts = -1, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

// consts + carry overflows int64; the check must not.
func.func @scan_huge_count(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op consts (9223372036854775807) and carry (1) exceed the 1 operands}}
  %0 = jx.scan (%c) length = 2, consts = 9223372036854775807, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @scan_xs_length(%c: tensor<f32>, %xs: tensor<4xf32>) {
  // expected-error @+1 {{'jx.scan' op xs operand 0 of type 'tensor<4xf32>' must have a leading dimension of the scan length 3}}
  %0 = jx.scan (%c, %xs) length = 3, consts = 0, carry = 1 : (tensor<f32>, tensor<4xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>, %x: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @scan_xs_scalar(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op xs operand 0 of type 'tensor<f32>' must have a leading dimension of the scan length 1}}
  %0 = jx.scan (%c, %c) length = 1, consts = 0, carry = 1 : (tensor<f32>, tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>, %x: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @scan_missing_carry_result(%c: tensor<f32>, %d: tensor<i32>) {
  // expected-error @+1 {{'jx.scan' op expected at least 2 results for the carry}}
  %0 = jx.scan (%c, %d) length = 1, consts = 0, carry = 2 : (tensor<f32>, tensor<i32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>, %b: tensor<i32>):
    jx.yield %a, %b : tensor<f32>, tensor<i32>
  }
  return
}

// -----

func.func @scan_carry_type(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op carry result 0 has type 'tensor<f64>' but the initial carry has type 'tensor<f32>'}}
  %0 = jx.scan (%c) length = 1, consts = 0, carry = 1 : (tensor<f32>) -> tensor<f64> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @scan_ys_length(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op stacked result 0 of type 'tensor<2xf32>' must have a leading dimension of the scan length 3}}
  %0:2 = jx.scan (%c) length = 3, consts = 0, carry = 1 : (tensor<f32>) -> (tensor<f32>, tensor<2xf32>) {
  ^bb0(%a: tensor<f32>):
    jx.yield %a, %a : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @scan_body_args(%w: tensor<2xf32>, %c: tensor<f32>, %xs: tensor<3x2xf32>) {
  // expected-error @+1 {{'jx.scan' op body takes ('tensor<2xf32>', 'tensor<f32>', 'tensor<3x2xf32>') but must take ('tensor<2xf32>', 'tensor<f32>', 'tensor<2xf32>')}}
  %0 = jx.scan (%w, %c, %xs) length = 3, consts = 1, carry = 1 : (tensor<2xf32>, tensor<f32>, tensor<3x2xf32>) -> tensor<f32> {
  ^bb0(%wi: tensor<2xf32>, %a: tensor<f32>, %x: tensor<3x2xf32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @scan_yield_types(%c: tensor<f32>) {
  %0:2 = jx.scan (%c) length = 3, consts = 0, carry = 1 : (tensor<f32>) -> (tensor<f32>, tensor<3x2xf32>) {
  ^bb0(%a: tensor<f32>):
    // expected-error @+1 {{'jx.yield' op yields ('tensor<f32>', 'tensor<f32>') but the body of 'jx.scan' must yield ('tensor<f32>', 'tensor<2xf32>')}}
    jx.yield %a, %a : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @scan_empty_body(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op expects a non-empty block}}
  %0 = jx.scan (%c) length = 1, consts = 0, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
  }
  return
}

// -----

func.func @scan_no_yield(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op body must end in jx.yield}}
  %0 = jx.scan (%c) length = 1, consts = 0, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    %1 = jx.neg %a : tensor<f32>
  }
  return
}

// -----

// The body is isolated from above: what it uses from outside is a const.
func.func @scan_captures(%w: tensor<f32>, %c: tensor<f32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = jx.scan (%c) length = 1, consts = 0, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    // expected-error @+1 {{using value defined outside the region}}
    %1 = jx.add %a, %w : tensor<f32>
    jx.yield %1 : tensor<f32>
  }
  return
}

// -----

func.func @scan_two_blocks(%c: tensor<f32>) {
  // expected-error @+1 {{'jx.scan' op expects region #0 to have 0 or 1 blocks}}
  %0 = jx.scan (%c) length = 1, consts = 0, carry = 1 : (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  ^bb1(%b: tensor<f32>):
    jx.yield %b : tensor<f32>
  }
  return
}

// -----

func.func @cond_index_rank(%p: tensor<2xi1>, %x: tensor<f32>) {
  // expected-error @+1 {{'jx.cond' op index must be a 0-d tensor, got 'tensor<2xi1>'}}
  %0 = jx.cond %p (%x) : tensor<2xi1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_index_type(%i: tensor<i64>, %x: tensor<f32>) {
  // expected-error @+1 {{'jx.cond' op operand #0 must be statically shaped tensor of 1-bit signless integer or 32-bit signless integer values, but got 'tensor<i64>'}}
  %0 = jx.cond %i (%x) : tensor<i64>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_no_branches(%i: tensor<i32>, %x: tensor<f32>) {
  // expected-error @+1 {{'jx.cond' op needs at least one branch}}
  %0 = "jx.cond"(%i, %x) : (tensor<i32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @cond_bool_one_branch(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error @+1 {{'jx.cond' op a boolean index needs exactly 2 branches, got 1}}
  %0 = jx.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_bool_three_branches(%p: tensor<i1>) {
  // expected-error @+1 {{'jx.cond' op a boolean index needs exactly 2 branches, got 3}}
  jx.cond %p () : tensor<i1>, () -> () {
    jx.yield
  }, {
    jx.yield
  }, {
    jx.yield
  }
  return
}

// -----

func.func @cond_branch_args(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error @+1 {{'jx.cond' op branch 1 takes ('tensor<f64>') but must take ('tensor<f32>')}}
  %0 = jx.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f64>):
    %c = jx.constant dense<0.0> : tensor<f32>
    jx.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @cond_yield_types(%p: tensor<i1>, %x: tensor<f32>) {
  %0 = jx.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    // expected-error @+1 {{'jx.yield' op yields ('tensor<f32>', 'tensor<f32>') but the branch 0 of 'jx.cond' must yield ('tensor<f32>')}}
    jx.yield %a, %a : tensor<f32>, tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

// Verifying an empty branch must not crash (op verifiers run before the
// generic block checks).
func.func @cond_empty_branch(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error @+1 {{'jx.cond' op branch 0 must end in jx.yield}}
  %0 = jx.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
  }, {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}

// -----

func.func @cond_empty_region(%i: tensor<i32>) {
  // expected-error @+1 {{'jx.cond' op region #0 ('branches') failed to verify constraint: region with 1 blocks}}
  jx.cond %i () : tensor<i32>, () -> () {
  }
  return
}

// -----

func.func @while_results(%i: tensor<i32>) {
  // expected-error @+1 {{'jx.while' op result types ('tensor<i64>') must equal the carry types ('tensor<i32>')}}
  %0 = jx.while (%i) : (tensor<i32>) -> tensor<i64> cond {
  ^bb0(%a: tensor<i32>):
    %c = jx.constant dense<true> : tensor<i1>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<i32>):
    jx.yield %a : tensor<i32>
  }
  return
}

// -----

func.func @while_cond_yields_tensor(%i: tensor<i32>) {
  %0 = jx.while (%i) : (tensor<i32>) -> tensor<i32> cond {
  ^bb0(%a: tensor<i32>):
    %c = jx.constant dense<true> : tensor<2xi1>
    // expected-error @+1 {{'jx.yield' op yields ('tensor<2xi1>') but the cond region of 'jx.while' must yield ('tensor<i1>')}}
    jx.yield %c : tensor<2xi1>
  } do {
  ^bb0(%a: tensor<i32>):
    jx.yield %a : tensor<i32>
  }
  return
}

// -----

func.func @while_cond_args(%i: tensor<i32>) {
  // expected-error @+1 {{'jx.while' op cond region takes () but must take ('tensor<i32>')}}
  %0 = jx.while (%i) : (tensor<i32>) -> tensor<i32> cond {
    %c = jx.constant dense<true> : tensor<i1>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<i32>):
    jx.yield %a : tensor<i32>
  }
  return
}

// -----

func.func @while_body_yield(%i: tensor<i32>) {
  %0 = jx.while (%i) : (tensor<i32>) -> tensor<i32> cond {
  ^bb0(%a: tensor<i32>):
    %c = jx.constant dense<true> : tensor<i1>
    jx.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<i32>):
    // expected-error @+1 {{'jx.yield' op yields () but the body region of 'jx.while' must yield ('tensor<i32>')}}
    jx.yield
  }
  return
}

// -----

func.func @while_empty_cond(%i: tensor<i32>) {
  // expected-error @+1 {{'jx.while' op cond region must end in jx.yield}}
  %0 = jx.while (%i) : (tensor<i32>) -> tensor<i32> cond {
  ^bb0(%a: tensor<i32>):
  } do {
  ^bb0(%a: tensor<i32>):
    jx.yield %a : tensor<i32>
  }
  return
}

// -----

// jx.yield belongs to jx regions only.
func.func @yield_in_func(%x: tensor<f32>) {
  // expected-error @+1 {{'jx.yield' op expects parent op to be one of 'jx.scan, jx.cond, jx.while, jx.remat'}}
  jx.yield %x : tensor<f32>
}

// -----

func.func @region_ends_in_return(%p: tensor<i1>, %x: tensor<f32>) {
  // expected-error @+1 {{'jx.cond' op branch 0 must end in jx.yield}}
  %0 = jx.cond %p (%x) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    func.return %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return
}
