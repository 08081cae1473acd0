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

#include "tracer/Autodiff.h"
#include "tracer/Trace.h"
#include "tracer/optim/Transforms.h"

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

/// The optimizer of the training-step benches: AdamW (warmup to 1e-3 over
/// 10 steps, cosine decay to step 1000, weight decay 0.01) after clipping
/// the gradient's global norm to 1.
inline optim::GradientTransformation mlpOptimizer() {
  return optim::chain({optim::clip_by_global_norm(1.0),
                       optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 1e-3, 10, 1000), {},
                                    0.01)});
}

/// train_step(params, opt_state, x, y) -> (params, opt_state, loss): the
/// regression loss, its gradient and `tx`'s update, the step to jit.
inline auto mlpTrainStep(optim::GradientTransformation tx) {
  return [tx = std::move(tx)](const std::map<std::string, Tensor> &p, const optim::State &s,
                              Tensor x, Tensor target) {
    auto [value, grads] = value_and_grad(&mlpRegressionLoss, argnums<0>)(p, x, target);
    auto [updates, next] = optim::update(tx, grads, s, p);
    return std::tuple{optim::apply_updates(p, updates), next, value};
  };
}

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_MLPMODEL_H
