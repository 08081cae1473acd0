//===- Config.cpp - GPT-2's presets ---------------------------------------===//

#include "models/gpt2/Config.h"

using namespace cotangent;

namespace {

/// GPT-2's published sizes (vocabulary 50257, context 1024) and the test
/// model of issue 44 (vocabulary 512: byte-level text fits it).
const std::vector<gpt2::Config> &presets() {
  static const std::vector<gpt2::Config> all = {
      {"tiny", 2, 4, 128, 512, 64},         {"124M", 12, 12, 768, 50257, 1024},
      {"350M", 24, 16, 1024, 50257, 1024},  {"774M", 36, 20, 1280, 50257, 1024},
      {"1558M", 48, 25, 1600, 50257, 1024},
  };
  return all;
}

} // namespace

int64_t gpt2::Config::parameter_count() const {
  const int64_t c = n_embd;
  // ln_1, c_attn, c_proj, ln_2, c_fc, c_proj with their biases.
  const int64_t block = 2 * c + (c * 3 * c + 3 * c) + (c * c + c) + 2 * c + (c * 4 * c + 4 * c) +
                        (4 * c * c + c);
  return vocab_size * c + block_size * c + n_layer * block + 2 * c;
}

double gpt2::Config::flops_per_token(int64_t seq) const {
  const double dense = static_cast<double>(parameter_count() - block_size * n_embd);
  return 6.0 * dense + 12.0 * static_cast<double>(n_layer * seq * n_embd);
}

std::optional<gpt2::Config> gpt2::preset(std::string_view name) {
  for (const Config &c : presets())
    if (c.name == name)
      return c;
  return std::nullopt;
}

std::vector<std::string> gpt2::preset_names() {
  std::vector<std::string> names;
  for (const Config &c : presets())
    names.push_back(c.name);
  return names;
}
