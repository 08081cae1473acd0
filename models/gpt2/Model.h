//===- Model.h - GPT-2's forward pass and loss, traced -----------*- C++ -*-===//
//
// nanoGPT's GPT-2 on the tracer: token and position embeddings, n_layer
// pre-LN blocks (causal self-attention, a tanh-GELU MLP), a final
// LayerNorm and logits tied to wte; the loss is the mean of optax's
// softmax_cross_entropy_with_integer_labels over every position. Called
// inside a trace (grad, jit, vjp), so the step differentiates, remats and
// compiles like any traced function:
//
//   auto config = *gpt2::preset("tiny");
//   auto params = gpt2::init(config, ctx);
//   auto step = jit(value_and_grad([&](gpt2::Params<Tensor> p, Tensor ids, Tensor targets) {
//     return gpt2::loss(config, p, ids, targets);
//   }));
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_MODELS_GPT2_MODEL_H
#define COTANGENT_MODELS_GPT2_MODEL_H

#include "models/gpt2/Params.h"
#include "tracer/Checkpoint.h"
#include "tracer/DType.h"
#include "tracer/Nn.h"
#include "tracer/Tensor.h"

#include <optional>

namespace cotangent::gpt2 {

struct ModelOptions {
  /// A checkpoint around every block under this policy (none: no checkpoint).
  std::optional<Policy> block_policy;
  /// The matmuls' operand dtype: F32, or BF16 for mixed precision (as
  /// PyTorch's autocast and jmp's policies do: each matmul's operands cast
  /// to bf16, the product accumulated in f32 and rounded to bf16, then cast
  /// back; the residual stream, LayerNorm, softmax, GELU and the loss stay
  /// f32, and so do the parameters and their gradients).
  DType matmul_dtype = DType::F32;
  /// How attention runs: one fused jx.dot_product_attention (f32, its scores
  /// never all live: the CPU's FlashAttention-2 kernels) or the scores
  /// materialized as nanoGPT writes it (matmuls in `matmul_dtype`).
  nn::AttentionImplementation attention = nn::AttentionImplementation::Fused;
};

/// One pre-LN block of x f32[batch, seq, n_embd]: x + attention(ln_1(x)),
/// then h + mlp(ln_2(h)).
Tensor block(const Config &config, const Block<Tensor> &params, const Tensor &x,
             const ModelOptions &options = {}, SrcLoc loc = SrcLoc::current());

/// The logits f32[batch, seq, vocab] of integer token ids [batch, seq]
/// (seq <= block_size).
Tensor logits(const Config &config, const Params<Tensor> &params, const Tensor &ids,
              const ModelOptions &options = {}, SrcLoc loc = SrcLoc::current());

/// The mean next-token cross-entropy of `ids` against `targets` (both
/// integer [batch, seq]).
Tensor loss(const Config &config, const Params<Tensor> &params, const Tensor &ids,
            const Tensor &targets, const ModelOptions &options = {},
            SrcLoc loc = SrcLoc::current());

} // namespace cotangent::gpt2

#endif // COTANGENT_MODELS_GPT2_MODEL_H
