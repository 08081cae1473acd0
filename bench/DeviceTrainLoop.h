//===- DeviceTrainLoop.h - a training loop whose state stays on the GPU -*- C++ -*-===//
//
// `cotangent-bench --run device-loop`: the MLP's donated, clipped-AdamW
// training step compiled by jit for the GPU (Target::Cuda), parameters,
// optimizer state and batch put on the device once, run as a host loop of
// --steps steps three ways: reading the loss after every step (the loop a
// user writes), reading it one step behind (the next step launched first),
// and reading only the last (the compiled step back to back: the bare
// step's rate). Medians of --repeats loops; the ratios the optimizer issue
// asks for (loop / bare within 3%). Prints why and exits 0 without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_DEVICETRAINLOOP_H
#define COTANGENT_BENCH_DEVICETRAINLOOP_H

#include <cstdint>

namespace cotangent::bench {

struct DeviceTrainLoopOptions {
  int64_t layers = 8, width = 1024, batch = 256;
  unsigned steps = 100, repeats = 5;
};

/// Prints the table; returns non-zero on failure.
int benchDeviceTrainLoop(const DeviceTrainLoopOptions &options);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_DEVICETRAINLOOP_H
