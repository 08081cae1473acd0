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
//       nn::Scope first = scope.child("Dense_0"), second = scope.child("Dense_1");
//       return {{"Dense_0", Dense{features}.init(first, in)},
//               {"Dense_1", Dense{features}.init(second, features)}};
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
#include <tuple>
#include <type_traits>

namespace cotangent::nn {

template <class T>
using Dict = std::map<std::string, T>;

/// flax.linen.Dense: x . kernel + bias over x's last axis.
struct Dense {
  static constexpr const char *type_name = "Dense"; ///< Flax's class name, for default names
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
  static constexpr const char *type_name = "LayerNorm";
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
  static constexpr const char *type_name = "Embed";
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
  static constexpr const char *type_name = "MultiHeadDotProductAttention";
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

/// A traced key for a layer's random draws: what Flax's make_rng returns
/// inside a step (nn::make_rng on the step's root key).
struct Rng {
  Tensor key;
};

/// flax.linen.Dropout. The keep mask is bernoulli(1 - rate) from the layer's
/// key, as Flax draws it: either inside the traced step from an `Rng` (a
/// fresh mask per step from the key passed in), or drawn on the host with
/// `mask` (Scope(ctx, the 'dropout' key) and the module path) and passed in.
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
  /// x with the keep mask drawn inside the step from `rng` (Flax's
  /// Dropout(rate)(x, deterministic=False, rng=key)).
  Tensor operator()(const Tensor &x, const Rng &rng, SrcLoc loc = SrcLoc::current()) const;
  /// The shape a mask for inputs of `shape` is drawn in (1 on broadcast_dims).
  Shape drawnShape(const Shape &shape) const;
};

/// How nn::Sequential names its layers' parameters: Flax names them two ways.
enum class SequentialNames {
  /// nn.Sequential([...]) built inside a @compact __call__: the layers belong
  /// to the calling module, "Dense_0", "LayerNorm_0", "Dense_1", ... (the
  /// names Flax gives when no other layer of those types precedes them).
  Inline,
  /// nn.Sequential as a module of its own (top level, or a setup attribute):
  /// "layers_" + the layer's position, activations counted.
  Attribute,
};

/// flax.linen.Sequential: each layer applied to the previous one's output.
/// A layer is a parameterized module with a `type_name` whose parameters are
/// one level of names (Dense, LayerNorm, Embed, or a user module of that
/// form: `init(scope, in_features)` or `init(scope)`, and a call on
/// (params, x)), or a function of one tensor (an activation). The width
/// passed to a module's init is its input's: the previous module's
/// `features` where it has one, else the width before it.
template <class... Layers>
struct Sequential {
  std::tuple<Layers...> layers;
  SequentialNames names = SequentialNames::Inline;

  explicit Sequential(Layers... l) : layers(std::move(l)...) {}
  Sequential(SequentialNames n, Layers... l) : layers(std::move(l)...), names(n) {}

  /// {name: that layer's parameters} for the layers that have some.
  Dict<Dict<interp::Tensor>> init(Scope &scope, int64_t in_features) const {
    Dict<Dict<interp::Tensor>> params;
    int64_t width = in_features;
    forEachLayer([&]<class L>(const L &layer, const std::string &name) {
      Scope child = scope.child(name);
      if constexpr (requires(Scope &s) { layer.init(s, width); })
        params[name] = layer.init(child, width);
      else if constexpr (requires(Scope &s) { layer.init(s); })
        params[name] = layer.init(child);
      if constexpr (requires { layer.features; })
        width = layer.features;
    });
    return params;
  }

  Tensor operator()(const Dict<Dict<Tensor>> &params, const Tensor &x) const {
    Tensor h = x;
    forEachLayer([&]<class L>(const L &layer, const std::string &name) {
      if constexpr (std::is_invocable_r_v<Tensor, const L &, const Tensor &>)
        h = layer(h);
      else if (auto it = params.find(name); it != params.end())
        h = layer(it->second, h);
      else
        throwTraceError("Sequential", "params has no entry '" + name + "'", {h.str()},
                        SrcLoc::current());
    });
    return h;
  }

private:
  /// fn(layer, its parameters' name) for each layer, in order.
  template <class Fn>
  void forEachLayer(Fn &&fn) const {
    std::map<std::string, int> counts;
    size_t position = 0;
    std::apply(
        [&](const auto &...layer) {
          auto one = [&]<class L>(const L &l) {
            std::string name = "layers_" + std::to_string(position++);
            if constexpr (requires { L::type_name; }) {
              if (names == SequentialNames::Inline)
                name = std::string(L::type_name) + "_" + std::to_string(counts[L::type_name]++);
            } else {
              static_assert(std::is_invocable_r_v<Tensor, const L &, const Tensor &>,
                            "a Sequential layer is a module with a type_name or a function of "
                            "one Tensor");
            }
            fn(l, name);
          };
          (one(layer), ...);
        },
        layers);
  }
};

/// flax.linen.make_causal_mask for a sequence of `length`: bool [1, length,
/// length], true where the key is at or before the query.
Tensor make_causal_mask(int64_t length, SrcLoc loc = SrcLoc::current());

} // namespace cotangent::nn

#endif // COTANGENT_TRACER_LAYERS_H
