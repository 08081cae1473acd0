//===- TransformerModel.cpp - a pre-LN transformer, traced under a policy -===//

#include "bench/TransformerModel.h"
#include "tracer/Nn.h"

#include <cmath>

using namespace cotangent;

namespace {

/// Causal multi-head self-attention of x [..., seq, width] (at most one
/// leading batch axis).
Tensor attention(const Tensor &x, const Tensor &wq, const Tensor &wk, const Tensor &wv,
                 const Tensor &wo, int64_t heads) {
  const Shape &shape = x.shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t seq = shape[rank - 2], width = shape[rank - 1], dh = width / heads;
  const Shape lead(shape.begin(), shape.end() - 2);
  auto with = [&](std::initializer_list<int64_t> tail) {
    Shape s = lead;
    s.insert(s.end(), tail);
    return s;
  };
  // Permutations of the last three axes, after the leading ones.
  auto swapped = [&](int64_t a, int64_t b, int64_t c) {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < rank - 2; ++i)
      perm.push_back(i);
    for (int64_t axis : {a, b, c})
      perm.push_back(rank - 2 + axis);
    return perm;
  };
  auto split = [&](const Tensor &t) { // [..., seq, width] -> [..., heads, seq, dh]
    return np::transpose(np::reshape(t, with({seq, heads, dh})), swapped(1, 0, 2));
  };
  Tensor q = split(np::dot(x, wq)), k = split(np::dot(x, wk)), v = split(np::dot(x, wv));
  Tensor scores = np::matmul(q, np::transpose(k, swapped(0, 2, 1))) / std::sqrt(double(dh));
  Tensor positions = np::arange(seq);
  Tensor causal = np::expand_dims(positions, {1}) >= np::expand_dims(positions, {0});
  Tensor probs = nn::softmax(np::where(causal, scores, -1e9));
  Tensor out = np::transpose(np::matmul(probs, v), swapped(1, 0, 2)); // [..., seq, heads, dh]
  return np::dot(np::reshape(out, with({seq, width})), wo);
}

constexpr int kParamsPerBlock = 10;

} // namespace

Traced bench::traceTransformer(mlir::MLIRContext &ctx, const TransformerConfig &config,
                               const std::optional<Policy> &policy) {
  const int64_t heads = config.heads;
  auto block = [heads](Tensor h, std::vector<Tensor> p) {
    h = h + attention(nn::layer_norm(h, p[0], p[1]), p[2], p[3], p[4], p[5], heads);
    return h + np::dot(nn::gelu(np::dot(nn::layer_norm(h, p[6], p[7]), p[8])), p[9]);
  };
  auto model = [&](Tensor h, std::vector<Tensor> params) {
    for (int64_t b = 0; b < config.blocks; ++b) {
      std::vector<Tensor> p(params.begin() + b * kParamsPerBlock,
                            params.begin() + (b + 1) * kParamsPerBlock);
      h = policy ? checkpoint(block, {.policy = *policy})(h, p) : block(h, p);
    }
    return np::sum(h);
  };
  const int64_t w = config.width;
  std::vector<Spec> params;
  for (int64_t b = 0; b < config.blocks; ++b) {
    for (const Shape &shape : std::vector<Shape>{{w}, {w}, {w, w}, {w, w}, {w, w}, {w, w},
                                                 {w}, {w}, {w, 4 * w}, {4 * w, w}})
      params.push_back(f32(shape));
  }
  const TraceOptions opts{.name = "transformer", .arg_names = {"x", "params"}, .context = &ctx};
  const Shape x = config.batch > 0 ? Shape{config.batch, config.seq, w} : Shape{config.seq, w};
  return trace(opts, model, f32(x), params);
}
