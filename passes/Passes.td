//===- Passes.td - Cotangent's passes --------------------*- tablegen -*-===//

#ifndef COTANGENT_PASSES_PASSES_TD
#define COTANGENT_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def JxVjpPass : Pass<"jx-vjp", "mlir::ModuleOp"> {
  let summary = "Split functions into a forward and a backward pass (linearize, then transpose)";
  let description = [{
    For each function `@f` (every function, or the one named by `function`),
    emits:

    - `@f_fwd(args) -> (results..., residuals...)`: the primal computation plus
      the non-linear values the linear part needs (cos(x) for sin(x); W and x
      for dot(W, x)). Residuals are ordered arguments first, then
      intermediates in forward order.
    - `@f_bwd(residuals..., result cotangents...) -> (argument cotangents...)`:
      the transpose of the linear part; it uses no primal op.
    - `@f_vjp(args..., result cotangents...) -> (results..., argument cotangents...)`
      calling both, and, when `@f` returns one scalar float,
      `@f_value_and_grad(args...) -> (value, gradients...)`.

    The pair records the split in verified attributes: `jx.forward =
    #jx.forward<primal = @f, backward = @f_bwd, primal_results = N>` and
    `jx.backward = #jx.backward<forward = @f_fwd, residuals = R>`, and each
    residual argument of `@f_bwd` says which remat regions asked for it
    (`#jx.residual<requested_by = ...>`). `jx.remat` regions are flattened
    into `@f_fwd`; their ops keep the regions' policies in a
    `#jx.remat_scope` so that `--jx-remat` can decide afterwards which of
    their residuals to recompute. Integer and boolean
    values and `jx.stop_gradient` outputs get zero cotangents; `jx.while`
    is rejected (not reverse-differentiable).

    ```mlir
    // cotangent-opt --jx-vjp
    func.func @g(%x: tensor<5xf32>) -> tensor<5xf32> {
      %0 = jx.sin %x : tensor<5xf32>
      return %0 : tensor<5xf32>
    }
    // becomes @g_fwd returning (sin x, cos x) and @g_bwd computing ct * cos x.
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Differentiate only this function (default: every function)">
  ];
  let dependentDialects = ["mlir::jx::JxDialect", "mlir::func::FuncDialect"];
}

def JxRaiseCompositesPass : Pass<"jx-raise-composites", "mlir::ModuleOp"> {
  let summary = "Raise JAX's attention and cross-entropy into the fused composite ops";
  let description = [{
    Runs before `--jx-vjp`, on programs written as JAX primitives (what
    `python/cotangent_jax` exports). Rewrites what is exactly one of the
    composites' definitions (`CompositeOpInterface::expand`, in f32) into it:

    - `softmax(scale * q k^T) v`, the scores masked by `tril(ones(T, S))` or not,
      into `jx.dot_product_attention` (`causal`): the scale is the product of the
      constants multiplying (dividing) the scores, q or k; the softmax is
      `exp(s - max(s)) / sum` along the keys (jax.nn.softmax's, `stop_gradient`
      and the `-inf` initial value allowed); the mask a `select_n` of a
      constant causal pattern (evaluated) and a fill of at most `-1e9` (JAX's
      `finfo(float32).min`, `-1e9`, `-inf`: every causal row keeps its
      diagonal, so the fill never reaches the row's maximum). Any layout of
      q, k, v and of the output (`bqhd,bkhd->bhqk`, `bhqd,bhkd->bhqk`, ...):
      transposes put them into `[B, T, N, H]` and the output back.
    - `logsumexp(x) - take_along_axis(x, labels)` and
      `-take_along_axis(log_softmax(x), labels)` over the last axis into
      `jx.softmax_cross_entropy`; JAX's fill mode (NaN for a label outside
      `[-C, C)`, the composite clamps) is kept by a select on the loss.

    Anything else (another mask, another dtype, a softmax over other scores
    than its maximum's, probabilities used twice) is left as it is.
    `cotangent-run --vjp` runs it by default (`--raise-composites=false`
    does not). `attention=false` or `cross-entropy=false` leaves that one alone.

    ```mlir
    // cotangent-opt --jx-raise-composites
    %s = jx.dot_general %q, %k, contracting_dims = [3] x [3], batch_dims = [0, 2] x [0, 2] ...
    // ... softmax, then dot_general with %v: becomes
    %o, %lse = jx.dot_product_attention %q, %k, %v, scale = 0.125 causal ...
    ```
  }];
  let options = [
    Option<"attention", "attention", "bool", /*default=*/"true",
           "Raise attention into jx.dot_product_attention">,
    Option<"crossEntropy", "cross-entropy", "bool", /*default=*/"true",
           "Raise the cross-entropy into jx.softmax_cross_entropy">
  ];
  let dependentDialects = ["mlir::jx::JxDialect"];
}

def JxRematFunctionPass : Pass<"jx-remat-function", "mlir::ModuleOp"> {
  let summary = "Put a whole function under one remat policy (e.g. a memory budget)";
  let description = [{
    Runs before `--jx-vjp`. Moves the body of a function into one
    `jx.remat` region under `policy` (the text of a `#jx.policy<...>`), as if
    the user had wrapped it: the whole step under `memory_budget(0.8)`, or
    `nothing_saveable`, without touching the program. The region's inputs are
    the function's arguments. Remat regions already in the body end up nested
    in the new one (a `memory_budget` region cannot nest: `--jx-remat` says so).

    ```mlir
    // cotangent-opt --jx-remat-function="policy=memory_budget(0.8)" --jx-vjp --jx-remat
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = jx.sin %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    // becomes: %r = jx.remat(%x) ... policy = #jx.policy<memory_budget(8.000000e-01)> { sin }
    ```
  }];
  let options = [
    Option<"policy", "policy", "std::string", /*default=*/"\"\"",
           "The policy, as inside #jx.policy<...> (required)">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Only this function (default: every function with a body)">
  ];
  let dependentDialects = ["mlir::jx::JxDialect", "mlir::func::FuncDialect"];
}

def JxRematPass : Pass<"jx-remat", "mlir::ModuleOp"> {
  let summary = "Apply remat policies: recompute in the backward what a policy does not save";
  let description = [{
    Runs after `--jx-vjp`. For every residual of an `@f_fwd`/`@f_bwd` pair
    that was computed inside `jx.remat` regions, the regions' policies decide:

    - saved: it stays a residual;
    - offloaded: it stays a residual whose `@f_fwd` result and `@f_bwd`
      argument carry `#jx.residual<memory_kind = ...>` (the policy's
      destination, e.g. "pinned_host"), so a runtime can place it;
    - recomputed: it is rebuilt in `@f_bwd`, right before its first use, from
      the nearest values that may be saved; those become residuals instead.

    Which policies apply: the regions that contain both the value and the op
    that needs it. A value computed in a region and used after it is that
    region's output, and outputs are ordinary values of the enclosing code;
    a value computed before a region is one of its inputs, which may be saved.
    With nested regions a value is saved only if every region around it
    allows it (the policies intersect): an outer `nothing_saveable` promises
    that nothing inside it is kept, whatever the inner regions say.

    With `prevent_cse` (the default) the saved inputs of a recomputation pass
    through `jx.optimization_barrier`, so once `@f_fwd` and `@f_bwd` are
    inlined into one function, CSE cannot merge the recomputation with the
    forward computation it repeats. Both functions are then cleaned of dead
    code.

    ```mlir
    // cotangent-opt --jx-vjp --jx-remat: with g under nothing_saveable,
    // @g_fwd saves W and x, and @g_bwd recomputes cos(W @ x).
    ```

    `memory_budget(bytes | fraction)` regions are solved exactly, by Pareto
    elimination or a MILP (fewest recomputed FLOPs with the predicted peak
    within the budget, see `docs/remat-optimal.md`); each solve is reported as a remark: the peak,
    the FLOPs recomputed, and whether optimality was proven (`budget-proof`)
    within `budget-seconds`. The budget is checked against the memory plan, which a
    tool registers on the jx dialect (`registerPeakOracle`).

    Residuals that no region holds (a value computed outside every region,
    asked for by an op outside every region) follow `default-policy`, as if
    one more region held exactly them. `everything_saveable`, the default,
    keeps every residual the VJP made, as `jax.grad` does without a
    checkpoint. `min_residual_bytes` keeps the fewest bytes from which
    elementwise ops and views rebuild the rest, which is what XLA's fusions
    recompute on their own and what PyTorch's min-cut partitioner keeps;
    where Cotangent compiles a step (`cotangent-run --vjp`, the bench) it is
    the default (`kCompileDefaultPolicy`), while the tracer's `Split` keeps
    the pass's default unless `SplitOptions::defaultPolicy` says otherwise. A pair with a `memory_budget` region keeps every
    residual outside its regions: its solve plans the whole pair.
  }];
  let options = [
    Option<"budgetSeconds", "budget-seconds", "double", "10",
           "Time in seconds (positive) a memory_budget solve may take to prove "
           "optimality; after it the best schedule found is used">,
    Option<"budgetProof", "budget-proof", "bool", "false",
           "Prove a memory_budget schedule optimal under the proven lower bound of "
           "the peak (slower: more schedules are predicted)">,
    Option<"budgetStep", "budget-step", "bool", "false",
           "A memory_budget bounds the peak of the fused value-and-grad step "
           "(@f_value_and_grad as jit runs it: each residual freed after its last "
           "use) instead of the split's (@f_fwd, then @f_bwd: every residual held "
           "until the backward returns); never proven optimal">,
    Option<"defaultPolicy", "default-policy", "std::string", "\"everything_saveable\"",
           "The policy of residuals outside every jx.remat region (as inside "
           "#jx.policy<...>; not a memory_budget)">,
  ];
  let dependentDialects = ["mlir::jx::JxDialect", "mlir::func::FuncDialect"];
}

def JxPrintSavedResidualsPass : Pass<"jx-print-saved-residuals", "mlir::ModuleOp"> {
  let summary = "Print the residuals each forward function saves for its backward";
  let description = [{
    For every `@f_fwd` produced by `--jx-vjp` (after `--jx-remat` if it ran),
    prints JAX's `print_saved_residuals` format: one line per residual,
    arguments first, then intermediates in forward order, then the total:

    ```
    f32[5,4] from the argument W1
    f32[5] output of cos from examples/seed.cpp:12 (g)
    f32[4] named 'a' from examples/seed.cpp:14 (g)
    total: 9 residuals, 276 bytes
    ```

    `format=json` (or just `=json`) prints the same as JSON for tools. The IR
    is unchanged.
  }];
  let options = [
    Option<"format", "format", "::mlir::cotangent::ReportFormat",
           /*default=*/"::mlir::cotangent::ReportFormat::Text", "Output format",
           [{::llvm::cl::values(
             clEnumValN(::mlir::cotangent::ReportFormat::Text, "text", "readable text"),
             clEnumValN(::mlir::cotangent::ReportFormat::Json, "json", "JSON: an array, an object per split"))}]>,
    Option<"json", "json", "bool", /*default=*/"false",
           "Shorthand for format=json: --jx-print-saved-residuals=json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print (default: stdout)">
  ];
}

def JxPrintJaxprPass : Pass<"jx-print-jaxpr", "mlir::ModuleOp"> {
  let summary = "Print functions as jaxprs";
  let description = [{
    Prints every function (or the one named by `function`) the way
    `jax.make_jaxpr` shows a program; the IR is unchanged.

    ```
    { lambda ; a:f32[5,4] b:f32[4]. let
        c:f32[5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
        d:f32[5] = sin c
      in (d,) }
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Print only this function (default: all)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print (default: stdout)">
  ];
}

def JxDumpFwdBwdPass : Pass<"jx-dump-fwd-bwd", "mlir::ModuleOp"> {
  let summary = "Print each forward and backward function side by side";
  let description = [{
    For every `@f_fwd`/`@f_bwd` pair (after `--jx-vjp`, and `--jx-remat` if
    it ran), prints the forward on the left and the backward on the right,
    in two columns fitted to `width` (default: the terminal's, from
    $COLUMNS or the tty, else 160); long lines wrap inside their column.
    `syntax=jaxpr` prints them as jaxprs instead of MLIR. The IR is unchanged.
  }];
  let options = [
    Option<"syntax", "syntax", "::mlir::cotangent::DumpSyntax",
           /*default=*/"::mlir::cotangent::DumpSyntax::Mlir", "How the functions are printed",
           [{::llvm::cl::values(
             clEnumValN(::mlir::cotangent::DumpSyntax::Mlir, "mlir", "as MLIR"),
             clEnumValN(::mlir::cotangent::DumpSyntax::Jaxpr, "jaxpr", "as jaxprs"))}]>,
    Option<"width", "width", "unsigned", /*default=*/"0",
           "Total width in columns (0: the terminal's)">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print (default: stdout)">
  ];
}

#endif // COTANGENT_PASSES_PASSES_TD
