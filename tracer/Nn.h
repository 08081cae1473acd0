//===- Nn.h - jax.nn's functions over traced tensors -------------*- C++ -*-===//
//
// `cotangent::nn` mirrors jax.nn (and the normalizations Flax's layers
// compute): each function is written with the `np` ops, as JAX writes it,
// so its VJP, interpreter support and CPU/GPU lowering are those of the ops
// it emits, and its numerics follow JAX's (softmax and logsumexp subtract
// the maximum behind stop_gradient, so no mask of the maximum is saved for
// the backward). Locations are the caller's, as for `np`.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_NN_H
#define COTANGENT_TRACER_NN_H

#include "tracer/Numpy.h"

#include <optional>

namespace cotangent::nn {

/// jax.nn.sigmoid: 1 / (1 + exp(-x)) (jx.logistic).
Tensor sigmoid(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jax.nn.softplus: log(1 + exp(x)), as log1p(exp(-|x|)) + max(x, 0).
Tensor softplus(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jax.nn.silu (swish): x * sigmoid(x).
Tensor silu(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jax.nn.relu: max(x, 0).
Tensor relu(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jax.nn.gelu: with `approximate` (JAX's default) 0.5 x (1 + tanh(sqrt(2/pi)
/// (x + 0.044715 x^3))), otherwise the exact 0.5 x erfc(-x / sqrt(2)).
Tensor gelu(const Tensor &x, bool approximate = true, SrcLoc loc = SrcLoc::current());
/// jax.nn.softmax along `axis`.
Tensor softmax(const Tensor &x, int64_t axis = -1, SrcLoc loc = SrcLoc::current());
/// jax.nn.log_softmax along `axis`.
Tensor log_softmax(const Tensor &x, int64_t axis = -1, SrcLoc loc = SrcLoc::current());
/// jax.nn.logsumexp over `axes` (all by default).
Tensor logsumexp(const Tensor &x, np::Axes axes = {}, bool keepdims = false,
                 SrcLoc loc = SrcLoc::current());
/// jax.nn.one_hot: a new last axis of `num_classes` holding 1 where it
/// equals the integer `indices`, 0 elsewhere (out-of-range indices give a row
/// of zeros), as `dtype`.
Tensor one_hot(const Tensor &indices, int64_t num_classes, DType dtype = DType::F32,
               SrcLoc loc = SrcLoc::current());
/// How jax.nn.dot_product_attention computes (its `implementation`).
enum class AttentionImplementation {
  /// One jx.dot_product_attention: FlashAttention-2's kernels on the CPU
  /// (f32), the scores [B, N, T, S] never all live; expanded elsewhere.
  Fused,
  /// JAX's "xla": the scores materialized, einsum, softmax, einsum.
  Xla,
};
/// jax.nn.dot_product_attention's keyword arguments that Cotangent takes.
struct AttentionOptions {
  /// The scores' factor; 1 / sqrt(head size) when unset.
  std::optional<double> scale;
  /// Query i sees keys j <= i (JAX's tril(ones(T, S))).
  bool is_causal = false;
  AttentionImplementation implementation = AttentionImplementation::Fused;
};
/// jax.nn.dot_product_attention: query [B, T, N, H] (or [T, N, H]), key and
/// value [B, S, N, H] (or [S, N, H]), one float dtype; the result is the
/// query's shape: per batch and head softmax(scale q k^T) v.
Tensor dot_product_attention(const Tensor &query, const Tensor &key, const Tensor &value,
                             const AttentionOptions &options = {},
                             SrcLoc loc = SrcLoc::current());
/// Flax's LayerNorm over the last axis: (x - mean) / sqrt(var + eps) * scale + bias.
Tensor layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, double eps = 1e-6,
                  SrcLoc loc = SrcLoc::current());
/// Flax's RMSNorm over the last axis: x / sqrt(mean(x^2) + eps) * scale.
Tensor rms_norm(const Tensor &x, const Tensor &scale, double eps = 1e-6,
                SrcLoc loc = SrcLoc::current());

} // namespace cotangent::nn

namespace cotangent::np {

/// jnp.var: the mean squared deviation from the mean over `axes` (ddof 0).
Tensor var(const Tensor &x, Axes axes = {}, bool keepdims = false,
           SrcLoc loc = SrcLoc::current());
/// jnp.clip: min(max(x, lo), hi).
Tensor clip(const Tensor &x, const Operand &lo, const Operand &hi,
            SrcLoc loc = SrcLoc::current());
/// jnp.isfinite: true where x is neither NaN nor infinite (x == x and |x| != inf).
Tensor isfinite(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jnp.exp2: 2 ** x, as exp(x * ln 2).
Tensor exp2(const Tensor &x, SrcLoc loc = SrcLoc::current());

} // namespace cotangent::np

#endif // COTANGENT_TRACER_NN_H
