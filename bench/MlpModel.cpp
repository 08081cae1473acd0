//===- MlpModel.cpp - the benchmark MLP, traced under a remat policy ------===//
//
// The layer is an ordinary C++ function over traced tensors; checkpointing
// it is wrapping it in `checkpoint`, exactly as a user of the API would.
//
//===----------------------------------------------------------------------===//

#include "bench/MlpModel.h"

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
