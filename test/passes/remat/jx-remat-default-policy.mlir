// --jx-remat's default-policy: the policy of residuals outside every remat
// region. everything_saveable (the default) keeps what --jx-vjp saved;
// min_residual_bytes keeps the fewest bytes that elementwise ops rebuild the
// rest from; a region keeps its own policy; a memory_budget pair ignores it.
// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat="default-policy=min_residual_bytes" --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUT
// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat="default-policy=min_residual_bytes" 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat="default-policy=nothing_saveable" --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not cotangent-opt %s -split-input-file --jx-vjp --jx-remat="default-policy=save_everything" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not cotangent-opt %s -split-input-file --jx-vjp --jx-remat="default-policy=memory_budget(0.5)" 2>&1 | FileCheck %s --check-prefix=BUDGET

// BAD: error: --jx-remat: default-policy: unknown remat policy 'save_everything'; expected one of: everything_saveable,
// BUDGET: error: --jx-remat: default-policy cannot be a memory_budget (it plans the whole step: use --jx-remat-function)

// No region: exp(tanh(h)^2) is rebuilt from tanh's output. The dot's output
// is as small, but of the cuts of least bytes jx-remat takes the one nearest
// the backward, which recomputes least (here: not the tanh).
func.func @f(%W: tensor<4x4xf32> {jx.arg_name = "W"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %h = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
  %a = jx.tanh %h : tensor<4xf32>
  %b = jx.mul %a, %a : tensor<4xf32>
  %c = jx.exp %b : tensor<4xf32>
  %s = jx.reduce_sum %c, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// KEEP-LABEL: saved residuals of @f:
// KEEP-NEXT:  f32[4,4] from the argument W
// KEEP-NEXT:  f32[4] from the argument x
// KEEP-NEXT:  f32[4] output of tanh
// KEEP-NEXT:  f32[4] output of exp
// KEEP-NEXT:  total: 4 residuals, 112 bytes
// CUT-LABEL: saved residuals of @f:
// CUT-NEXT:  f32[4,4] from the argument W
// CUT-NEXT:  f32[4] from the argument x
// CUT-NEXT:  f32[4] output of tanh
// CUT-NEXT:  total: 3 residuals, 96 bytes
// NOTHING-LABEL: saved residuals of @f:
// NOTHING-NEXT:  f32[4,4] from the argument W
// NOTHING-NEXT:  f32[4] from the argument x
// NOTHING-NEXT:  total: 2 residuals, 80 bytes
// The rebuild starts from a barrier, as a prevent_cse region's does.
// IR-LABEL: func.func @f_bwd(
// IR-SAME:    %{{[^:]*}}: tensor<4x4xf32>, %{{[^:]*}}: tensor<4xf32>, %[[H:[^:]*]]: tensor<4xf32>, %{{[^:]*}}: tensor<f32>)
// IR:         %[[A:.*]] = jx.optimization_barrier %[[H]]
// IR-NOT:     jx.tanh
// IR:         %[[B:.*]] = jx.mul %[[A]], %[[A]]
// IR-NEXT:    jx.exp %[[B]]

// -----

// A region keeps its policy (dots_saveable: its dot's output). Around it the
// cut keeps one tensor instead of tanh's and exp's outputs: tanh's, nearer the
// backward than the region's cos output it could rebuild tanh from.
func.func @g(%W: tensor<4x4xf32> {jx.arg_name = "W"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%W, %x) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<dots_saveable> {
  ^bb0(%w: tensor<4x4xf32>, %v: tensor<4xf32>):
    %h = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %a = jx.sin %h : tensor<4xf32>
    %b = jx.cos %a : tensor<4xf32>
    jx.yield %b : tensor<4xf32>
  }
  %a = jx.tanh %r : tensor<4xf32>
  %c = jx.exp %a : tensor<4xf32>
  %s = jx.reduce_sum %c, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// KEEP-LABEL: saved residuals of @g:
// KEEP-NEXT:  f32[4,4] from the argument W
// KEEP-NEXT:  f32[4] from the argument x
// KEEP-NEXT:  f32[4] output of dot_general
// KEEP-NEXT:  f32[4] output of tanh
// KEEP-NEXT:  f32[4] output of exp
// KEEP-NEXT:  total: 5 residuals, 128 bytes
// CUT-LABEL: saved residuals of @g:
// CUT-NEXT:  f32[4,4] from the argument W
// CUT-NEXT:  f32[4] from the argument x
// CUT-NEXT:  f32[4] output of dot_general
// CUT-NEXT:  f32[4] output of tanh
// CUT-NEXT:  total: 4 residuals, 112 bytes

// -----

// A memory_budget solve plans the whole pair: the values outside its region
// stay saved.
func.func @b(%W: tensor<4x4xf32> {jx.arg_name = "W"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<f32> {
  %r = jx.remat(%W, %x) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<memory_budget(1.0)> {
  ^bb0(%w: tensor<4x4xf32>, %v: tensor<4xf32>):
    %h = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %a = jx.sin %h : tensor<4xf32>
    jx.yield %a : tensor<4xf32>
  }
  %a = jx.tanh %r : tensor<4xf32>
  %c = jx.exp %a : tensor<4xf32>
  %s = jx.reduce_sum %c, axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CUT-LABEL: saved residuals of @b:
// CUT-NEXT:  f32[4,4] from the argument W
// CUT-NEXT:  f32[4] from the argument x
// CUT-NEXT:  f32[4] output of cos
// CUT-NEXT:  f32[4] output of tanh
// CUT-NEXT:  f32[4] output of exp
// CUT-NEXT:  total: 5 residuals, 128 bytes
