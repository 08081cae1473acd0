//===- Layers.cpp - flax.linen's layers -----------------------------------===//

#include "tracer/Layers.h"
#include "tracer/Errors.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"

namespace cotangent::nn {

namespace {

/// A parameter made in `scope`, in Flax's order: each takes the scope's
/// next key, whether its initializer uses it or not.
interp::Tensor param(Scope &scope, const Initializer &init, const Shape &shape) {
  random::Key key = scope.make_rng();
  return init(scope.context(), key, shape);
}

const Tensor &lookup(const Dict<Tensor> &params, const std::string &layer, const std::string &name,
                     SrcLoc loc) {
  auto it = params.find(name);
  if (it == params.end()) {
    std::string have;
    for (const auto &[k, v] : params)
      have += (have.empty() ? "" : ", ") + k;
    throwTraceError(layer, "the parameters have no '" + name + "' (they hold " +
                               (have.empty() ? "nothing" : have) + ")",
                    {}, loc);
  }
  return it->second;
}

} // namespace

Dict<interp::Tensor> Dense::init(Scope &scope, int64_t in_features) const {
  Dict<interp::Tensor> out;
  out.emplace("kernel", param(scope, kernel_init, {in_features, features}));
  if (use_bias)
    out.emplace("bias", param(scope, bias_init, {features}));
  return out;
}

Tensor Dense::operator()(const Dict<Tensor> &params, const Tensor &x, SrcLoc loc) const {
  const Tensor &kernel = lookup(params, "Dense", "kernel", loc);
  if (kernel.shape().size() != 2 || kernel.shape()[1] != features)
    throwTraceError("Dense(" + std::to_string(features) + ")",
                    "the kernel is " + kernel.str() + ", expected [in, " +
                        std::to_string(features) + "]",
                    {}, loc);
  Tensor y = np::dot(x, kernel, loc);
  return use_bias ? np::add(y, lookup(params, "Dense", "bias", loc), loc) : y;
}

Dict<interp::Tensor> LayerNorm::init(Scope &scope, int64_t features) const {
  Dict<interp::Tensor> out;
  if (use_scale)
    out.emplace("scale", param(scope, scale_init, {features}));
  if (use_bias)
    out.emplace("bias", param(scope, bias_init, {features}));
  return out;
}

Tensor LayerNorm::operator()(const Dict<Tensor> &params, const Tensor &x, SrcLoc loc) const {
  Tensor mean = np::mean(x, -1, /*keepdims=*/true, loc);
  Tensor meanSquare = np::mean(np::multiply(x, x, loc), -1, /*keepdims=*/true, loc);
  Tensor variance = np::maximum(np::subtract(meanSquare, np::multiply(mean, mean, loc), loc), 0.0, loc);
  Tensor factor = np::rsqrt(np::add(variance, epsilon, loc), loc);
  if (use_scale)
    factor = np::multiply(factor, lookup(params, "LayerNorm", "scale", loc), loc);
  Tensor y = np::multiply(np::subtract(x, mean, loc), factor, loc);
  return use_bias ? np::add(y, lookup(params, "LayerNorm", "bias", loc), loc) : y;
}

Dict<interp::Tensor> Embed::init(Scope &scope) const {
  return {{"embedding", param(scope, embedding_init, {num_embeddings, features})}};
}

Tensor Embed::operator()(const Dict<Tensor> &params, const Tensor &ids, SrcLoc loc) const {
  const Tensor &table = lookup(params, "Embed", "embedding", loc);
  return np::dot(one_hot(ids, num_embeddings, table.dtype(), loc), table, loc);
}

} // namespace cotangent::nn
