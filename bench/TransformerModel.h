//===- TransformerModel.h - a pre-LN transformer, traced under a policy -*- C++ -*-===//
//
// `@transformer(x, params...) -> sum(h_L)` over `blocks` pre-LN transformer
// blocks (f32, one sequence of `seq` tokens of `width`):
//
//   h = h + attention(layer_norm(h))   causal, `heads` heads, no biases
//   h = h + mlp(layer_norm(h))         width -> 4 width -> width, tanh GELU
//
// traced with the C++ API, each block one `checkpoint` under the policy (or
// none). Used by cotangent-bench's budget solve.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_TRANSFORMERMODEL_H
#define COTANGENT_BENCH_TRANSFORMERMODEL_H

#include "tracer/Trace.h"

#include <optional>

namespace cotangent::bench {

struct TransformerConfig {
  int64_t blocks = 4;
  int64_t seq = 128;
  int64_t width = 256;
  int64_t heads = 4;
  /// Sequences per step: x is f32[batch, seq, width]; 0 means one sequence,
  /// x f32[seq, width] (the GPU check's and the budget solve's model).
  int64_t batch = 0;
};

/// Traces @transformer into `ctx`, each block under `policy` (none: no
/// checkpoint). Throws TraceError if the tracer rejects the program.
Traced traceTransformer(mlir::MLIRContext &ctx, const TransformerConfig &config,
                        const std::optional<Policy> &policy);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_TRANSFORMERMODEL_H
