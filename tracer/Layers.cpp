//===- Layers.cpp - flax.linen's layers -----------------------------------===//

#include "tracer/Layers.h"
#include "tracer/Errors.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

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
  return np::take(table, ids, 0, loc);
}

namespace {

/// DenseGeneral's init: the kernel drawn on its 2-D (inputs, outputs) view,
/// as Flax does, then given its shape; the bias likewise.
Dict<interp::Tensor> denseGeneral(Scope &scope, const MultiHeadDotProductAttention &m,
                                  const Shape &kernel, int64_t inputs, const Shape &bias) {
  // The flat draw viewed with the parameter's shape (same buffer).
  auto as = [](const interp::Tensor &flat, const Shape &shape) {
    return flat.withType(mlir::RankedTensorType::get(shape, flat.getType().getElementType()));
  };
  auto count = [](const Shape &shape) {
    return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
  };
  Dict<interp::Tensor> out;
  out.emplace("kernel",
              as(param(scope, m.kernel_init, {inputs, count(kernel) / inputs}), kernel));
  if (m.use_bias)
    out.emplace("bias", as(param(scope, m.bias_init, {count(bias)}), bias));
  return out;
}

} // namespace

Dict<Dict<interp::Tensor>> MultiHeadDotProductAttention::init(Scope &scope,
                                                              int64_t in_features) const {
  int64_t qkv = qkv_features ? qkv_features : in_features;
  int64_t features = out_features ? out_features : in_features;
  if (qkv % num_heads != 0)
    throw TraceError("MultiHeadDotProductAttention: " + std::to_string(qkv) +
                     " features do not split into " + std::to_string(num_heads) + " heads");
  int64_t headDim = qkv / num_heads;
  Dict<Dict<interp::Tensor>> out;
  for (const char *name : {"query", "key", "value"}) {
    Scope child = scope.child(name);
    out.emplace(name, denseGeneral(child, *this, {in_features, num_heads, headDim}, in_features,
                                   {num_heads, headDim}));
  }
  Scope child = scope.child("out");
  out.emplace("out", denseGeneral(child, *this, {num_heads, headDim, features}, qkv, {features}));
  return out;
}

Tensor MultiHeadDotProductAttention::operator()(const Dict<Dict<Tensor>> &params, const Tensor &x,
                                                const std::optional<Tensor> &mask,
                                                SrcLoc loc) const {
  const Shape &shape = x.shape();
  if (shape.size() < 2)
    throwTraceError("MultiHeadDotProductAttention", "needs inputs [..., seq, features]",
                    {x.str()}, loc);
  auto layer = [&](const char *name) -> const Dict<Tensor> & {
    auto it = params.find(name);
    if (it == params.end())
      throwTraceError("MultiHeadDotProductAttention",
                      std::string("the parameters have no '") + name + "'", {}, loc);
    return it->second;
  };
  const int64_t rank = static_cast<int64_t>(shape.size()), seq = shape[rank - 2];
  const Shape lead(shape.begin(), shape.end() - 2);
  auto with = [&](std::initializer_list<int64_t> tail) {
    Shape s = lead;
    s.insert(s.end(), tail);
    return s;
  };
  // Permutes the last three axes, the leading ones staying.
  auto permuted = [&](const Tensor &t, std::initializer_list<int64_t> last) {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < rank - 2; ++i)
      perm.push_back(i);
    for (int64_t axis : last)
      perm.push_back(rank - 2 + axis);
    return np::transpose(t, perm, loc);
  };
  // DenseGeneral onto (heads, head_dim): [..., seq, heads, head_dim].
  auto project = [&](const char *name) {
    const Dict<Tensor> &p = layer(name);
    const Tensor &kernel = lookup(p, "MultiHeadDotProductAttention", "kernel", loc);
    const Shape &k = kernel.shape();
    if (k.size() != 3 || k[1] != num_heads)
      throwTraceError("MultiHeadDotProductAttention",
                      std::string("the ") + name + " kernel is " + kernel.str() +
                          ", expected [in, " + std::to_string(num_heads) + ", head_dim]",
                      {}, loc);
    Tensor y = np::reshape(np::dot(x, np::reshape(kernel, {k[0], k[1] * k[2]}, loc), loc),
                           with({seq, k[1], k[2]}), loc);
    return use_bias ? np::add(y, lookup(p, "MultiHeadDotProductAttention", "bias", loc), loc) : y;
  };
  Tensor q = project("query"), k = project("key"), v = project("value");
  const int64_t headDim = q.shape().back();
  q = np::divide(q, std::sqrt(static_cast<double>(headDim)), loc);
  // [..., heads, q, d] . [..., heads, d, k] -> [..., heads, q, k]
  Tensor scores = np::matmul(permuted(q, {1, 0, 2}), permuted(k, {1, 2, 0}), loc);
  if (mask)
    scores = np::where(*mask, scores, static_cast<double>(std::numeric_limits<float>::lowest()),
                       loc);
  Tensor weights = softmax(scores, -1, loc);
  // [..., heads, q, k] . [..., heads, k, d] -> [..., heads, q, d] -> [..., q, heads * d]
  Tensor attended = np::matmul(weights, permuted(v, {1, 0, 2}), loc);
  Tensor merged = np::reshape(permuted(attended, {1, 0, 2}), with({seq, num_heads * headDim}), loc);
  const Dict<Tensor> &out = layer("out");
  const Tensor &kernel = lookup(out, "MultiHeadDotProductAttention", "kernel", loc);
  const Shape &ko = kernel.shape();
  Tensor y = np::dot(merged, np::reshape(kernel, {ko[0] * ko[1], ko[2]}, loc), loc);
  return use_bias ? np::add(y, lookup(out, "MultiHeadDotProductAttention", "bias", loc), loc) : y;
}

interp::Tensor Dropout::mask(Scope &scope, const Shape &shape) const {
  Shape drawn = drawnShape(shape);
  random::Key key = scope.make_rng();
  return random::bernoulli(scope.context(), key, 1.0 - rate, drawn);
}

Shape Dropout::drawnShape(const Shape &shape) const {
  if (!(rate >= 0.0 && rate < 1.0))
    throw TraceError("Dropout: the rate must lie in [0, 1), got " + std::to_string(rate));
  Shape drawn = shape;
  for (int64_t dim : broadcast_dims) {
    int64_t axis = dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim;
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
      throw TraceError("Dropout: broadcast dimension " + std::to_string(dim) +
                       " is out of range for " + shapeString(DType::F32, shape));
    drawn[axis] = 1;
  }
  return drawn;
}

Tensor Dropout::operator()(const Tensor &x, const Rng &rng, SrcLoc loc) const {
  if (rate == 0.0)
    return x;
  Tensor keep = random::bernoulli(rng.key, 1.0 - rate, drawnShape(x.shape()), loc);
  return (*this)(x, std::optional<Tensor>(np::broadcast_to(keep, x.shape(), loc)), loc);
}

Tensor Dropout::operator()(const Tensor &x, const std::optional<Tensor> &keep, SrcLoc loc) const {
  if (!keep || rate == 0.0)
    return x;
  if (keep->dtype() != DType::Bool)
    throwTraceError("Dropout", "the keep mask must be bool", {keep->str()}, loc);
  return np::where(*keep, np::divide(x, 1.0 - rate, loc), 0.0, loc);
}

Tensor make_causal_mask(int64_t length, SrcLoc loc) {
  Tensor positions = np::arange(length, loc);
  return np::expand_dims(np::greater_equal(np::expand_dims(positions, {1}, loc),
                                           np::expand_dims(positions, {0}, loc), loc),
                         {0}, loc);
}

} // namespace cotangent::nn
