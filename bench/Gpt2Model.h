//===- Gpt2Model.h - GPT-2's loss, traced for the bench ----------*- C++ -*-===//
//
// `@gpt2(params..., ids, targets) -> loss` of models/gpt2 for `batch`
// sequences of `seq` tokens, each block under `policy` (none: no
// checkpoint), attention fused or materialized, parameters as arguments
// (Hugging Face's names). What
// cotangent-bench --emit-mlir --gpt2 writes for the GPU check and what
// --run gpt2 compares with JAX (bench/jax_models.py's gpt2_loss).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_GPT2MODEL_H
#define COTANGENT_BENCH_GPT2MODEL_H

#include "models/gpt2/Config.h"
#include "tracer/Checkpoint.h"
#include "tracer/Nn.h"
#include "tracer/Trace.h"

#include <optional>

namespace cotangent::bench {

Traced traceGpt2(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch, int64_t seq,
                 const std::optional<Policy> &policy,
                 nn::AttentionImplementation attention = nn::AttentionImplementation::Fused);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_GPT2MODEL_H
