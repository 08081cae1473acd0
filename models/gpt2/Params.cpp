//===- Params.cpp - GPT-2's parameter tree and initialization --------------===//

#include "models/gpt2/Params.h"

#include "tracer/Initializers.h"

#include <cmath>

using namespace cotangent;

std::string gpt2::hf_name(const std::string &path) {
  std::string name;
  for (char c : path) {
    if (c == '[')
      name += name.empty() ? "" : ".";
    else if (c != ']' && c != '\'')
      name += c;
  }
  return name;
}

gpt2::Params<interp::Tensor>
gpt2::make_params(const Config &config,
                  const std::function<interp::Tensor(const std::string &, const Shape &)> &make) {
  const int64_t c = config.n_embd;
  auto linear = [&](const std::string &name, int64_t in, int64_t out) {
    return Dict<interp::Tensor>{{"weight", make(name + ".weight", {in, out})},
                                {"bias", make(name + ".bias", {out})}};
  };
  auto norm = [&](const std::string &name) {
    return Dict<interp::Tensor>{{"weight", make(name + ".weight", {c})},
                                {"bias", make(name + ".bias", {c})}};
  };
  Params<interp::Tensor> p;
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

gpt2::Params<interp::Tensor> gpt2::init(const Config &config, mlir::MLIRContext &ctx,
                                        uint32_t seed) {
  nn::Scope root(ctx, random::PRNGKey(seed));
  const double residual = 0.02 / std::sqrt(2.0 * static_cast<double>(config.n_layer));
  auto endsWith = [](const std::string &s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  return make_params(config, [&](const std::string &name, const Shape &shape) {
    const bool layerNorm = name.find("ln_") != std::string::npos;
    if (endsWith(name, ".bias"))
      return nn::initializers::zeros()(ctx, {}, shape);
    if (layerNorm)
      return nn::initializers::ones()(ctx, {}, shape);
    nn::Scope scope = root.child(name);
    const bool projection = endsWith(name, "c_proj.weight");
    return nn::initializers::normal(projection ? residual : 0.02)(ctx, scope.make_rng(), shape);
  });
}
