//===- MlpModel.h - the benchmark MLP, traced under a remat policy -*- C++ -*-===//
//
// `@mlp(x, ws[0], ..., ws[L-1]) -> sum(h_L)` with h_{i+1} = act(h_i @ ws[i])
// (f32, batch x width), traced with the C++ API: each layer is one
// `checkpoint` under the policy (or none), and each layer's dot output is
// named "layer<i>" for the named-value policies. Used by cotangent-bench and
// the CPU runtime's memory tests. The same MLP as a dict of parameters with
// a regression loss is what the training-step bench and tests train.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_MLPMODEL_H
#define COTANGENT_BENCH_MLPMODEL_H

#include "tracer/Trace.h"

#include <map>

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

/// What a training step of the MLP takes: parameters "w0".."w{L-1}" (width
/// x width, scaled by 1/sqrt(width)), an input and a regression target, the
/// same numbers on every machine.
struct MlpTrainingData {
  std::map<std::string, interp::Tensor> params;
  interp::Tensor x, y;
};
MlpTrainingData mlpTrainingData(const MlpConfig &config);

/// The loss a training step of the MLP differentiates: layers of
/// tanh(h @ w_i), then the mean squared error against `target`.
Tensor mlpRegressionLoss(const std::map<std::string, Tensor> &params, Tensor x, Tensor target);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_MLPMODEL_H
