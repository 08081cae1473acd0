// Errors in the forward/backward contract and the other jx attributes the
// dialect verifies: the pair's partners, residual counts and types, residual
// attributes on positions that are no residual, remat scopes, schedules and
// names. Each error is reported at the function (or op) that carries the
// attribute; pair mismatches at the forward, with a note at the backward.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

// A residual the backward expects is missing from the forward's results.
// expected-error @+1 {{attribute 'jx.forward' does not match the backward: the forward returns 1 results, but the split has 1 primal results and 1 residuals}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-note @+1 {{the backward is here}}
func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The backward declares more residuals than it has arguments: a residual
// index that does not exist. The forward does not return them either.
// expected-error @+1 {{attribute 'jx.forward' does not match the backward: the forward returns 2 results, but the split has 1 primal results and 3 residuals}}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// expected-note @+2 {{the backward is here}}
// expected-error @+1 {{attribute 'jx.backward' says 3 residuals, but the backward takes only 2 arguments}}
func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 3>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The backward takes one cotangent too many: wrong count.
// expected-error @+1 {{attribute 'jx.forward' does not match the backward: @f_bwd takes 3 arguments, but the split has 1 residuals and 1 cotangents}}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// expected-note @+1 {{the backward is here}}
func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<4xf32>, %extra: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The forward saves a residual of another type than the backward takes.
// expected-error @+1 {{attribute 'jx.forward' residual #0 is 'tensor<4xf32>' here (result #1) but 'tensor<4xf64>' in @f_bwd (argument #0)}}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// expected-note @+1 {{the backward is here}}
func.func @f_bwd(%cos: tensor<4xf64>, %ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>} {
  return %ct : tensor<4xf32>
}

// -----

// A cotangent argument of another type than the primal result.
// expected-error @+1 {{attribute 'jx.forward' primal result #0 is 'tensor<4xf32>' but its cotangent, argument #1 of @f_bwd, is 'tensor<3xf32>'}}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// expected-note @+1 {{the backward is here}}
func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<3xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>} {
  return %cos : tensor<4xf32>
}

// -----

// The backward returns no cotangent for the forward's argument.
// expected-error @+1 {{attribute 'jx.forward' takes (tensor<4xf32>) but @f_bwd returns (): the backward returns one cotangent per argument, of its type}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-note @+1 {{the backward is here}}
func.func @f_bwd(%ct: tensor<4xf32>) attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 0>} {
  return
}

// -----

// The partner is missing.
// expected-error @+1 {{attribute 'jx.forward' names @g_bwd as the backward, but there is no such function}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @g_bwd, primal_results = 1>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{attribute 'jx.backward' names @g_fwd as the forward, but there is no such function}}
func.func @f_bwd(%ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @g_fwd, residuals = 0>} {
  return %ct : tensor<4xf32>
}

// -----

// The partner does not point back.
// expected-error @+1 {{attribute 'jx.forward' names @f_bwd as the backward, but @f_bwd does not name @f_fwd as its forward}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  return %x : tensor<4xf32>
}
// expected-note @+1 {{the backward is here}}
func.func @f_bwd(%ct: tensor<4xf32>) -> tensor<4xf32> {
  return %ct : tensor<4xf32>
}

// -----

func.func @g_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @g_bwd, primal_results = 1>} {
  return %x : tensor<4xf32>
}
func.func @g_bwd(%ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @g_fwd, residuals = 0>} {
  return %ct : tensor<4xf32>
}
// expected-note @+1 {{the forward is here}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{attribute 'jx.backward' names @f_fwd as the forward, but @f_fwd does not name @f_bwd as its backward}}
func.func @f_bwd(%ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 0>} {
  return %ct : tensor<4xf32>
}

// -----

// The primal the forward names must exist and compute what the forward's
// primal results are.
// expected-error @+1 {{attribute 'jx.forward' names @f as its primal, but there is no such function}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<primal = @f, backward = @f_bwd, primal_results = 1>} {
  return %x : tensor<4xf32>
}
func.func @f_bwd(%ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 0>} {
  return %ct : tensor<4xf32>
}

// -----

// expected-note @+1 {{the primal is here}}
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = jx.reduce_sum %x, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
// expected-error @+1 {{attribute 'jx.forward' names @f as its primal, which maps (tensor<4xf32>) to (tensor<f32>), but the forward maps (tensor<4xf32>) to (tensor<4xf32>) (then its residuals)}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<primal = @f, backward = @f_bwd, primal_results = 1>} {
  return %x : tensor<4xf32>
}
func.func @f_bwd(%ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 0>} {
  return %ct : tensor<4xf32>
}

// -----

// expected-error @+1 {{attribute 'jx.forward' says 2 primal results, but the forward returns only 1}}
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 2>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{attribute 'jx.forward' on a function that is also a backward: a function is one half of one split}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @f, primal_results = 1>, jx.backward = #jx.backward<forward = @f, residuals = 0>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{attribute 'jx.forward' belongs on a func.func}}
module attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
}

// -----

// expected-error @+1 {{attribute 'jx.backward' must be a #jx.backward, got #jx.forward<backward = @f, primal_results = 0>}}
func.func private @f() attributes {jx.backward = #jx.forward<backward = @f, primal_results = 0>}

// -----

// expected-error @+1 {{#jx.backward: residuals must not be negative, got -1}}
func.func private @f() attributes {jx.backward = #jx.backward<forward = @f, residuals = -1>}

// -----

// A residual attribute on a cotangent: the residual index does not exist.
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// expected-error @+1 {{attribute 'jx.residual' on argument #1, which is not a residual: the residuals are arguments #0 to #0}}
func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<4xf32> {jx.residual = #jx.residual<requested_by = [[]]>}) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ... or on a primal result of the forward.
// expected-error @+1 {{attribute 'jx.residual' on result #0, which is not a residual: the residuals are results #1 to #1}}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">}, tensor<4xf32>) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ... or on a function that is no half of a split.
// expected-error @+1 {{attribute 'jx.residual' on argument #0 of a function that is not the backward half of a split}}
func.func private @f(tensor<4xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">})

// -----

// An offloaded residual lives in the same memory on both sides.
// expected-error @+1 {{attribute 'jx.forward' residual #0 lives in memory kind 'pinned_host' here but '' in @f_bwd}}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">}) attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x : tensor<4xf32>
  %1 = jx.cos %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
// expected-note @+1 {{the backward is here}}
func.func @f_bwd(%cos: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 1>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{#jx.residual: memory_kind must not be empty}}
func.func private @f() attributes {r = #jx.residual<memory_kind = "">}

// -----

// expected-error @+1 {{expected 'requested_by' or 'memory_kind' (each at most once), got 'memory'}}
func.func private @f() attributes {r = #jx.residual<memory = "pinned_host">}

// -----

// expected-error @+1 {{#jx.residual: remat-region ids are not negative, got array<i64: -1>}}
func.func private @f() attributes {r = #jx.residual<requested_by = [[-1]]>}

// -----

// An unknown policy in a remat scope.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown remat policy 'dots_savable'; expected one of: everything_saveable,}}
  %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [0], policies = [#jx.policy<dots_savable>], prevent_cse = true>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Malformed remat scopes: one policy per region, at least one region.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#jx.remat_scope lists one policy per region, innermost first: got 2 regions and 1 policies}}
  %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [1, 0], policies = [#jx.policy<nothing_saveable>], prevent_cse = true>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#jx.remat_scope lists one policy per region, innermost first: got 0 regions and 0 policies}}
  %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [], policies = [], prevent_cse = true>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{#jx.remat_scope: region 0 is listed twice}}
  %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [0, 0], policies = [#jx.policy<nothing_saveable>, #jx.policy<dots_saveable>], prevent_cse = false>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected a #jx.policy, got "nothing_saveable"}}
  %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [0], policies = ["nothing_saveable"], prevent_cse = true>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected true or false, got 'yes'}}
  %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [0], policies = [#jx.policy<nothing_saveable>], prevent_cse = yes>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'jx.remat_scope' must be a #jx.remat_scope, got [0]}}
  %0 = jx.sin %x {jx.remat_scope = [0]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Names are non-empty strings.
// expected-error @+1 {{attribute 'jx.arg_name' must be a non-empty string, got ""}}
func.func private @f(tensor<4xf32> {jx.arg_name = ""})

// -----

// expected-error @+1 {{attribute 'jx.result_name' must be a non-empty string, got 3 : i64}}
func.func private @f() -> (tensor<4xf32> {jx.result_name = 3})

// -----

// expected-error @+1 {{argument #0 has an unknown jx attribute 'jx.result_name'; the jx attributes of arguments are jx.arg_name, jx.residual and jx.donated_to}}
func.func private @f(tensor<4xf32> {jx.result_name = "y"})

// -----

// expected-error @+1 {{attribute 'jx.arg_name' belongs on a function argument or result, not on an op}}
func.func private @f() attributes {jx.arg_name = "x"}

// -----

// The old string protocol is gone: its names are unknown attributes.
// expected-error @+1 {{has an unknown jx attribute 'jx.num_primal_results'; the jx attributes of ops are jx.forward, jx.backward, jx.remat_scope and jx.scan_schedule}}
func.func private @f() attributes {jx.num_primal_results = 1 : i64}

// -----

// A schedule belongs on the scan it was expanded into and starts with its length.
func.func @f(%h: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'jx.scan_schedule' must list two or more positive lengths, the first being the scan's length (2), got array<i64: 4, 2>}}
  %r = jx.scan (%h) length = 2, consts = 0, carry = 1 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%c: tensor<4xf32>):
    %0 = jx.sin %c : tensor<4xf32>
    jx.yield %0 : tensor<4xf32>
  } attributes {jx.scan_schedule = array<i64: 4, 2>}
  return %r : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'jx.scan_schedule' belongs on a jx.scan}}
  %0 = jx.sin %x {jx.scan_schedule = array<i64: 2, 2>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A backward without residuals has no position for a #jx.residual.
func.func @f_fwd(%x: tensor<4xf32>) -> tensor<4xf32> attributes {jx.forward = #jx.forward<backward = @f_bwd, primal_results = 1>} {
  %0 = jx.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-error @+1 {{attribute 'jx.residual' on argument #0, which is not a residual: the backward has no residuals}}
func.func @f_bwd(%ct: tensor<4xf32> {jx.residual = #jx.residual<requested_by = [[]]>}) -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 0>} {
  %0 = jx.neg %ct : tensor<4xf32>
  return %0 : tensor<4xf32>
}
