//===- Model.cpp - GPT-2's forward pass and loss ---------------------------===//

#include "models/gpt2/Model.h"

#include "tracer/Nn.h"
#include "tracer/Numpy.h"
#include "tracer/optim/Losses.h"

#include <cmath>
#include <limits>

using namespace cotangent;

namespace {

/// product(a, b) with the operands in `dtype` (F32: as they are), back in f32.
template <class Product>
Tensor productIn(DType dtype, const Tensor &a, const Tensor &b, const SrcLoc &loc,
                 Product product) {
  if (dtype == DType::F32)
    return product(a, b);
  return np::astype(product(np::astype(a, dtype, loc), np::astype(b, dtype, loc)), DType::F32, loc);
}

/// a @ b with the operands in `dtype`.
Tensor matmulIn(DType dtype, const Tensor &a, const Tensor &b, const SrcLoc &loc) {
  return productIn(dtype, a, b, loc,
                   [&](const Tensor &x, const Tensor &y) { return np::matmul(x, y, loc); });
}

Tensor linear(const gpt2::ModelOptions &o, const gpt2::Dict<Tensor> &p, const Tensor &x,
              const SrcLoc &loc) {
  return np::add(matmulIn(o.matmul_dtype, x, p.at("weight"), loc), p.at("bias"), loc);
}

Tensor norm(const gpt2::Config &config, const gpt2::Dict<Tensor> &p, const Tensor &x,
            const SrcLoc &loc) {
  return nn::layer_norm(x, p.at("weight"), p.at("bias"), config.layer_norm_epsilon, loc);
}

/// Causal self-attention of x [B, T, C]. Fused: q, k, v as [B, T, H, D]
/// views of the projection into one jx.dot_product_attention. Xla: heads of
/// [B, H, T, D], masked scores float32's lowest where a key follows the
/// query (as nanoGPT's -inf but finite), softmax over the keys.
Tensor attention(const gpt2::Config &config, const gpt2::ModelOptions &o,
                 const gpt2::Attention<Tensor> &p, const Tensor &x, const SrcLoc &loc) {
  const int64_t b = x.shape()[0], t = x.shape()[1], c = config.n_embd, h = config.n_head,
                d = config.head_dim();
  Tensor qkv = linear(o, p.c_attn, x, loc);
  if (o.attention == nn::AttentionImplementation::Fused) {
    auto part = [&](int64_t i) {
      return np::reshape(np::slice_in_dim(qkv, i * c, (i + 1) * c, 1, 2, loc), {b, t, h, d}, loc);
    };
    Tensor y = nn::dot_product_attention(part(0), part(1), part(2), {.is_causal = true}, loc);
    return linear(o, p.c_proj, np::reshape(y, {b, t, c}, loc), loc);
  }
  auto heads = [&](int64_t i) {
    Tensor part = np::slice_in_dim(qkv, i * c, (i + 1) * c, 1, 2, loc);
    return np::transpose(np::reshape(part, {b, t, h, d}, loc), {0, 2, 1, 3}, loc);
  };
  Tensor q = heads(0), k = heads(1), v = heads(2);
  Tensor scores =
      np::divide(matmulIn(o.matmul_dtype, q, np::transpose(k, {0, 1, 3, 2}, loc), loc),
                 std::sqrt(static_cast<double>(d)), loc);
  Tensor positions = np::arange(t, loc);
  Tensor causal = np::greater_equal(np::reshape(positions, {t, 1}, loc),
                                    np::reshape(positions, {1, t}, loc), loc);
  Tensor probs = nn::softmax(
      np::where(causal, scores, static_cast<double>(std::numeric_limits<float>::lowest()), loc),
      -1, loc);
  Tensor y = np::transpose(matmulIn(o.matmul_dtype, probs, v, loc), {0, 2, 1, 3}, loc);
  return linear(o, p.c_proj, np::reshape(y, {b, t, c}, loc), loc);
}

} // namespace

Tensor gpt2::block(const Config &config, const Block<Tensor> &p, const Tensor &x,
                   const ModelOptions &o, SrcLoc loc) {
  Tensor h = np::add(x, attention(config, o, p.attn, norm(config, p.ln_1, x, loc), loc), loc);
  Tensor hidden = nn::gelu(linear(o, p.mlp.c_fc, norm(config, p.ln_2, h, loc), loc), true, loc);
  return np::add(h, linear(o, p.mlp.c_proj, hidden, loc), loc);
}

Tensor gpt2::logits(const Config &config, const Params<Tensor> &params, const Tensor &ids,
                    const ModelOptions &options, SrcLoc loc) {
  if (ids.rank() != 2 || !isInteger(ids.dtype()))
    throwTraceError("gpt2", "token ids must be integers [batch, seq]", {ids.str()}, loc);
  const int64_t t = ids.shape()[1];
  if (t > config.block_size)
    throwTraceError("gpt2",
                    "a sequence of " + std::to_string(t) + " tokens is longer than " +
                        config.name + "'s context of " + std::to_string(config.block_size),
                    {ids.str()}, loc);
  if (params.h.size() != static_cast<size_t>(config.n_layer))
    throwTraceError("gpt2",
                    "params have " + std::to_string(params.h.size()) + " blocks, " + config.name +
                        " has " + std::to_string(config.n_layer),
                    {}, loc);
  const Tensor &wte = params.wte.at("weight");
  Tensor positions = np::slice_in_dim(params.wpe.at("weight"), 0, t, 1, 0, loc);
  Tensor x = np::add(np::take(wte, ids, 0, loc), positions, loc);
  auto layer = [&config, &options, loc](const Block<Tensor> &p, const Tensor &in) {
    return block(config, p, in, options, loc);
  };
  for (const Block<Tensor> &p : params.h)
    x = options.block_policy ? checkpoint(layer, {.policy = options.block_policy})(p, x)
                             : layer(p, x);
  x = norm(config, params.ln_f, x, loc);
  // Tied weights: x [B, T, C] against wte [V, C] over C.
  return productIn(options.matmul_dtype, x, wte, loc, [&](const Tensor &a, const Tensor &b) {
    return np::dot_general(a, b, {2}, {1}, {}, {}, loc);
  });
}

Tensor gpt2::loss(const Config &config, const Params<Tensor> &params, const Tensor &ids,
                  const Tensor &targets, const ModelOptions &options, SrcLoc loc) {
  Tensor out = logits(config, params, ids, options, loc);
  return np::mean(optim::softmax_cross_entropy_with_integer_labels(out, targets, loc), {}, false,
                  loc);
}
