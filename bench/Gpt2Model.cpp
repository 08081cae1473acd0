//===- Gpt2Model.cpp - GPT-2's loss, traced for the bench ------------------===//

#include "bench/Gpt2Model.h"

#include "models/gpt2/Model.h"

using namespace cotangent;

Traced bench::traceGpt2(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch,
                        int64_t seq, const std::optional<Policy> &policy,
                        nn::AttentionImplementation attention) {
  auto params = gpt2::make_params<Spec>(
      config, [](const std::string &, const Shape &shape) { return f32(shape); });
  auto loss = [&](const gpt2::Params<Tensor> &p, const Tensor &ids, const Tensor &targets) {
    return gpt2::loss(config, p, ids, targets, {.block_policy = policy, .attention = attention});
  };
  const TraceOptions opts{.name = "gpt2", .arg_names = {"params", "ids", "targets"},
                          .context = &ctx};
  return trace(opts, loss, params, i32({batch, seq}), i32({batch, seq}));
}
