// Two-head self-attention with a softmax over the keys, the JAX program of
// test/jax/gen_reference_residuals.py (attention) written in jx, primitive for primitive:
//
//   q, k, v = (checkpoint_name(x @ w, n) for w, n in ((wq, "q"), (wk, "k"), (wv, "v")))
//   q, k, v = (t.reshape(4, 2, 4) for t in (q, k, v))                     # [seq, head, dim]
//   s = lax.dot_general(q, k, (((2,), (2,)), ((1,), (1,)))) * 0.5         # [head, seq, seq]
//   e = jnp.exp(s - lax.stop_gradient(jnp.max(s, axis=-1, keepdims=True)))
//   p = e / jnp.sum(e, axis=-1, keepdims=True)
//   o = lax.dot_general(p, v, (((2,), (0,)), ((0,), (1,))))              # [head, seq, dim]
//   loss = jnp.sum(o.transpose(1, 0, 2).reshape(4, 8) @ wo)
//
// x is f32[4,8] (4 tokens of width 8), the weights f32[8,8]. As in layer_norm.mlir, JAX's
// implicit broadcasts are explicit jx.broadcast_in_dim ops and its scalar literal a 0-d
// jx.constant. The four functions differ only in the checkpoint around the body: none,
// nothing_saveable, dots_saveable and save_only_these_names("q", "k", "v"); test/jax/
// compares their saved residuals with JAX's (test/jax/reference/attention-<variant>.json):
//
//   cotangent-opt examples/attention.mlir --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null

// Without a checkpoint: every value the backward needs is saved.
func.func @attention_no_remat(%x: tensor<4x8xf32> {jx.arg_name = "x"},
                              %wq: tensor<8x8xf32> {jx.arg_name = "wq"},
                              %wk: tensor<8x8xf32> {jx.arg_name = "wk"},
                              %wv: tensor<8x8xf32> {jx.arg_name = "wv"},
                              %wo: tensor<8x8xf32> {jx.arg_name = "wo"})
    -> tensor<f32> {
  %q0 = jx.dot_general %x, %wq, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %q = jx.checkpoint_name %q0, "q" : tensor<4x8xf32>
  %k0 = jx.dot_general %x, %wk, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %k = jx.checkpoint_name %k0, "k" : tensor<4x8xf32>
  %v0 = jx.dot_general %x, %wv, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %v = jx.checkpoint_name %v0, "v" : tensor<4x8xf32>
  %qh = jx.reshape %q : tensor<4x8xf32> -> tensor<4x2x4xf32>
  %kh = jx.reshape %k : tensor<4x8xf32> -> tensor<4x2x4xf32>
  %vh = jx.reshape %v : tensor<4x8xf32> -> tensor<4x2x4xf32>
  %s0 = jx.dot_general %qh, %kh, contracting_dims = [2] x [2], batch_dims = [1] x [1]
         : tensor<4x2x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
  %c = jx.constant dense<0.5> : tensor<f32>
  %cb = jx.broadcast_in_dim %c, dims = [] : tensor<f32> -> tensor<2x4x4xf32>
  %s = jx.mul %s0, %cb : tensor<2x4x4xf32>
  %m0 = jx.reduce_max %s, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %m1 = jx.broadcast_in_dim %m0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
  %m = jx.stop_gradient %m1 : tensor<2x4x1xf32>
  %mb = jx.broadcast_in_dim %m, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %t = jx.sub %s, %mb : tensor<2x4x4xf32>
  %e = jx.exp %t : tensor<2x4x4xf32>
  %z0 = jx.reduce_sum %e, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %z1 = jx.broadcast_in_dim %z0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
  %zb = jx.broadcast_in_dim %z1, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
  %p = jx.div %e, %zb : tensor<2x4x4xf32>
  %o = jx.dot_general %p, %vh, contracting_dims = [2] x [0], batch_dims = [0] x [1]
         : tensor<2x4x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
  %ot = jx.transpose %o, perm = [1, 0, 2] : tensor<2x4x4xf32> -> tensor<4x2x4xf32>
  %or = jx.reshape %ot : tensor<4x2x4xf32> -> tensor<4x8xf32>
  %out = jx.dot_general %or, %wo, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %loss = jx.reduce_sum %out, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// jax.checkpoint(f, policy=nothing_saveable): only the inputs may be saved.
func.func @attention_nothing_saveable(%x0: tensor<4x8xf32> {jx.arg_name = "x"},
                                      %wq0: tensor<8x8xf32> {jx.arg_name = "wq"},
                                      %wk0: tensor<8x8xf32> {jx.arg_name = "wk"},
                                      %wv0: tensor<8x8xf32> {jx.arg_name = "wv"},
                                      %wo0: tensor<8x8xf32> {jx.arg_name = "wo"})
    -> tensor<f32> {
  %r = jx.remat(%x0, %wq0, %wk0, %wv0, %wo0) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<f32>
      policy = #jx.policy<nothing_saveable> {
  ^bb0(%x: tensor<4x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>):
    %q0 = jx.dot_general %x, %wq, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %q = jx.checkpoint_name %q0, "q" : tensor<4x8xf32>
    %k0 = jx.dot_general %x, %wk, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %k = jx.checkpoint_name %k0, "k" : tensor<4x8xf32>
    %v0 = jx.dot_general %x, %wv, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %v = jx.checkpoint_name %v0, "v" : tensor<4x8xf32>
    %qh = jx.reshape %q : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %kh = jx.reshape %k : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %vh = jx.reshape %v : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %s0 = jx.dot_general %qh, %kh, contracting_dims = [2] x [2], batch_dims = [1] x [1]
           : tensor<4x2x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
    %c = jx.constant dense<0.5> : tensor<f32>
    %cb = jx.broadcast_in_dim %c, dims = [] : tensor<f32> -> tensor<2x4x4xf32>
    %s = jx.mul %s0, %cb : tensor<2x4x4xf32>
    %m0 = jx.reduce_max %s, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
    %m1 = jx.broadcast_in_dim %m0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
    %m = jx.stop_gradient %m1 : tensor<2x4x1xf32>
    %mb = jx.broadcast_in_dim %m, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
    %t = jx.sub %s, %mb : tensor<2x4x4xf32>
    %e = jx.exp %t : tensor<2x4x4xf32>
    %z0 = jx.reduce_sum %e, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
    %z1 = jx.broadcast_in_dim %z0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
    %zb = jx.broadcast_in_dim %z1, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
    %p = jx.div %e, %zb : tensor<2x4x4xf32>
    %o = jx.dot_general %p, %vh, contracting_dims = [2] x [0], batch_dims = [0] x [1]
           : tensor<2x4x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
    %ot = jx.transpose %o, perm = [1, 0, 2] : tensor<2x4x4xf32> -> tensor<4x2x4xf32>
    %or = jx.reshape %ot : tensor<4x2x4xf32> -> tensor<4x8xf32>
    %out = jx.dot_general %or, %wo, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %loss = jx.reduce_sum %out, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    jx.yield %loss : tensor<f32>
  }
  return %r : tensor<f32>
}

// jax.checkpoint(f, policy=dots_saveable): dot_general outputs may be saved too.
func.func @attention_dots_saveable(%x0: tensor<4x8xf32> {jx.arg_name = "x"},
                                   %wq0: tensor<8x8xf32> {jx.arg_name = "wq"},
                                   %wk0: tensor<8x8xf32> {jx.arg_name = "wk"},
                                   %wv0: tensor<8x8xf32> {jx.arg_name = "wv"},
                                   %wo0: tensor<8x8xf32> {jx.arg_name = "wo"})
    -> tensor<f32> {
  %r = jx.remat(%x0, %wq0, %wk0, %wv0, %wo0) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<f32>
      policy = #jx.policy<dots_saveable> {
  ^bb0(%x: tensor<4x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>):
    %q0 = jx.dot_general %x, %wq, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %q = jx.checkpoint_name %q0, "q" : tensor<4x8xf32>
    %k0 = jx.dot_general %x, %wk, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %k = jx.checkpoint_name %k0, "k" : tensor<4x8xf32>
    %v0 = jx.dot_general %x, %wv, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %v = jx.checkpoint_name %v0, "v" : tensor<4x8xf32>
    %qh = jx.reshape %q : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %kh = jx.reshape %k : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %vh = jx.reshape %v : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %s0 = jx.dot_general %qh, %kh, contracting_dims = [2] x [2], batch_dims = [1] x [1]
           : tensor<4x2x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
    %c = jx.constant dense<0.5> : tensor<f32>
    %cb = jx.broadcast_in_dim %c, dims = [] : tensor<f32> -> tensor<2x4x4xf32>
    %s = jx.mul %s0, %cb : tensor<2x4x4xf32>
    %m0 = jx.reduce_max %s, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
    %m1 = jx.broadcast_in_dim %m0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
    %m = jx.stop_gradient %m1 : tensor<2x4x1xf32>
    %mb = jx.broadcast_in_dim %m, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
    %t = jx.sub %s, %mb : tensor<2x4x4xf32>
    %e = jx.exp %t : tensor<2x4x4xf32>
    %z0 = jx.reduce_sum %e, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
    %z1 = jx.broadcast_in_dim %z0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
    %zb = jx.broadcast_in_dim %z1, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
    %p = jx.div %e, %zb : tensor<2x4x4xf32>
    %o = jx.dot_general %p, %vh, contracting_dims = [2] x [0], batch_dims = [0] x [1]
           : tensor<2x4x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
    %ot = jx.transpose %o, perm = [1, 0, 2] : tensor<2x4x4xf32> -> tensor<4x2x4xf32>
    %or = jx.reshape %ot : tensor<4x2x4xf32> -> tensor<4x8xf32>
    %out = jx.dot_general %or, %wo, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %loss = jx.reduce_sum %out, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    jx.yield %loss : tensor<f32>
  }
  return %r : tensor<f32>
}

// jax.checkpoint(f, policy=save_only_these_names('q', 'k', 'v')): the inputs and those named values.
func.func @attention_save_only_these_names(%x0: tensor<4x8xf32> {jx.arg_name = "x"},
                                           %wq0: tensor<8x8xf32> {jx.arg_name = "wq"},
                                           %wk0: tensor<8x8xf32> {jx.arg_name = "wk"},
                                           %wv0: tensor<8x8xf32> {jx.arg_name = "wv"},
                                           %wo0: tensor<8x8xf32> {jx.arg_name = "wo"})
    -> tensor<f32> {
  %r = jx.remat(%x0, %wq0, %wk0, %wv0, %wo0) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<f32>
      policy = #jx.policy<save_only_these_names("q", "k", "v")> {
  ^bb0(%x: tensor<4x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>):
    %q0 = jx.dot_general %x, %wq, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %q = jx.checkpoint_name %q0, "q" : tensor<4x8xf32>
    %k0 = jx.dot_general %x, %wk, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %k = jx.checkpoint_name %k0, "k" : tensor<4x8xf32>
    %v0 = jx.dot_general %x, %wv, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %v = jx.checkpoint_name %v0, "v" : tensor<4x8xf32>
    %qh = jx.reshape %q : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %kh = jx.reshape %k : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %vh = jx.reshape %v : tensor<4x8xf32> -> tensor<4x2x4xf32>
    %s0 = jx.dot_general %qh, %kh, contracting_dims = [2] x [2], batch_dims = [1] x [1]
           : tensor<4x2x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
    %c = jx.constant dense<0.5> : tensor<f32>
    %cb = jx.broadcast_in_dim %c, dims = [] : tensor<f32> -> tensor<2x4x4xf32>
    %s = jx.mul %s0, %cb : tensor<2x4x4xf32>
    %m0 = jx.reduce_max %s, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
    %m1 = jx.broadcast_in_dim %m0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
    %m = jx.stop_gradient %m1 : tensor<2x4x1xf32>
    %mb = jx.broadcast_in_dim %m, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
    %t = jx.sub %s, %mb : tensor<2x4x4xf32>
    %e = jx.exp %t : tensor<2x4x4xf32>
    %z0 = jx.reduce_sum %e, axes = [2] : tensor<2x4x4xf32> -> tensor<2x4xf32>
    %z1 = jx.broadcast_in_dim %z0, dims = [0, 1] : tensor<2x4xf32> -> tensor<2x4x1xf32>
    %zb = jx.broadcast_in_dim %z1, dims = [0, 1, 2] : tensor<2x4x1xf32> -> tensor<2x4x4xf32>
    %p = jx.div %e, %zb : tensor<2x4x4xf32>
    %o = jx.dot_general %p, %vh, contracting_dims = [2] x [0], batch_dims = [0] x [1]
           : tensor<2x4x4xf32>, tensor<4x2x4xf32> -> tensor<2x4x4xf32>
    %ot = jx.transpose %o, perm = [1, 0, 2] : tensor<2x4x4xf32> -> tensor<4x2x4xf32>
    %or = jx.reshape %ot : tensor<4x2x4xf32> -> tensor<4x8xf32>
    %out = jx.dot_general %or, %wo, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %loss = jx.reduce_sum %out, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    jx.yield %loss : tensor<f32>
  }
  return %r : tensor<f32>
}
