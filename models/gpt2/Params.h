//===- Params.h - GPT-2's parameter tree -------------------------*- C++ -*-===//
//
// GPT-2's parameters as a tree whose paths are Hugging Face's safetensors
// names: `params['h'][0]['attn']['c_attn']['weight']` is
// "h.0.attn.c_attn.weight" (hf_name). Linear weights are [in, out] (HF's
// Conv1D, nanoGPT's weights transposed); LayerNorms hold "weight" and
// "bias"; the embeddings hold "weight". Over any leaf type: host values
// (interp::Tensor) to init, save and update, traced Tensors inside a step.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_MODELS_GPT2_PARAMS_H
#define COTANGENT_MODELS_GPT2_PARAMS_H

#include "models/gpt2/Config.h"
#include "tracer/Pytree.h"
#include "tracer/ValueTree.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cotangent::gpt2 {

template <class L>
using Dict = std::map<std::string, L>;

template <class L>
struct Attention {
  Dict<L> c_attn; ///< weight [C, 3C] (q, k, v side by side), bias [3C]
  Dict<L> c_proj; ///< weight [C, C], bias [C]
};

template <class L>
struct Mlp {
  Dict<L> c_fc;   ///< weight [C, 4C], bias [4C]
  Dict<L> c_proj; ///< weight [4C, C], bias [C]
};

template <class L>
struct Block {
  Dict<L> ln_1;
  Attention<L> attn;
  Dict<L> ln_2;
  Mlp<L> mlp;
};

template <class L>
struct Params {
  Dict<L> wte; ///< weight [vocab, C], also the logits' projection
  Dict<L> wpe; ///< weight [block_size, C]
  std::vector<Block<L>> h;
  Dict<L> ln_f;
};

/// Hugging Face's name of the leaf at tree path `path`
/// ("['h'][0]['ln_1']['weight']" -> "h.0.ln_1.weight").
std::string hf_name(const std::string &path);

/// Parameters of `config` whose every leaf is `make(hf name, shape)`: host
/// values, or Specs to trace a step for.
template <class L>
Params<L> make_params(const Config &config,
                      const std::function<L(const std::string &, const Shape &)> &make) {
  const int64_t c = config.n_embd;
  auto linear = [&](const std::string &name, int64_t in, int64_t out) {
    return Dict<L>{{"weight", make(name + ".weight", {in, out})}, {"bias", make(name + ".bias", {out})}};
  };
  auto norm = [&](const std::string &name) {
    return Dict<L>{{"weight", make(name + ".weight", {c})}, {"bias", make(name + ".bias", {c})}};
  };
  Params<L> p;
  p.wte = {{"weight", make("wte.weight", {config.vocab_size, c})}};
  p.wpe = {{"weight", make("wpe.weight", {config.block_size, c})}};
  for (int64_t i = 0; i < config.n_layer; ++i) {
    const std::string b = "h." + std::to_string(i) + ".";
    p.h.push_back({norm(b + "ln_1"),
                   {linear(b + "attn.c_attn", c, 3 * c), linear(b + "attn.c_proj", c, c)},
                   norm(b + "ln_2"),
                   {linear(b + "mlp.c_fc", c, 4 * c), linear(b + "mlp.c_proj", 4 * c, c)}});
  }
  p.ln_f = norm("ln_f");
  return p;
}

/// GPT-2's initialization (nanoGPT's _init_weights): weights and embeddings
/// normal(0, 0.02), the residual projections (attn.c_proj, mlp.c_proj)
/// normal(0, 0.02 / sqrt(2 n_layer)), biases 0, LayerNorm weights 1. Each
/// leaf draws from the key Flax's Scope gives a module of its HF name under
/// PRNGKey(seed).
Params<interp::Tensor> init(const Config &config, mlir::MLIRContext &ctx, uint32_t seed = 0);

} // namespace cotangent::gpt2

template <class L>
struct cotangent::TreeFields<cotangent::gpt2::Attention<L>> {
  using S = gpt2::Attention<L>;
  static constexpr auto fields =
      std::tuple{treeField("c_attn", &S::c_attn), treeField("c_proj", &S::c_proj)};
  template <class M>
  using Rebind = gpt2::Attention<M>;
};

template <class L>
struct cotangent::TreeFields<cotangent::gpt2::Mlp<L>> {
  using S = gpt2::Mlp<L>;
  static constexpr auto fields =
      std::tuple{treeField("c_fc", &S::c_fc), treeField("c_proj", &S::c_proj)};
  template <class M>
  using Rebind = gpt2::Mlp<M>;
};

template <class L>
struct cotangent::TreeFields<cotangent::gpt2::Block<L>> {
  using S = gpt2::Block<L>;
  static constexpr auto fields = std::tuple{treeField("ln_1", &S::ln_1), treeField("attn", &S::attn),
                                            treeField("ln_2", &S::ln_2), treeField("mlp", &S::mlp)};
  template <class M>
  using Rebind = gpt2::Block<M>;
};

template <class L>
struct cotangent::TreeFields<cotangent::gpt2::Params<L>> {
  using S = gpt2::Params<L>;
  static constexpr auto fields = std::tuple{treeField("wte", &S::wte), treeField("wpe", &S::wpe),
                                            treeField("h", &S::h), treeField("ln_f", &S::ln_f)};
  template <class M>
  using Rebind = gpt2::Params<M>;
};

#endif // COTANGENT_MODELS_GPT2_PARAMS_H
