//===- AttentionMemory.h - GPT-2's step peak against the sequence --*- C++ -*-===//
//
// cotangent-bench --run attention: GPT-2's training step (loss and every
// gradient) at several sequence lengths for one number of tokens per batch,
// with attention fused (jx.dot_product_attention: FlashAttention-2's kernels)
// and with its scores materialized, in the same run: the measured peak, the
// median step time, and how far the fused step's loss and gradients are from
// the materialized step's.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_ATTENTIONMEMORY_H
#define COTANGENT_BENCH_ATTENTIONMEMORY_H

#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cotangent::bench {

struct AttentionMemoryOptions {
  std::string preset = "124M";
  int64_t tokens = 2048; ///< per batch: batch = tokens / seq
  std::vector<int64_t> seqs = {256, 512, 1024, 2048};
  unsigned repeats = 3;
};

/// Prints the table; false when a step fails to compile or run.
bool benchAttentionMemory(mlir::MLIRContext &ctx, const AttentionMemoryOptions &options);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_ATTENTIONMEMORY_H
