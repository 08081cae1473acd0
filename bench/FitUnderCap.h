//===- FitUnderCap.h - the largest GPT-2 batch under a memory cap --*- C++ -*-===//
//
// cotangent-bench --run fit: for each memory cap, the largest batch (a power
// of two, of --seq-long sequences) at which GPT-2's value-and-grad step
// fits, under each of the named policies per block, for Cotangent and for
// JAX, and the tokens per second of each at its largest batch, in the same
// run. A step's memory is its arguments (parameters and tokens) plus the
// peak of what it allocates: Cotangent's memory plan (predicted = measured,
// checked at the batch that is run) against XLA's memory_analysis()
// argument + output + temp bytes.
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
};

/// Prints the table; false when Cotangent's side fails.
bool benchFitUnderCaps(mlir::MLIRContext &ctx, const FitOptions &options);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_FITUNDERCAP_H
