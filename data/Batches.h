//===- Batches.h - deterministic next-token batches --------------*- C++ -*-===//
//
// A training step's batch is B windows of T + 1 consecutive tokens: the
// first T are the inputs, the last T the targets (the next token of each).
// Window starts are a pure function of (seed, step, row), drawn uniformly
// from the tokens' range (as nanoGPT's get_batch draws them), so a run
// resumed from a checkpoint that records the step sees exactly the batches
// the uninterrupted run saw. A validation split is the tail of the tokens
// (`splitTokens`), never drawn for training.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DATA_BATCHES_H
#define COTANGENT_DATA_BATCHES_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cotangent::data {

struct Batch {
  int64_t batch = 0, seq = 0;
  std::vector<int32_t> inputs;  ///< batch x seq, row-major
  std::vector<int32_t> targets; ///< the next token of each input
};

class BatchSampler {
public:
  /// Fails (nullopt, `error` set) unless `tokens` holds at least seq + 1
  /// tokens and batch and seq are positive.
  static std::optional<BatchSampler> make(std::span<const uint16_t> tokens, int64_t batch,
                                          int64_t seq, uint64_t seed, std::string &error);
  /// The batch of training step `step`.
  Batch at(uint64_t step) const;
  /// The start of row `row`'s window at `step`.
  uint64_t start(uint64_t step, int64_t row) const;

private:
  BatchSampler(std::span<const uint16_t> tokens, int64_t batch, int64_t seq, uint64_t seed)
      : tokens_(tokens), batch_(batch), seq_(seq), seed_(seed) {}
  std::span<const uint16_t> tokens_;
  int64_t batch_, seq_;
  uint64_t seed_;
};

/// The tokens split into training (the head) and validation (the last
/// `fraction` of them, at least one window of seq + 1 when fraction > 0).
std::pair<std::span<const uint16_t>, std::span<const uint16_t>>
splitTokens(std::span<const uint16_t> tokens, double fraction, int64_t seq);

} // namespace cotangent::data

#endif // COTANGENT_DATA_BATCHES_H
