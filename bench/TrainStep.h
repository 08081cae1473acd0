//===- TrainStep.h - the cost of the optimizer in a training step -*- C++ -*-===//
//
// `cotangent-bench --run train`: the MLP (--layers x --width, --batch) as a
// whole training step compiled as one function -- loss, gradient, clipped
// AdamW with a warmup-cosine schedule -- against the bare compiled
// value_and_grad step and the update alone, medians of --repeats in one
// run, with the ratios the optimizer issue asks for.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_TRAINSTEP_H
#define COTANGENT_BENCH_TRAINSTEP_H

#include <cstdint>

namespace cotangent::bench {

struct TrainStepOptions {
  int64_t layers = 8, width = 1024, batch = 256;
  unsigned repeats = 3;
};

/// Prints the table; returns non-zero on failure.
int benchTrainStep(const TrainStepOptions &options);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_TRAINSTEP_H
