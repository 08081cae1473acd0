//===- MlpModel.cpp - the benchmark MLP, traced under a remat policy ------===//
//
// The layer is an ordinary C++ function over traced tensors; checkpointing
// it is wrapping it in `checkpoint`, exactly as a user of the API would.
//
//===----------------------------------------------------------------------===//

#include "bench/MlpModel.h"
#include "tracer/Array.h"

#include <cmath>

using namespace cotangent;

std::vector<std::string> bench::mlpLayerNames(int64_t layers) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < layers; ++i)
    names.push_back("layer" + std::to_string(i));
  return names;
}

Traced bench::traceMlp(mlir::MLIRContext &ctx, const MlpConfig &config,
                       const std::optional<Policy> &policy) {
  const bool rich = config.richActivation;
  const std::vector<std::string> names = mlpLayerNames(config.layers);
  auto mlp = [&](Tensor h, std::vector<Tensor> ws) {
    for (size_t i = 0; i < ws.size(); ++i) {
      const std::string &name = names[i];
      auto layer = [&name, rich](Tensor h, Tensor w) {
        Tensor d = checkpoint_name(np::dot(h, w), name);
        return np::tanh(rich ? np::sin(d) * d : d);
      };
      h = policy ? checkpoint(layer, {.policy = *policy})(h, ws[i]) : layer(h, ws[i]);
    }
    return np::sum(h);
  };
  const std::vector<Spec> weights(config.layers, f32({config.width, config.width}));
  const TraceOptions opts{.name = "mlp", .arg_names = {"x", "ws"}, .context = &ctx};
  return trace(opts, mlp, f32({config.batch, config.width}), weights);
}

namespace {

/// scale * sin(0.37 i + phase) at flat index i: the same data on every machine.
interp::Tensor values(const Shape &shape, double scale, double phase) {
  return array::from_function(shape, [&](int64_t i) { return scale * std::sin(0.37 * i + phase); });
}

} // namespace

bench::MlpTrainingData bench::mlpTrainingData(const MlpConfig &config) {
  MlpTrainingData data{{},
                       values({config.batch, config.width}, 1.0, 0.5),
                       values({config.batch, config.width}, 0.5, 1.5)};
  for (int64_t i = 0; i < config.layers; ++i)
    data.params.emplace("w" + std::to_string(i),
                        values({config.width, config.width},
                               1.0 / std::sqrt(static_cast<double>(config.width)),
                               0.1 * static_cast<double>(i)));
  return data;
}

Tensor bench::mlpRegressionLoss(const std::map<std::string, Tensor> &params, Tensor x,
                                Tensor target) {
  Tensor h = x;
  for (size_t i = 0; i < params.size(); ++i)
    h = np::tanh(np::dot(h, params.at("w" + std::to_string(i))));
  Tensor d = h - target;
  return np::mean(d * d);
}
