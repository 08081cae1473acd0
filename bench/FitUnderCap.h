//===- FitUnderCap.h - the largest GPT-2 batch under a memory cap --*- C++ -*-===//
//
// cotangent-bench --run fit: for each memory cap, the largest batch (a power
// of two, of --seq-long sequences) at which GPT-2's value-and-grad step
// fits, and the tokens per second there, in the same run: Cotangent under
// each named policy per block and under one memory_budget over the whole
// step (the cap less the arguments), JAX under each named policy per
// block, PyTorch (torch.compile) under activation_memory_budget swept over
// its range; the best of each side. A step's memory is its arguments
// (parameters and tokens) plus the peak of what it allocates: Cotangent's
// memory plan (predicted = measured, checked at the batch that is run),
// XLA's memory_analysis() argument + output + temp bytes, PyTorch's
// allocator measured over one step. Then Cotangent's largest batch on a
// grid of eighths between powers of two, per choice (planned, not run):
// where the budget fits more than every named policy.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_FITUNDERCAP_H
#define COTANGENT_BENCH_FITUNDERCAP_H

#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cotangent::bench {

struct FitOptions {
  std::string preset = "124M";
  int64_t seq = 256;
  std::vector<double> capsGiB = {2, 4, 8};
  int64_t maxBatch = 64;
  unsigned repeats = 2;
  std::string python; ///< JAX's venv python; empty: scripts/jax-venv.sh's
  std::string torchPython; ///< PyTorch's; empty: scripts/torch-venv.sh's
  /// PyTorch's activation_memory_budget values swept (0 recomputes the
  /// most, but its peak is PyTorch's largest: the whole forward rebuilt at
  /// once in the backward; its best is near 0.1).
  std::vector<double> torchBudgets = {0.1, 0.5, 1.0};
  std::string dataPath; ///< the table and the memory per batch as JSON; empty: none
};

/// Prints the table; false when Cotangent's side fails.
bool benchFitUnderCaps(mlir::MLIRContext &ctx, const FitOptions &options);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_FITUNDERCAP_H
