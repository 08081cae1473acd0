// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s
// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat | FileCheck %s --check-prefix=IR

// The seed's g/f: g(W, x) = sin(W @ x), f = g . g . g. Checkpointing each g
// saves the weights, x and the g outputs sin[5], sin[6] -- no cos.
#g = loc("g"("seed.cpp":3:3))
func.func @each_g(%W1: tensor<5x4xf32> {jx.arg_name = "W1"}, %W2: tensor<6x5xf32> {jx.arg_name = "W2"},
                  %W3: tensor<7x6xf32> {jx.arg_name = "W3"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<7xf32> {
  %1 = jx.remat(%W1, %x) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%w: tensor<5x4xf32>, %h: tensor<4xf32>):
    %a = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32> loc(#g)
    %b = jx.sin %a : tensor<5xf32> loc(#g)
    jx.yield %b : tensor<5xf32>
  }
  %2 = jx.remat(%W2, %1) : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%w: tensor<6x5xf32>, %h: tensor<5xf32>):
    %a = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<6x5xf32>, tensor<5xf32> -> tensor<6xf32> loc(#g)
    %b = jx.sin %a : tensor<6xf32> loc(#g)
    jx.yield %b : tensor<6xf32>
  }
  %3 = jx.remat(%W3, %2) : (tensor<7x6xf32>, tensor<6xf32>) -> tensor<7xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%w: tensor<7x6xf32>, %h: tensor<6xf32>):
    %a = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<7x6xf32>, tensor<6xf32> -> tensor<7xf32> loc(#g)
    %b = jx.sin %a : tensor<7xf32> loc(#g)
    jx.yield %b : tensor<7xf32>
  }
  return %3 : tensor<7xf32>
}
// CHECK-LABEL: saved residuals of @each_g:
// CHECK-NEXT:  f32[5,4] from the argument W1
// CHECK-NEXT:  f32[6,5] from the argument W2
// CHECK-NEXT:  f32[7,6] from the argument W3
// CHECK-NEXT:  f32[4] from the argument x
// CHECK-NEXT:  f32[5] output of sin from seed.cpp:3 (g)
// CHECK-NEXT:  f32[6] output of sin from seed.cpp:3 (g)
// CHECK-NEXT:  total: 6 residuals, 428 bytes
// The backward recomputes each layer's cos from barrier-guarded saved inputs.
// IR-LABEL: func.func @each_g_bwd(
// IR-SAME:    %[[W1:[^:]*]]: tensor<5x4xf32>, %[[W2:[^:]*]]: tensor<6x5xf32>, %[[W3:[^:]*]]: tensor<7x6xf32>, %[[X:[^:]*]]: tensor<4xf32>, %[[S1:[^:]*]]: tensor<5xf32>, %[[S2:[^:]*]]: tensor<6xf32>, %[[CT:[^:]*]]: tensor<7xf32>)
// IR:         %[[GW3:.*]] = jx.optimization_barrier %[[W3]]
// IR-NEXT:    %[[GS2:.*]] = jx.optimization_barrier %[[S2]]
// IR-NEXT:    %[[D3:.*]] = jx.dot_general %[[GW3]], %[[GS2]]
// IR-NEXT:    %[[C3:.*]] = jx.cos %[[D3]]
// IR-NEXT:    jx.mul %[[CT]], %[[C3]]
// IR-NOT:     jx.sin
// IR:         return

// -----

// dots_with_no_batch_dims_saveable on the whole f: the weights, x and the
// three dot outputs.
#g = loc("g"("seed.cpp":3:3))
func.func @dots(%W1: tensor<5x4xf32> {jx.arg_name = "W1"}, %W2: tensor<6x5xf32> {jx.arg_name = "W2"},
                %W3: tensor<7x6xf32> {jx.arg_name = "W3"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<7xf32> {
  %r = jx.remat(%W1, %W2, %W3, %x) : (tensor<5x4xf32>, tensor<6x5xf32>, tensor<7x6xf32>, tensor<4xf32>) -> tensor<7xf32>
      policy = #jx.policy<dots_with_no_batch_dims_saveable> {
  ^bb0(%w1: tensor<5x4xf32>, %w2: tensor<6x5xf32>, %w3: tensor<7x6xf32>, %h: tensor<4xf32>):
    %0 = jx.dot_general %w1, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32> loc(#g)
    %1 = jx.sin %0 : tensor<5xf32> loc(#g)
    %2 = jx.dot_general %w2, %1, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<6x5xf32>, tensor<5xf32> -> tensor<6xf32> loc(#g)
    %3 = jx.sin %2 : tensor<6xf32> loc(#g)
    %4 = jx.dot_general %w3, %3, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<7x6xf32>, tensor<6xf32> -> tensor<7xf32> loc(#g)
    %5 = jx.sin %4 : tensor<7xf32> loc(#g)
    jx.yield %5 : tensor<7xf32>
  }
  return %r : tensor<7xf32>
}
// CHECK-LABEL: saved residuals of @dots:
// CHECK-NEXT:  f32[5,4] from the argument W1
// CHECK-NEXT:  f32[6,5] from the argument W2
// CHECK-NEXT:  f32[7,6] from the argument W3
// CHECK-NEXT:  f32[4] from the argument x
// CHECK-NEXT:  f32[5] output of dot_general from seed.cpp:3 (g)
// CHECK-NEXT:  f32[6] output of dot_general from seed.cpp:3 (g)
// CHECK-NEXT:  f32[7] output of dot_general from seed.cpp:3 (g)
// CHECK-NEXT:  total: 7 residuals,

// -----

// Names 'a', 'b', 'c' on the g outputs; save_only_these_names("a") keeps 'a' only.
#g = loc("g"("seed.cpp":3:3))
#n = loc("f"("seed.cpp":9:3))
func.func @names(%W1: tensor<5x4xf32> {jx.arg_name = "W1"}, %W2: tensor<6x5xf32> {jx.arg_name = "W2"},
                 %W3: tensor<7x6xf32> {jx.arg_name = "W3"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<7xf32> {
  %r = jx.remat(%W1, %W2, %W3, %x) : (tensor<5x4xf32>, tensor<6x5xf32>, tensor<7x6xf32>, tensor<4xf32>) -> tensor<7xf32>
      policy = #jx.policy<save_only_these_names("a")> {
  ^bb0(%w1: tensor<5x4xf32>, %w2: tensor<6x5xf32>, %w3: tensor<7x6xf32>, %h: tensor<4xf32>):
    %0 = jx.dot_general %w1, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32> loc(#g)
    %1 = jx.sin %0 : tensor<5xf32> loc(#g)
    %a = jx.checkpoint_name %1, "a" : tensor<5xf32> loc(#n)
    %2 = jx.dot_general %w2, %a, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<6x5xf32>, tensor<5xf32> -> tensor<6xf32> loc(#g)
    %3 = jx.sin %2 : tensor<6xf32> loc(#g)
    %b = jx.checkpoint_name %3, "b" : tensor<6xf32> loc(#n)
    %4 = jx.dot_general %w3, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<7x6xf32>, tensor<6xf32> -> tensor<7xf32> loc(#g)
    %5 = jx.sin %4 : tensor<7xf32> loc(#g)
    %c = jx.checkpoint_name %5, "c" : tensor<7xf32> loc(#n)
    jx.yield %c : tensor<7xf32>
  }
  return %r : tensor<7xf32>
}
// CHECK-LABEL: saved residuals of @names:
// CHECK-NEXT:  f32[5,4] from the argument W1
// CHECK-NEXT:  f32[6,5] from the argument W2
// CHECK-NEXT:  f32[7,6] from the argument W3
// CHECK-NEXT:  f32[4] from the argument x
// CHECK-NEXT:  f32[5] named 'a' from seed.cpp:9 (f)
// CHECK-NEXT:  total: 5 residuals, 404 bytes

// -----

// everything_saveable gives exactly the residuals of no remat.
func.func @everything(%W: tensor<5x4xf32> {jx.arg_name = "W"}, %x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<5xf32> {
  %r = jx.remat(%W, %x) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5xf32> policy = #jx.policy<everything_saveable> {
  ^bb0(%w: tensor<5x4xf32>, %h: tensor<4xf32>):
    %0 = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
    %1 = jx.tanh %0 : tensor<5xf32>
    jx.yield %1 : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}
// CHECK-LABEL: saved residuals of @everything:
// CHECK-NEXT:  f32[5,4] from the argument W
// CHECK-NEXT:  f32[4] from the argument x
// CHECK-NEXT:  f32[5] output of tanh from
// CHECK-NEXT:  total: 3 residuals, 116 bytes

// -----

// Offload: the named value goes to host memory, tagged on both sides.
func.func @offload(%x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<4xf32> {
  %r = jx.remat(%x) : (tensor<4xf32>) -> tensor<4xf32>
      policy = #jx.policy<save_and_offload_only_these_names([], ["h"], "device", "pinned_host")> {
  ^bb0(%h: tensor<4xf32>):
    %0 = jx.sin %h : tensor<4xf32>
    %1 = jx.checkpoint_name %0, "h" : tensor<4xf32>
    %2 = jx.mul %1, %1 : tensor<4xf32>
    jx.yield %2 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// The region's input x is saved to recompute sin's cos.
// CHECK-LABEL: saved residuals of @offload:
// CHECK-NEXT:  f32[4] from the argument x
// CHECK-NEXT:  f32[4] named 'h' from {{.*}}jx-remat.mlir:{{[0-9]+}} [offloaded to pinned_host]
// CHECK-NEXT:  total: 2 residuals, 32 bytes (16 offloaded)
// IR-LABEL: func.func @offload_fwd(
// IR-SAME:    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">})
// IR-LABEL: func.func @offload_bwd(
// IR-SAME:    {jx.residual = #jx.residual<memory_kind = "pinned_host">}

// -----

// Nested regions intersect: an outer nothing_saveable keeps nothing inside it,
// even where an inner region would save everything.
func.func @nested(%x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<4xf32> {
  %r = jx.remat(%x) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%h: tensor<4xf32>):
    %0 = jx.sin %h : tensor<4xf32>
    %1 = jx.remat(%0) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<everything_saveable> {
    ^bb0(%i: tensor<4xf32>):
      %2 = jx.sin %i : tensor<4xf32>
      jx.yield %2 : tensor<4xf32>
    }
    jx.yield %1 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// CHECK-LABEL: saved residuals of @nested:
// CHECK-NEXT:  f32[4] from the argument x
// CHECK-NEXT:  total: 1 residuals, 16 bytes

// -----

// An inner region saves what its policy allows inside an outer everything_saveable.
func.func @nested_inner(%x: tensor<4xf32> {jx.arg_name = "x"}) -> tensor<4xf32> {
  %r = jx.remat(%x) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<everything_saveable> {
  ^bb0(%h: tensor<4xf32>):
    %0 = jx.sin %h : tensor<4xf32>
    %1 = jx.remat(%0) : (tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<nothing_saveable> {
    ^bb0(%i: tensor<4xf32>):
      %2 = jx.sin %i : tensor<4xf32>
      jx.yield %2 : tensor<4xf32>
    }
    jx.yield %1 : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// The outer sin's cos is saved; the inner region's input (the outer sin) is
// saved so the inner cos can be recomputed from it.
// CHECK-LABEL: saved residuals of @nested_inner:
// CHECK-NEXT:  f32[4] output of sin
// CHECK-NEXT:  f32[4] output of cos
// CHECK-NEXT:  total: 2 residuals, 32 bytes
