//===- MlpModel.h - the benchmark MLP, traced under a remat policy -*- C++ -*-===//
//
// `@mlp(x, ws[0], ..., ws[L-1]) -> sum(h_L)` with h_{i+1} = act(h_i @ ws[i])
// (f32, batch x width), traced with the C++ API: each layer is one
// `checkpoint` under the policy (or none), and each layer's dot output is
// named "layer<i>" for the named-value policies. Used by cotangent-bench and
// the CPU runtime's memory tests.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_MLPMODEL_H
#define COTANGENT_BENCH_MLPMODEL_H

#include "tracer/Trace.h"

#include <optional>
#include <string>
#include <vector>

namespace cotangent::bench {

struct MlpConfig {
  int64_t layers = 8;
  int64_t width = 1024;
  int64_t batch = 256;
  /// act(d) = tanh(sin(d) * d) instead of tanh(d): its VJP keeps four
  /// activations per layer instead of one (tanh's output is the next layer's
  /// input, so with plain tanh the policies barely differ).
  bool richActivation = false;
};

/// "layer0", "layer1", ...: the checkpoint names of the layers' dot outputs.
std::vector<std::string> mlpLayerNames(int64_t layers);

/// Traces @mlp into `ctx` with every layer under `policy` (none: no
/// checkpoint at all). Throws TraceError if the tracer rejects the program.
Traced traceMlp(mlir::MLIRContext &ctx, const MlpConfig &config,
                const std::optional<Policy> &policy);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_MLPMODEL_H
