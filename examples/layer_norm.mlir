// Layer norm over the last axis, the JAX program of test/jax/gen_reference_residuals.py
// (layer_norm) written in jx, primitive for primitive:
//
//   mean = checkpoint_name(jnp.mean(x, axis=-1, keepdims=True), "mean")   # f32[4,1]
//   xc   = checkpoint_name(x - mean, "xc")                                 # f32[4,8]
//   var  = jnp.mean(xc * xc, axis=-1, keepdims=True)
//   inv  = checkpoint_name(lax.rsqrt(var + 1e-5), "inv")                  # f32[4,1]
//   loss = jnp.sum(xc * inv * scale + bias)
//
// JAX broadcasts size-1 axes and scalar literals implicitly; jx does not, so each implicit
// broadcast of the jaxpr is an explicit jx.broadcast_in_dim here, and each literal a 0-d
// jx.constant broadcast to the operand's shape. The four functions differ only in the
// checkpoint around the body: none, nothing_saveable, dots_saveable and
// save_only_these_names("mean", "inv") ("xc" is named but not saved). test/jax/ compares
// their saved residuals with JAX's (test/jax/reference/layer_norm-<variant>.json):
//
//   cotangent-opt examples/layer_norm.mlir --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null

// Without a checkpoint: every value the backward needs is saved.
func.func @layer_norm_no_remat(%x: tensor<4x8xf32> {jx.arg_name = "x"},
                               %scale: tensor<8xf32> {jx.arg_name = "scale"},
                               %bias: tensor<8xf32> {jx.arg_name = "bias"})
    -> tensor<f32> {
  %sum = jx.reduce_sum %x, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sum1 = jx.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
  %n = jx.constant dense<8.0> : tensor<f32>
  %n1 = jx.broadcast_in_dim %n, dims = [] : tensor<f32> -> tensor<4x1xf32>
  %mean0 = jx.div %sum1, %n1 : tensor<4x1xf32>
  %mean = jx.checkpoint_name %mean0, "mean" : tensor<4x1xf32>
  %meanb = jx.broadcast_in_dim %mean, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
  %xc0 = jx.sub %x, %meanb : tensor<4x8xf32>
  %xc = jx.checkpoint_name %xc0, "xc" : tensor<4x8xf32>
  %sq = jx.mul %xc, %xc : tensor<4x8xf32>
  %ssq = jx.reduce_sum %sq, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %ssq1 = jx.broadcast_in_dim %ssq, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
  %var = jx.div %ssq1, %n1 : tensor<4x1xf32>
  %eps = jx.constant dense<1.0e-05> : tensor<f32>
  %eps1 = jx.broadcast_in_dim %eps, dims = [] : tensor<f32> -> tensor<4x1xf32>
  %vareps = jx.add %var, %eps1 : tensor<4x1xf32>
  %inv0 = jx.rsqrt %vareps : tensor<4x1xf32>
  %inv = jx.checkpoint_name %inv0, "inv" : tensor<4x1xf32>
  %invb = jx.broadcast_in_dim %inv, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
  %norm = jx.mul %xc, %invb : tensor<4x8xf32>
  %scale1 = jx.broadcast_in_dim %scale, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
  %scaleb = jx.broadcast_in_dim %scale1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
  %scaled = jx.mul %norm, %scaleb : tensor<4x8xf32>
  %bias1 = jx.broadcast_in_dim %bias, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
  %biasb = jx.broadcast_in_dim %bias1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
  %y = jx.add %scaled, %biasb : tensor<4x8xf32>
  %loss = jx.reduce_sum %y, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// jax.checkpoint(f, policy=nothing_saveable): only the inputs may be saved.
func.func @layer_norm_nothing_saveable(%x0: tensor<4x8xf32> {jx.arg_name = "x"},
                                       %scale0: tensor<8xf32> {jx.arg_name = "scale"},
                                       %bias0: tensor<8xf32> {jx.arg_name = "bias"})
    -> tensor<f32> {
  %r = jx.remat(%x0, %scale0, %bias0) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
      policy = #jx.policy<nothing_saveable> {
  ^bb0(%x: tensor<4x8xf32>, %scale: tensor<8xf32>, %bias: tensor<8xf32>):
    %sum = jx.reduce_sum %x, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %sum1 = jx.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
    %n = jx.constant dense<8.0> : tensor<f32>
    %n1 = jx.broadcast_in_dim %n, dims = [] : tensor<f32> -> tensor<4x1xf32>
    %mean0 = jx.div %sum1, %n1 : tensor<4x1xf32>
    %mean = jx.checkpoint_name %mean0, "mean" : tensor<4x1xf32>
    %meanb = jx.broadcast_in_dim %mean, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %xc0 = jx.sub %x, %meanb : tensor<4x8xf32>
    %xc = jx.checkpoint_name %xc0, "xc" : tensor<4x8xf32>
    %sq = jx.mul %xc, %xc : tensor<4x8xf32>
    %ssq = jx.reduce_sum %sq, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %ssq1 = jx.broadcast_in_dim %ssq, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
    %var = jx.div %ssq1, %n1 : tensor<4x1xf32>
    %eps = jx.constant dense<1.0e-05> : tensor<f32>
    %eps1 = jx.broadcast_in_dim %eps, dims = [] : tensor<f32> -> tensor<4x1xf32>
    %vareps = jx.add %var, %eps1 : tensor<4x1xf32>
    %inv0 = jx.rsqrt %vareps : tensor<4x1xf32>
    %inv = jx.checkpoint_name %inv0, "inv" : tensor<4x1xf32>
    %invb = jx.broadcast_in_dim %inv, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %norm = jx.mul %xc, %invb : tensor<4x8xf32>
    %scale1 = jx.broadcast_in_dim %scale, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
    %scaleb = jx.broadcast_in_dim %scale1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
    %scaled = jx.mul %norm, %scaleb : tensor<4x8xf32>
    %bias1 = jx.broadcast_in_dim %bias, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
    %biasb = jx.broadcast_in_dim %bias1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
    %y = jx.add %scaled, %biasb : tensor<4x8xf32>
    %loss = jx.reduce_sum %y, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    jx.yield %loss : tensor<f32>
  }
  return %r : tensor<f32>
}

// jax.checkpoint(f, policy=dots_saveable): dot_general outputs may be saved too.
func.func @layer_norm_dots_saveable(%x0: tensor<4x8xf32> {jx.arg_name = "x"},
                                    %scale0: tensor<8xf32> {jx.arg_name = "scale"},
                                    %bias0: tensor<8xf32> {jx.arg_name = "bias"})
    -> tensor<f32> {
  %r = jx.remat(%x0, %scale0, %bias0) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
      policy = #jx.policy<dots_saveable> {
  ^bb0(%x: tensor<4x8xf32>, %scale: tensor<8xf32>, %bias: tensor<8xf32>):
    %sum = jx.reduce_sum %x, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %sum1 = jx.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
    %n = jx.constant dense<8.0> : tensor<f32>
    %n1 = jx.broadcast_in_dim %n, dims = [] : tensor<f32> -> tensor<4x1xf32>
    %mean0 = jx.div %sum1, %n1 : tensor<4x1xf32>
    %mean = jx.checkpoint_name %mean0, "mean" : tensor<4x1xf32>
    %meanb = jx.broadcast_in_dim %mean, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %xc0 = jx.sub %x, %meanb : tensor<4x8xf32>
    %xc = jx.checkpoint_name %xc0, "xc" : tensor<4x8xf32>
    %sq = jx.mul %xc, %xc : tensor<4x8xf32>
    %ssq = jx.reduce_sum %sq, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %ssq1 = jx.broadcast_in_dim %ssq, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
    %var = jx.div %ssq1, %n1 : tensor<4x1xf32>
    %eps = jx.constant dense<1.0e-05> : tensor<f32>
    %eps1 = jx.broadcast_in_dim %eps, dims = [] : tensor<f32> -> tensor<4x1xf32>
    %vareps = jx.add %var, %eps1 : tensor<4x1xf32>
    %inv0 = jx.rsqrt %vareps : tensor<4x1xf32>
    %inv = jx.checkpoint_name %inv0, "inv" : tensor<4x1xf32>
    %invb = jx.broadcast_in_dim %inv, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %norm = jx.mul %xc, %invb : tensor<4x8xf32>
    %scale1 = jx.broadcast_in_dim %scale, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
    %scaleb = jx.broadcast_in_dim %scale1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
    %scaled = jx.mul %norm, %scaleb : tensor<4x8xf32>
    %bias1 = jx.broadcast_in_dim %bias, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
    %biasb = jx.broadcast_in_dim %bias1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
    %y = jx.add %scaled, %biasb : tensor<4x8xf32>
    %loss = jx.reduce_sum %y, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    jx.yield %loss : tensor<f32>
  }
  return %r : tensor<f32>
}

// jax.checkpoint(f, policy=save_only_these_names('mean', 'inv')): the inputs and those named values.
func.func @layer_norm_save_only_these_names(%x0: tensor<4x8xf32> {jx.arg_name = "x"},
                                            %scale0: tensor<8xf32> {jx.arg_name = "scale"},
                                            %bias0: tensor<8xf32> {jx.arg_name = "bias"})
    -> tensor<f32> {
  %r = jx.remat(%x0, %scale0, %bias0) : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
      policy = #jx.policy<save_only_these_names("mean", "inv")> {
  ^bb0(%x: tensor<4x8xf32>, %scale: tensor<8xf32>, %bias: tensor<8xf32>):
    %sum = jx.reduce_sum %x, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %sum1 = jx.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
    %n = jx.constant dense<8.0> : tensor<f32>
    %n1 = jx.broadcast_in_dim %n, dims = [] : tensor<f32> -> tensor<4x1xf32>
    %mean0 = jx.div %sum1, %n1 : tensor<4x1xf32>
    %mean = jx.checkpoint_name %mean0, "mean" : tensor<4x1xf32>
    %meanb = jx.broadcast_in_dim %mean, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %xc0 = jx.sub %x, %meanb : tensor<4x8xf32>
    %xc = jx.checkpoint_name %xc0, "xc" : tensor<4x8xf32>
    %sq = jx.mul %xc, %xc : tensor<4x8xf32>
    %ssq = jx.reduce_sum %sq, axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %ssq1 = jx.broadcast_in_dim %ssq, dims = [0] : tensor<4xf32> -> tensor<4x1xf32>
    %var = jx.div %ssq1, %n1 : tensor<4x1xf32>
    %eps = jx.constant dense<1.0e-05> : tensor<f32>
    %eps1 = jx.broadcast_in_dim %eps, dims = [] : tensor<f32> -> tensor<4x1xf32>
    %vareps = jx.add %var, %eps1 : tensor<4x1xf32>
    %inv0 = jx.rsqrt %vareps : tensor<4x1xf32>
    %inv = jx.checkpoint_name %inv0, "inv" : tensor<4x1xf32>
    %invb = jx.broadcast_in_dim %inv, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %norm = jx.mul %xc, %invb : tensor<4x8xf32>
    %scale1 = jx.broadcast_in_dim %scale, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
    %scaleb = jx.broadcast_in_dim %scale1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
    %scaled = jx.mul %norm, %scaleb : tensor<4x8xf32>
    %bias1 = jx.broadcast_in_dim %bias, dims = [1] : tensor<8xf32> -> tensor<1x8xf32>
    %biasb = jx.broadcast_in_dim %bias1, dims = [0, 1] : tensor<1x8xf32> -> tensor<4x8xf32>
    %y = jx.add %scaled, %biasb : tensor<4x8xf32>
    %loss = jx.reduce_sum %y, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
    jx.yield %loss : tensor<f32>
  }
  return %r : tensor<f32>
}
