//===- Gpt2Model.h - GPT-2's loss, traced and run for the bench --*- C++ -*-===//
//
// `@gpt2(params..., ids, targets) -> loss` of models/gpt2 for `batch`
// sequences of `seq` tokens, each block under `policy` (none: no
// checkpoint), optionally the whole loss under `wholePolicy` (a
// memory_budget over the step: what --jx-remat-function does), attention
// fused or materialized, parameters as arguments (Hugging Face's names).
// What cotangent-bench --emit-mlir --gpt2 writes for the GPU check, what
// --run gpt2 compares with JAX (bench/jax_models.py's gpt2_loss), and what
// --run attention and --run fit compile and time (runGpt2Step).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_GPT2MODEL_H
#define COTANGENT_BENCH_GPT2MODEL_H

#include "models/gpt2/Config.h"
#include "runtime/cpu/CpuRuntime.h"
#include "tracer/Checkpoint.h"
#include "tracer/Nn.h"
#include "tracer/Trace.h"

#include <optional>
#include <string>
#include <vector>

namespace cotangent::bench {

Traced traceGpt2(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch, int64_t seq,
                 const std::optional<Policy> &policy,
                 nn::AttentionImplementation attention = nn::AttentionImplementation::Fused,
                 const std::optional<Policy> &wholePolicy = std::nullopt);

/// `@gpt2_block(params, x) -> sum(block(x))`: one of `config`'s blocks
/// (models/gpt2's gpt2::block, attention fused) on x f32[batch, seq,
/// n_embd], the whole block under `policy`: the graph cotangent-bench --run
/// partitioner gives Cotangent's budget and PyTorch's partitioner.
Traced traceGpt2Block(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch,
                      int64_t seq, const Policy &policy);

/// How a GPT-2 step is checkpointed and written, for runGpt2Step.
struct Gpt2Variant {
  std::optional<Policy> blockPolicy;
  std::optional<Policy> wholePolicy;
  nn::AttentionImplementation attention = nn::AttentionImplementation::Fused;
};

/// One compiled value-and-grad step, run.
struct Gpt2Step {
  std::vector<std::string> argNames; ///< the step's arguments, as its gradients' names
  int64_t argumentBytes = 0;         ///< parameters and tokens
  int64_t predictedPeakBytes = 0;    ///< the memory plan's, arguments not included
  int64_t peakBytes = 0;             ///< measured, arguments not included
  double seconds = 0;                ///< median of the timed calls
  std::vector<cpu::Tensor> results;  ///< loss, then the gradients
};

/// The step's arguments and its memory plan's peak, split but not run
/// (what --run fit asks at every batch). Null, with `why`, as runGpt2Step.
std::optional<Gpt2Step> planGpt2Step(mlir::MLIRContext &ctx, const gpt2::Config &config,
                                     int64_t batch, int64_t seq, const Gpt2Variant &variant,
                                     std::string &why);

/// Compiles GPT-2's value-and-grad step (residuals outside every checkpoint
/// as jax.jit's XLA keeps them: kCompileDefaultPolicy) and runs it on
/// seeded arguments, one warm-up then `repeats` timed calls, each step
/// starting without the last one's cached blocks. Null, with `why`, when the
/// step cannot be split (e.g. a memory_budget nothing fits) or run.
std::optional<Gpt2Step> runGpt2Step(mlir::MLIRContext &ctx, const gpt2::Config &config,
                                    int64_t batch, int64_t seq, const Gpt2Variant &variant,
                                    unsigned repeats, std::string &why);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_GPT2MODEL_H
