//===- JxAttentionOps.h - shapes of the fused attention ops -----*- C++ -*-===//
//
// What dot_product_attention's verifier, its VJP and its kernels agree on
// (JxAttentionOps.td): the logsumexp's type and how many (query, key) pairs
// a causal mask leaves; and both ops written as other jx ops (dot_generals,
// a softmax over materialized scores), for targets without the kernels.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXATTENTIONOPS_H
#define COTANGENT_DIALECTS_JX_JXATTENTIONOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

namespace mlir::jx {

/// The logsumexp of attention over `query` [B, T, N, H]: [B, N, T] in f32, or
/// f64 for an f64 query (low floats keep it in f32, as the backward needs).
RankedTensorType attentionLogsumexpType(RankedTensorType query);

/// The (query, key) pairs one batch and head scores: T * S, or with a
/// causal mask the pairs with key <= query.
int64_t attentionPairs(int64_t queries, int64_t keys, bool causal);

class DotProductAttentionOp;
class DotProductAttentionGradOp;

/// The op's results {output, logsumexp} computed by jx ops inserted at `b`'s
/// insertion point (low floats computed in f32 and rounded at the end).
SmallVector<Value> expandAttention(OpBuilder &b, DotProductAttentionOp op);
/// {dquery, dkey, dvalue} likewise.
SmallVector<Value> expandAttentionGrad(OpBuilder &b, DotProductAttentionGradOp op);

} // namespace mlir::jx

#endif // COTANGENT_DIALECTS_JX_JXATTENTIONOPS_H
