//===- Config.h - GPT-2's sizes and presets ----------------------*- C++ -*-===//
//
// A GPT-2 configuration (nanoGPT's GPTConfig) and the published presets:
// tiny (a test model), 124M, 350M, 774M and 1558M, with what a training
// loop reports from it: the parameter count and the FLOPs of a step.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_MODELS_GPT2_CONFIG_H
#define COTANGENT_MODELS_GPT2_CONFIG_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cotangent::gpt2 {

struct Config {
  std::string name;
  int64_t n_layer;
  int64_t n_head;
  int64_t n_embd;
  int64_t vocab_size;
  int64_t block_size; ///< the longest sequence (wpe's rows)
  double layer_norm_epsilon = 1e-5;

  int64_t head_dim() const { return n_embd / n_head; }
  /// Every parameter (wte counted once: the logits reuse it).
  int64_t parameter_count() const;
  /// FLOPs of one training step (forward and backward) per token at
  /// sequence length `seq`: 6 per parameter-token (dense and tied-logit
  /// GEMMs), plus attention's 12 L T C (scores and values, both passes),
  /// as PaLM's appendix and llm.c count them; wpe's lookup is free.
  double flops_per_token(int64_t seq) const;
};

/// The preset called `name`, or none.
std::optional<Config> preset(std::string_view name);
/// Every preset's name, smallest first.
std::vector<std::string> preset_names();

} // namespace cotangent::gpt2

#endif // COTANGENT_MODELS_GPT2_CONFIG_H
