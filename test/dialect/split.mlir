// A forward/backward pair as --jx-vjp and --jx-remat leave it verifies, and
// every attribute of the contract prints in a form that parses back to itself.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {jx.arg_name = "x"}) -> (tensor<4xf32> {jx.result_name = "y"})
func.func @f(%x: tensor<4xf32> {jx.arg_name = "x"}) -> (tensor<4xf32> {jx.result_name = "y"}) {
  %0 = jx.sin %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @f_fwd(
// CHECK-SAME:    -> (tensor<4xf32>, tensor<4xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">}, tensor<4xf32>)
// CHECK-SAME:    attributes {jx.forward = #jx.forward<primal = @f, backward = @f_bwd, primal_results = 1>}
// CHECK:         jx.sin %{{.*}} {jx.remat_scope = #jx.remat_scope<regions = [1, 0], policies = [#jx.policy<dots_saveable>, #jx.policy<save_only_these_names("a")>], prevent_cse = true>}
// CHECK:         jx.cos %{{.*}} {jx.remat_scope = #jx.remat_scope<regions = [2], policies = [#jx.policy<nothing_saveable>], prevent_cse = false>}
func.func @f_fwd(%x: tensor<4xf32> {jx.arg_name = "x"})
    -> (tensor<4xf32>, tensor<4xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">}, tensor<4xf32>)
    attributes {jx.forward = #jx.forward<primal = @f, backward = @f_bwd, primal_results = 1>} {
  %0 = jx.sin %x {jx.remat_scope = #jx.remat_scope<regions = [1, 0], policies = [#jx.policy<dots_saveable>, #jx.policy<save_only_these_names("a")>], prevent_cse = true>} : tensor<4xf32>
  %1 = jx.cos %x {jx.remat_scope = #jx.remat_scope<regions = [2], policies = [#jx.policy<nothing_saveable>], prevent_cse = false>} : tensor<4xf32>
  return %0, %1, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// The fields of #jx.residual are optional and parse in either order.
// CHECK-LABEL: func.func @f_bwd(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {jx.residual = #jx.residual<requested_by = {{\[\[}}1, 0], []], memory_kind = "pinned_host">}
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {jx.residual = #jx.residual<requested_by = {{\[\[}}]]>}
// CHECK-SAME:    attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 2>}
func.func @f_bwd(%cos: tensor<4xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host", requested_by = [[1, 0], []]>},
                 %x: tensor<4xf32> {jx.residual = #jx.residual<requested_by = [[]]>}, %ct: tensor<4xf32>)
    -> tensor<4xf32> attributes {jx.backward = #jx.backward<forward = @f_fwd, residuals = 2>} {
  %0 = jx.mul %ct, %cos : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A pair without a primal (made by hand) is a pair too.
// CHECK-LABEL: func.func @g_fwd(
// CHECK-SAME:    attributes {jx.forward = #jx.forward<backward = @g_bwd, primal_results = 1>}
func.func @g_fwd(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {jx.forward = #jx.forward<backward = @g_bwd, primal_results = 1>} {
  %0 = jx.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @g_bwd(%ct: tensor<4xf32>) -> tensor<4xf32>
    attributes {jx.backward = #jx.backward<forward = @g_fwd, residuals = 0>} {
  %0 = jx.neg %ct : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @scheduled(
// CHECK:         } attributes {jx.scan_schedule = array<i64: 2, 2>}
func.func @scheduled(%h: tensor<4xf32>) -> tensor<4xf32> {
  %r = jx.scan (%h) length = 2, consts = 0, carry = 1 : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%c: tensor<4xf32>):
    %0 = jx.sin %c : tensor<4xf32>
    jx.yield %0 : tensor<4xf32>
  } attributes {jx.scan_schedule = array<i64: 2, 2>}
  return %r : tensor<4xf32>
}

// A donated argument and the result written over its buffer.
// CHECK-LABEL: func.func @donated(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {jx.donated_to = 1 : i64}, %{{.*}}: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>)
func.func @donated(%p: tensor<4xf32> {jx.donated_to = 1 : i64}, %g: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = jx.sub %p, %g : tensor<4xf32>
  %1 = jx.reduce_sum %0, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %1, %0 : tensor<f32>, tensor<4xf32>
}
