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

    `jx.remat` regions are flattened into `@f_fwd`; their ops keep the
    region's policy in `jx.remat_policies` so that `--jx-remat` can decide
    afterwards which of their residuals to recompute. Integer and boolean
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

    `format=json` prints the same as JSON for tools. The IR is unchanged.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "Output format: text or json">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print (default: stdout)">
  ];
}

#endif // COTANGENT_PASSES_PASSES_TD
