//===- JxAttentionOps.h - shapes of the fused attention ops -----*- C++ -*-===//
//
// What dot_product_attention's verifier, its VJP and its kernels agree on
// (JxAttentionOps.td): the logsumexp's type and how many (query, key) pairs
// a causal mask leaves. Both ops are composites (CompositeOpInterface):
// their expansion materializes the scores, for targets without the kernels.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXATTENTIONOPS_H
#define COTANGENT_DIALECTS_JX_JXATTENTIONOPS_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

namespace mlir::jx {

/// The logsumexp of attention over `query` [B, T, N, H]: [B, N, T] in f32, or
/// f64 for an f64 query (low floats keep it in f32, as the backward needs).
RankedTensorType attentionLogsumexpType(RankedTensorType query);

/// The (query, key) pairs one batch and head scores: T * S, or with a
/// causal mask the pairs with key <= query.
int64_t attentionPairs(int64_t queries, int64_t keys, bool causal);

} // namespace mlir::jx

#endif // COTANGENT_DIALECTS_JX_JXATTENTIONOPS_H
