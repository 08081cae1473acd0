//===- Gpt2Model.cpp - GPT-2's loss, traced and run for the bench ----------===//

#include "bench/Gpt2Model.h"
#include "bench/PolicyFigures.h"
#include "bench/RandomArguments.h"

#include "analysis/MemoryPlan.h"
#include "dialects/jx/JxSplit.h"
#include "models/gpt2/Model.h"
#include "passes/Passes.h"
#include "runtime/cpu/BlockCache.h"
#include "tracer/Autodiff.h"
#include "tracer/Errors.h"

#include <algorithm>

using namespace cotangent;

Traced bench::traceGpt2(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch,
                        int64_t seq, const std::optional<Policy> &policy,
                        nn::AttentionImplementation attention,
                        const std::optional<Policy> &wholePolicy) {
  auto params = gpt2::make_params<Spec>(
      config, [](const std::string &, const Shape &shape) { return f32(shape); });
  auto loss = [&](const gpt2::Params<Tensor> &p, const Tensor &ids, const Tensor &targets) {
    return gpt2::loss(config, p, ids, targets, {.block_policy = policy, .attention = attention});
  };
  const TraceOptions opts{.name = "gpt2", .arg_names = {"params", "ids", "targets"},
                          .context = &ctx};
  if (wholePolicy)
    return trace(opts, checkpoint(loss, {.policy = wholePolicy}), params, i32({batch, seq}),
                 i32({batch, seq}));
  return trace(opts, loss, params, i32({batch, seq}), i32({batch, seq}));
}

Traced bench::traceGpt2Block(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch,
                             int64_t seq, const Policy &policy) {
  gpt2::Config one = config;
  one.n_layer = 1;
  auto params = gpt2::make_params<Spec>(
      one, [](const std::string &, const Shape &shape) { return f32(shape); });
  auto loss = [&](const gpt2::Block<Tensor> &p, const Tensor &x) {
    return np::sum(gpt2::block(config, p, x));
  };
  const TraceOptions opts{.name = "gpt2_block", .arg_names = {"params", "x"}, .context = &ctx};
  return trace(opts, checkpoint(loss, {.policy = policy}), params.h.front(),
               f32({batch, seq, config.n_embd}));
}

namespace {

int64_t argumentBytes(mlir::func::FuncOp fn) {
  int64_t bytes = 0;
  for (mlir::Type t : fn.getArgumentTypes())
    bytes += mlir::jx::getTensorBytes(t);
  return bytes;
}

std::optional<Split> splitGpt2(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch,
                               int64_t seq, const bench::Gpt2Variant &variant, std::string &why) {
  try {
    return Split(bench::traceGpt2(ctx, config, batch, seq, variant.blockPolicy,
                                  variant.attention, variant.wholePolicy),
                 SplitOptions{.defaultPolicy = mlir::cotangent::kCompileDefaultPolicy.str(),
                              .budgetStep = true}); // the bench runs the fused step
  } catch (const TraceError &e) {
    why = e.what();
    return std::nullopt;
  }
}

/// The step's argument names and bytes and its plan.
std::optional<bench::Gpt2Step> describe(const Split &split, std::string &why) {
  mlir::func::FuncOp fn = split.value_and_grad();
  auto plan = mlir::cotangent::predictCallPlan(split.module(), fn.getSymName());
  if (mlir::failed(plan)) {
    why = "no memory plan for the step";
    return std::nullopt;
  }
  bench::Gpt2Step step{.argumentBytes = argumentBytes(fn),
                       .predictedPeakBytes = plan->peakBytes};
  mlir::func::FuncOp primal = split.primal(); // the traced function names its arguments
  for (unsigned i = 0; i < primal.getNumArguments(); ++i) {
    auto name = primal.getArgAttrOfType<mlir::StringAttr>(i, "jx.arg_name");
    step.argNames.push_back(name ? name.str() : "argument " + std::to_string(i));
  }
  return step;
}

} // namespace

std::optional<bench::Gpt2Step> bench::planGpt2Step(mlir::MLIRContext &ctx,
                                                   const gpt2::Config &config, int64_t batch,
                                                   int64_t seq, const Gpt2Variant &variant,
                                                   std::string &why) {
  std::optional<Split> split = splitGpt2(ctx, config, batch, seq, variant, why);
  return split ? describe(*split, why) : std::nullopt;
}

std::optional<bench::Gpt2Step> bench::runGpt2Step(mlir::MLIRContext &ctx,
                                                  const gpt2::Config &config, int64_t batch,
                                                  int64_t seq, const Gpt2Variant &variant,
                                                  unsigned repeats, std::string &why) {
  cpu::blockCache().release(); // each step starts without the last one's blocks
  std::optional<Split> split = splitGpt2(ctx, config, batch, seq, variant, why);
  if (!split)
    return std::nullopt;
  std::optional<Gpt2Step> step = describe(*split, why);
  if (!step)
    return std::nullopt;
  mlir::func::FuncOp fn = split->value_and_grad();
  auto compiled =
      cpu::CpuModule::compile(split->module(), {.entryPoints = {fn.getSymName().str()}});
  if (mlir::failed(compiled)) {
    why = "the step did not compile";
    return std::nullopt;
  }
  std::vector<cpu::Tensor> args = randomArguments(fn, 2);
  std::vector<double> seconds;
  for (unsigned r = 0; r <= repeats; ++r) { // one warm-up
    auto result = (*compiled)->call(fn.getSymName(), args);
    if (mlir::failed(result)) {
      why = "the step failed to run";
      return std::nullopt;
    }
    if (r > 0)
      seconds.push_back(result->seconds);
    step->peakBytes = std::max(step->peakBytes, result->stats.peakBytes);
    step->results = std::move(result->results);
  }
  step->seconds = median(seconds);
  return step;
}
