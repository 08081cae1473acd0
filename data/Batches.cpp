//===- Batches.cpp - deterministic next-token batches ---------------------===//

#include "data/Batches.h"

#include <algorithm>
#include <cmath>

using namespace cotangent::data;

namespace {

/// SplitMix64: a well-mixed 64-bit hash of a counter (Steele, Lea, Flood).
uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

} // namespace

std::optional<BatchSampler> BatchSampler::make(std::span<const uint16_t> tokens, int64_t batch,
                                               int64_t seq, uint64_t seed, std::string &error) {
  if (batch <= 0 || seq <= 0) {
    error = "batch and seq must be positive, got batch " + std::to_string(batch) + ", seq " +
            std::to_string(seq);
    return std::nullopt;
  }
  if (tokens.size() < static_cast<uint64_t>(seq) + 1) {
    error = "a window of seq + 1 = " + std::to_string(seq + 1) + " tokens needs more than the " +
            std::to_string(tokens.size()) + " there are";
    return std::nullopt;
  }
  return BatchSampler(tokens, batch, seq, seed);
}

uint64_t BatchSampler::start(uint64_t step, int64_t row) const {
  uint64_t windows = tokens_.size() - static_cast<uint64_t>(seq_); // starts 0 .. n - seq - 1
  uint64_t key = splitmix64(seed_ ^ splitmix64(step * static_cast<uint64_t>(batch_) +
                                               static_cast<uint64_t>(row)));
  return key % windows;
}

Batch BatchSampler::at(uint64_t step) const {
  Batch b{batch_, seq_, {}, {}};
  b.inputs.resize(static_cast<size_t>(batch_ * seq_));
  b.targets.resize(b.inputs.size());
  for (int64_t r = 0; r < batch_; ++r) {
    uint64_t s = start(step, r);
    for (int64_t t = 0; t < seq_; ++t) {
      size_t at = static_cast<size_t>(r * seq_ + t);
      b.inputs[at] = tokens_[s + static_cast<uint64_t>(t)];
      b.targets[at] = tokens_[s + static_cast<uint64_t>(t) + 1];
    }
  }
  return b;
}

std::pair<std::span<const uint16_t>, std::span<const uint16_t>>
cotangent::data::splitTokens(std::span<const uint16_t> tokens, double fraction, int64_t seq) {
  if (!(fraction > 0))
    return {tokens, {}};
  size_t tail = static_cast<size_t>(std::ceil(static_cast<double>(tokens.size()) * std::min(fraction, 1.0)));
  tail = std::max(tail, static_cast<size_t>(seq) + 1);
  tail = std::min(tail, tokens.size());
  return {tokens.first(tokens.size() - tail), tokens.last(tail)};
}
