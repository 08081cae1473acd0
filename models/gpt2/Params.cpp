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

gpt2::Params<interp::Tensor> gpt2::init(const Config &config, mlir::MLIRContext &ctx,
                                        uint32_t seed) {
  nn::Scope root(ctx, random::PRNGKey(seed));
  const double residual = 0.02 / std::sqrt(2.0 * static_cast<double>(config.n_layer));
  auto endsWith = [](const std::string &s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  return make_params<interp::Tensor>(config, [&](const std::string &name, const Shape &shape) {
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
