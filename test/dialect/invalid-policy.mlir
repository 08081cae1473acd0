// Errors in #jx.policy: unknown names (listing the valid ones), arguments
// to a policy that takes none, overlapping save and offload sets, the arity
// of save_from_both_policies, and malformed arguments.
// RUN: cotangent-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown remat policy 'save_everything'; expected one of: everything_saveable, nothing_saveable, dots_saveable, dots_with_no_batch_dims_saveable, save_only_these_names, save_any_names_but_these, save_anything_except_these_names, save_and_offload_only_these_names, offload_dot_with_no_batch_dims, save_from_both_policies, min_residual_bytes, min_residual_bytes_recomputing_dots, memory_budget, checkpoint_dots, checkpoint_dots_with_no_batch_dims, save_anything_but_these_names}}
func.func private @f() attributes {p = #jx.policy<save_everything>}

// -----

// An unknown name inside a composition is reported where it is.
// expected-error @+1 {{unknown remat policy 'dots'; expected one of: everything_saveable,}}
func.func private @f() attributes {p = #jx.policy<save_from_both_policies(nothing_saveable, dots)>}

// -----

// expected-error @+1 {{expected a remat policy name}}
func.func private @f() attributes {p = #jx.policy<"dots_saveable">}

// -----

// expected-error @+1 {{expected a remat policy name}}
func.func private @f() attributes {p = #jx.policy<>}

// -----

// expected-error @+1 {{remat policy 'everything_saveable' takes no arguments}}
func.func private @f() attributes {p = #jx.policy<everything_saveable()>}

// -----

// expected-error @+1 {{remat policy 'nothing_saveable' takes no arguments}}
func.func private @f() attributes {p = #jx.policy<nothing_saveable("a")>}

// -----

// An alias is named as written.
// expected-error @+1 {{remat policy 'checkpoint_dots' takes no arguments}}
func.func private @f() attributes {p = #jx.policy<checkpoint_dots("a")>}

// -----

// expected-error @+1 {{remat policy 'dots_with_no_batch_dims_saveable' takes no arguments}}
func.func private @f() attributes {p = #jx.policy<dots_with_no_batch_dims_saveable(1)>}

// -----

// expected-error @+1 {{name 'b' is both saveable and offloadable; the two sets must be disjoint}}
func.func private @f() attributes {p = #jx.policy<save_and_offload_only_these_names(["a", "b"], ["c", "b"], "device", "pinned_host")>}

// -----

// Also inside a composition.
// expected-error @+1 {{name 'a' is both saveable and offloadable; the two sets must be disjoint}}
func.func private @f() attributes {p = #jx.policy<save_from_both_policies(dots_saveable, save_and_offload_only_these_names(["a"], ["a"], "device", "pinned_host"))>}

// -----

// expected-error @+1 {{remat policy 'save_from_both_policies' combines exactly 2 policies}}
func.func private @f() attributes {p = #jx.policy<save_from_both_policies(dots_saveable)>}

// -----

// expected-error @+1 {{remat policy 'save_from_both_policies' combines exactly 2 policies}}
func.func private @f() attributes {p = #jx.policy<save_from_both_policies(dots_saveable, nothing_saveable, everything_saveable)>}

// -----

// expected-error @+1 {{remat policy 'save_from_both_policies' combines exactly 2 policies}}
func.func private @f() attributes {p = #jx.policy<save_from_both_policies()>}

// -----

// expected-error @+1 {{expected '('}}
func.func private @f() attributes {p = #jx.policy<save_from_both_policies>}

// -----

// expected-error @+1 {{remat policy 'save_and_offload_only_these_names' needs a source and a destination memory kind}}
func.func private @f() attributes {p = #jx.policy<save_and_offload_only_these_names(["a"], ["b"], "", "pinned_host")>}

// -----

// expected-error @+1 {{remat policy 'offload_dot_with_no_batch_dims' needs a source and a destination memory kind}}
func.func private @f() attributes {p = #jx.policy<offload_dot_with_no_batch_dims("device", "")>}

// -----

// expected-error @+1 {{expected '('}}
func.func private @f() attributes {p = #jx.policy<save_only_these_names>}

// -----

// Names are strings.
// expected-error @+1 {{expected string}}
func.func private @f() attributes {p = #jx.policy<save_only_these_names(a)>}

// -----

// expected-error @+1 {{expected '['}}
func.func private @f() attributes {p = #jx.policy<save_and_offload_only_these_names("a", "b", "device", "pinned_host")>}

// -----

// expected-error @+1 {{expected ','}}
func.func private @f() attributes {p = #jx.policy<offload_dot_with_no_batch_dims("device")>}

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f() attributes {p = #jx.policy<dots_saveable, nothing_saveable>}

// -----

// expected-error @+1 {{remat policy 'memory_budget' takes a budget in bytes (an integer > 0) or a fraction of the peak without remat (a float in (0, 1])}}
func.func private @f() attributes {p = #jx.policy<memory_budget(0)>}

// -----

// expected-error @+1 {{remat policy 'memory_budget' takes a budget in bytes (an integer > 0) or a fraction of the peak without remat (a float in (0, 1])}}
func.func private @f() attributes {p = #jx.policy<memory_budget(1.5)>}

// -----

// expected-error @+1 {{remat policy 'memory_budget' takes a budget in bytes}}
func.func private @f() attributes {p = #jx.policy<memory_budget("1 MiB")>}

// -----

// A budget bounds the whole step: it does not compose.
// expected-error @+1 {{remat policy 'save_from_both_policies' cannot combine memory_budget: a budget bounds the whole step}}
func.func private @f() attributes {p = #jx.policy<save_from_both_policies(dots_saveable, memory_budget(0.5))>}
