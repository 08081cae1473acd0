// Every #jx.policy spelling parses; aliases print by their primary name and
// every policy prints in a form that parses back to itself.
// RUN: cotangent-opt %s | cotangent-opt | FileCheck %s
// RUN: cotangent-opt %s --verify-roundtrip --mlir-print-op-generic | cotangent-opt | FileCheck %s

// CHECK-LABEL: func.func @policies
func.func @policies() attributes {
  // CHECK-SAME: p00 = #jx.policy<everything_saveable>
  p00 = #jx.policy<everything_saveable>,
  // CHECK-SAME: p01 = #jx.policy<nothing_saveable>
  p01 = #jx.policy<nothing_saveable>,
  // CHECK-SAME: p02 = #jx.policy<dots_saveable>
  p02 = #jx.policy<dots_saveable>,
  // CHECK-SAME: p03 = #jx.policy<dots_saveable>
  p03 = #jx.policy<checkpoint_dots>,
  // CHECK-SAME: p04 = #jx.policy<dots_with_no_batch_dims_saveable>
  p04 = #jx.policy<dots_with_no_batch_dims_saveable>,
  // CHECK-SAME: p05 = #jx.policy<dots_with_no_batch_dims_saveable>
  p05 = #jx.policy<checkpoint_dots_with_no_batch_dims>,
  // CHECK-SAME: p06 = #jx.policy<save_only_these_names("a", "b c")>
  p06 = #jx.policy<save_only_these_names("a", "b c")>,
  // CHECK-SAME: p07 = #jx.policy<save_only_these_names()>
  p07 = #jx.policy<save_only_these_names()>,
  // CHECK-SAME: p08 = #jx.policy<save_any_names_but_these("x")>
  p08 = #jx.policy<save_any_names_but_these("x")>,
  // CHECK-SAME: p09 = #jx.policy<save_anything_except_these_names("x", "y")>
  p09 = #jx.policy<save_anything_except_these_names("x", "y")>,
  // CHECK-SAME: p10 = #jx.policy<save_anything_except_these_names("z")>
  p10 = #jx.policy<save_anything_but_these_names("z")>,
  // CHECK-SAME: p11 = #jx.policy<save_and_offload_only_these_names(["a"], ["b", "c"], "device", "pinned_host")>
  p11 = #jx.policy<save_and_offload_only_these_names(["a"], ["b", "c"], "device", "pinned_host")>,
  // CHECK-SAME: p12 = #jx.policy<save_and_offload_only_these_names([], [], "device", "pinned_host")>
  p12 = #jx.policy<save_and_offload_only_these_names([], [], "device", "pinned_host")>,
  // CHECK-SAME: p13 = #jx.policy<offload_dot_with_no_batch_dims("device", "pinned_host")>
  p13 = #jx.policy<offload_dot_with_no_batch_dims("device", "pinned_host")>,
  // CHECK-SAME: p14 = #jx.policy<save_from_both_policies(dots_saveable, save_only_these_names("a"))>
  p14 = #jx.policy<save_from_both_policies(checkpoint_dots, save_only_these_names("a"))>,
  // Composition accepts offload policies and nests.
  // CHECK-SAME: p15 = #jx.policy<save_from_both_policies(offload_dot_with_no_batch_dims("device", "pinned_host"), save_and_offload_only_these_names(["a"], ["b"], "device", "pinned_host"))>
  p15 = #jx.policy<save_from_both_policies(offload_dot_with_no_batch_dims("device", "pinned_host"), save_and_offload_only_these_names(["a"], ["b"], "device", "pinned_host"))>,
  // CHECK-SAME: p16 = #jx.policy<save_from_both_policies(save_from_both_policies(dots_with_no_batch_dims_saveable, save_anything_except_these_names("t")), save_from_both_policies(nothing_saveable, offload_dot_with_no_batch_dims("device", "pinned_host")))>
  p16 = #jx.policy<save_from_both_policies(save_from_both_policies(checkpoint_dots_with_no_batch_dims, save_anything_but_these_names("t")), save_from_both_policies(nothing_saveable, offload_dot_with_no_batch_dims("device", "pinned_host")))>
} {
  return
}

// A policy on jx.remat prints by its primary name too.
// CHECK-LABEL: func.func @remat_alias
// CHECK: jx.remat(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32> policy = #jx.policy<save_from_both_policies(dots_saveable, save_anything_except_these_names("h"))> {
func.func @remat_alias(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jx.remat (%x) : (tensor<2xf32>) -> tensor<2xf32>
      policy = #jx.policy<save_from_both_policies(checkpoint_dots, save_anything_but_these_names("h"))> {
  ^bb0(%a: tensor<2xf32>):
    jx.yield %a : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}
