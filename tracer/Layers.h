//===- Layers.h - flax.linen's layers ----------------------------*- C++ -*-===//
//
// Flax's layers with Flax's parameter names, shapes and default
// initializers. A layer is a struct of its configuration with
//
//   Dict<interp::Tensor> init(Scope &scope, <input sizes>) const;  // Flax init
//   Tensor operator()(const Dict<Tensor> &params, Tensor x) const; // Flax apply
//
// so that a model composes them the way a Flax @compact module does, each
// submodule initialized in a child scope of Flax's default name:
//
//   struct MLP {
//     int64_t features;
//     Dict<Dict<interp::Tensor>> init(nn::Scope &scope, int64_t in) const {
//       return {{"Dense_0", Dense{features}.init(scope.child("Dense_0"), in)},
//               {"Dense_1", Dense{features}.init(scope.child("Dense_1"), features)}};
//     }
//     Tensor operator()(const Dict<Dict<Tensor>> &p, Tensor x) const { ... }
//   };
//   nn::Scope root(ctx, random::PRNGKey(0));
//   auto params = MLP{4}.init(root, 6);   // Flax: MLP(4).init(key, x)["params"]
//
// Parameters are host tensors (interp::Tensor) after init; apply is traced,
// so it runs through grad, jit and checkpoint (nn::checkpoint<MLP> keeps
// init: Flax's nn.checkpoint leaves the parameters alone).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_LAYERS_H
#define COTANGENT_TRACER_LAYERS_H

#include "tracer/Initializers.h"
#include "tracer/Tensor.h"

#include <map>
#include <optional>
#include <string>

namespace cotangent::nn {

template <class T>
using Dict = std::map<std::string, T>;

/// flax.linen.Dense: x . kernel + bias over x's last axis.
struct Dense {
  int64_t features;
  bool use_bias = true;
  Initializer kernel_init = initializers::lecun_normal();
  Initializer bias_init = initializers::zeros();

  /// {"kernel": f32[in_features, features], "bias": f32[features]}.
  Dict<interp::Tensor> init(Scope &scope, int64_t in_features) const;
  Tensor operator()(const Dict<Tensor> &params, const Tensor &x,
                    SrcLoc loc = SrcLoc::current()) const;
};

/// flax.linen.LayerNorm over the last axis, Flax's arithmetic (variance as
/// E[x^2] - E[x]^2, clamped at 0).
struct LayerNorm {
  double epsilon = 1e-6;
  bool use_bias = true;
  bool use_scale = true;
  Initializer bias_init = initializers::zeros();
  Initializer scale_init = initializers::ones();

  /// {"scale": f32[features], "bias": f32[features]}.
  Dict<interp::Tensor> init(Scope &scope, int64_t features) const;
  Tensor operator()(const Dict<Tensor> &params, const Tensor &x,
                    SrcLoc loc = SrcLoc::current()) const;
};

/// flax.linen.Embed: rows of an embedding table by integer id.
struct Embed {
  int64_t num_embeddings;
  int64_t features;
  Initializer embedding_init = initializers::variance_scaling(
      1.0, initializers::FanMode::FanIn, initializers::Distribution::Normal, -2, 0);

  /// {"embedding": f32[num_embeddings, features]}.
  Dict<interp::Tensor> init(Scope &scope) const;
  /// The rows of `ids` (any integer shape): jnp.take(embedding, ids, axis=0)
  /// as Flax, differentiating to a scatter-add. Ids outside the table are
  /// clamped (Flax's default `fill` mode gives NaN rows there).
  Tensor operator()(const Dict<Tensor> &params, const Tensor &ids,
                    SrcLoc loc = SrcLoc::current()) const;
};

/// flax.linen.MultiHeadDotProductAttention, self-attention: DenseGeneral
/// projections "query", "key", "value" (kernel [in, heads, head_dim], bias
/// [heads, head_dim]) and "out" (kernel [heads, head_dim, features], bias
/// [features]); the query is scaled by 1/sqrt(head_dim) before its dot with
/// the key, masked scores are float32's lowest, softmax over the keys.
struct MultiHeadDotProductAttention {
  int64_t num_heads;
  int64_t qkv_features = 0; ///< 0: the input's width
  int64_t out_features = 0; ///< 0: the input's width
  bool use_bias = true;
  Initializer kernel_init = initializers::lecun_normal();
  Initializer bias_init = initializers::zeros();

  Dict<Dict<interp::Tensor>> init(Scope &scope, int64_t in_features) const;
  /// x [..., seq, in]; `mask` (bool, broadcastable to [..., heads, seq, seq])
  /// keeps where true, as Flax's.
  Tensor operator()(const Dict<Dict<Tensor>> &params, const Tensor &x,
                    const std::optional<Tensor> &mask = std::nullopt,
                    SrcLoc loc = SrcLoc::current()) const;
};

/// flax.linen.Dropout. The keep mask is drawn on the host, as Flax draws it
/// (bernoulli(1 - rate) from the scope's next key: Scope(ctx, the 'dropout'
/// key) and the module path), and passed to the traced step as an argument,
/// a fresh one per step; the step applies it.
struct Dropout {
  double rate;
  /// Axes on which one draw serves every index (size 1 in the mask).
  std::vector<int64_t> broadcast_dims = {};

  /// The keep mask for inputs of `shape`: bool, 1 on the broadcast axes.
  interp::Tensor mask(Scope &scope, const Shape &shape) const;
  /// x / (1 - rate) where the mask keeps, 0 elsewhere; x itself without a
  /// mask (deterministic) or at rate 0.
  Tensor operator()(const Tensor &x, const std::optional<Tensor> &keep,
                    SrcLoc loc = SrcLoc::current()) const;
};

/// flax.linen.make_causal_mask for a sequence of `length`: bool [1, length,
/// length], true where the key is at or before the query.
Tensor make_causal_mask(int64_t length, SrcLoc loc = SrcLoc::current());

} // namespace cotangent::nn

#endif // COTANGENT_TRACER_LAYERS_H
