// min_residual_bytes: a remat region saves the values of least total bytes
// from which its backward can run, recomputing elementwise ops and views
// only (a minimum cut of the region's dataflow, by Boost.Graph's max flow).
// min_residual_bytes_recomputing_dots may recompute dot_general too.
//
// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s
//
// Gradients: each function's value and gradient are bit-identical to those
// of the same split without remat, by the interpreter and compiled.
//
// RUN: cotangent-opt %s --jx-vjp -o %t.ref.mlir
// RUN: cotangent-opt %s --jx-vjp --jx-remat -o %t.remat.mlir
// RUN: for f in mlp mlp_no_remat chain chain_no_remat mlp_dots; do \
// RUN:   cotangent-interpret %t.ref.mlir --fn ${f}_value_and_grad --seed 5 > %t.want || exit 1; \
// RUN:   cotangent-interpret %t.remat.mlir --fn ${f}_value_and_grad --seed 5 > %t.got || exit 1; \
// RUN:   diff %t.want %t.got || { echo "interpreter: $f"; exit 1; }; \
// RUN: done
// RUN: cotangent-run %t.ref.mlir --fn mlp_value_and_grad --seed 5 | grep '^result' > %t.want
// RUN: cotangent-run %t.remat.mlir --fn mlp_value_and_grad --seed 5 | grep '^result' > %t.got
// RUN: diff %t.want %t.got

// Three layers of tanh(h @ W). One f32[4,8] per layer is needed: each dot
// output or each tanh output, the same bytes. Of the cuts of least bytes
// the one nearest the backward is taken, which recomputes least: each tanh
// keeps its output, which serves both the next layer's weight gradient and
// tanh's factor 1 - tanh(z)^2, and nothing is recomputed (the dot outputs
// would make the backward run every tanh again). That is also what the split
// keeps without remat (@mlp_no_remat), where JAX's rule keeps two tensors per
// layer (the output and 1 - output).
func.func @mlp(%x: tensor<4x8xf32> {jx.arg_name = "x"}, %w1: tensor<8x8xf32> {jx.arg_name = "W1"},
               %w2: tensor<8x8xf32> {jx.arg_name = "W2"}, %w3: tensor<8x8xf32> {jx.arg_name = "W3"}) -> tensor<f32> {
  %r = jx.remat(%x, %w1, %w2, %w3) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      policy = #jx.policy<min_residual_bytes> {
  ^bb0(%h0: tensor<4x8xf32>, %a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>):
    %z1 = jx.dot_general %h0, %a, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %h1 = jx.tanh %z1 : tensor<4x8xf32>
    %z2 = jx.dot_general %h1, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %h2 = jx.tanh %z2 : tensor<4x8xf32>
    %z3 = jx.dot_general %h2, %c, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %h3 = jx.tanh %z3 : tensor<4x8xf32>
    jx.yield %h3 : tensor<4x8xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: saved residuals of @mlp:
// CHECK-NEXT:  f32[4,8] from the argument x
// CHECK-NEXT:  f32[8,8] from the argument W1
// CHECK-NEXT:  f32[8,8] from the argument W2
// CHECK-NEXT:  f32[8,8] from the argument W3
// CHECK-NEXT:  f32[4,8] output of tanh from {{.*}}.mlir:[[#@LINE-15]]
// CHECK-NEXT:  f32[4,8] output of tanh from {{.*}}.mlir:[[#@LINE-14]]
// CHECK-NEXT:  f32[4,8] output of tanh from {{.*}}.mlir:[[#@LINE-13]]
// CHECK-NEXT:  total: 7 residuals, 1280 bytes

func.func @mlp_no_remat(%x: tensor<4x8xf32> {jx.arg_name = "x"}, %w1: tensor<8x8xf32> {jx.arg_name = "W1"},
                        %w2: tensor<8x8xf32> {jx.arg_name = "W2"}, %w3: tensor<8x8xf32> {jx.arg_name = "W3"}) -> tensor<f32> {
  %z1 = jx.dot_general %x, %w1, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %h1 = jx.tanh %z1 : tensor<4x8xf32>
  %z2 = jx.dot_general %h1, %w2, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %h2 = jx.tanh %z2 : tensor<4x8xf32>
  %z3 = jx.dot_general %h2, %w3, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %h3 = jx.tanh %z3 : tensor<4x8xf32>
  %s = jx.reduce_sum %h3, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: saved residuals of @mlp_no_remat:
// CHECK-COUNT-4: from the argument
// CHECK-NEXT:  f32[4,8] output of tanh
// CHECK-NEXT:  f32[4,8] output of tanh
// CHECK-NEXT:  f32[4,8] output of tanh
// CHECK-NEXT:  total: 7 residuals, 1280 bytes

// cos(sin(exp(x @ W))): the elementwise chain needs exp, cos of exp and sin
// of sin of exp (three tensors without remat, @chain_no_remat); the cut
// keeps one tensor, exp's output rather than the dot's (the same bytes, one
// op less to recompute), and recomputes the rest of the chain from it.
func.func @chain(%x: tensor<4x8xf32> {jx.arg_name = "x"}, %w: tensor<8x8xf32> {jx.arg_name = "W"}) -> tensor<f32> {
  %r = jx.remat(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> policy = #jx.policy<min_residual_bytes> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %d = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %e = jx.exp %d : tensor<4x8xf32>
    %s = jx.sin %e : tensor<4x8xf32>
    %c = jx.cos %s : tensor<4x8xf32>
    jx.yield %c : tensor<4x8xf32>
  }
  %t = jx.reduce_sum %r, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %t : tensor<f32>
}
// CHECK-LABEL: saved residuals of @chain:
// CHECK-NEXT:  f32[4,8] from the argument x
// CHECK-NEXT:  f32[8,8] from the argument W
// CHECK-NEXT:  f32[4,8] output of exp
// CHECK-NEXT:  total: 3 residuals, 512 bytes

func.func @chain_no_remat(%x: tensor<4x8xf32> {jx.arg_name = "x"}, %w: tensor<8x8xf32> {jx.arg_name = "W"}) -> tensor<f32> {
  %d = jx.dot_general %x, %w, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %e = jx.exp %d : tensor<4x8xf32>
  %s = jx.sin %e : tensor<4x8xf32>
  %c = jx.cos %s : tensor<4x8xf32>
  %t = jx.reduce_sum %c, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %t : tensor<f32>
}
// CHECK-LABEL: saved residuals of @chain_no_remat:
// CHECK-NEXT:  f32[4,8] from the argument x
// CHECK-NEXT:  f32[8,8] from the argument W
// CHECK-NEXT:  f32[4,8] output of exp
// CHECK-NEXT:  f32[4,8] output of cos
// CHECK-NEXT:  f32[4,8] output of neg
// CHECK-NEXT:  total: 5 residuals, 768 bytes

// Allowed to recompute dots, the cut goes through the arguments, which the
// backward reads anyway (they cost nothing): the whole MLP is recomputed.
func.func @mlp_dots(%x: tensor<4x8xf32> {jx.arg_name = "x"}, %w1: tensor<8x8xf32> {jx.arg_name = "W1"},
                    %w2: tensor<8x8xf32> {jx.arg_name = "W2"}) -> tensor<f32> {
  %r = jx.remat(%x, %w1, %w2) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      policy = #jx.policy<min_residual_bytes_recomputing_dots> {
  ^bb0(%h0: tensor<4x8xf32>, %a: tensor<8x8xf32>, %b: tensor<8x8xf32>):
    %z1 = jx.dot_general %h0, %a, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %h1 = jx.tanh %z1 : tensor<4x8xf32>
    %z2 = jx.dot_general %h1, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %h2 = jx.tanh %z2 : tensor<4x8xf32>
    jx.yield %h2 : tensor<4x8xf32>
  }
  %s = jx.reduce_sum %r, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
// CHECK-LABEL: saved residuals of @mlp_dots:
// CHECK-NEXT:  f32[4,8] from the argument x
// CHECK-NEXT:  f32[8,8] from the argument W1
// CHECK-NEXT:  f32[8,8] from the argument W2
// CHECK-NEXT:  total: 3 residuals, 640 bytes
