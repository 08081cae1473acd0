//===- VjpRulesAttention.cpp - VJP rule of fused attention ----------------===//
//
// dot_product_attention saves its operands, its output and the logsumexp
// (both its results: a remat policy that saves dots saves them, and a
// recompute policy redoes the forward), and its transpose is
// dot_product_attention_grad, which recomputes the probabilities from the
// logsumexp. The logsumexp's own cotangent g, which no traced program
// produces but IR may, adds g_i P_ij to the scaled scores' cotangent:
// dq_i += scale g_i (P k)_i, an attention whose values are the keys, and
// dk_j += sum_i P_ij (scale g_i q_i), the value cotangent of a backward
// whose output cotangent is scale g q.
//
//===----------------------------------------------------------------------===//

#include "passes/autodiff/VjpRules.h"

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

namespace {

/// g [B, N, T] scaled by `scale`, broadcast to [B, T, N, H] and converted
/// to the type `like` (the logsumexp may be wider than the query).
Value broadcastRowScale(JxBuilder &b, Value g, Type like, double scale) {
  Value scaled = b.mul(g, b.splat(g.getType(), scale));
  ArrayRef<int64_t> q = cast<RankedTensorType>(like).getShape();
  Type gElement = cast<RankedTensorType>(g.getType()).getElementType();
  Value wide = b.broadcastInDim(scaled, RankedTensorType::get({q[0], q[2], q[1], q[3]}, gElement),
                                {0, 1, 2});
  return b.convert(b.transpose(wide, {0, 2, 1, 3}), like);
}

} // namespace

void mlir::cotangent::addAttentionVjpRules(VjpRuleTable &t) {
  t[TypeID::get<DotProductAttentionOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool>) {
        auto attn = cast<DotProductAttentionOp>(op);
        return SmallVector<Value>{attn.getQuery(), attn.getKey(), attn.getValue(),
                                  attn.getOutput(), attn.getLogsumexp()};
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        auto attn = cast<DotProductAttentionOp>(op);
        Value q = res[0], k = res[1], v = res[2], out = res[3], lse = res[4];
        OpBuilder &ob = b.builder();
        FloatAttr scaleAttr = attn.getScaleAttr();
        UnitAttr causal = attn.getIsCausalAttr();
        double scale = scaleAttr.getValueAsDouble();
        SmallVector<Value> grads(3);
        if (cts[0]) {
          auto grad = DotProductAttentionGradOp::create(ob, b.getLoc(), q, k, v, out, lse,
                                                        b.convert(cts[0], out.getType()),
                                                        scaleAttr, causal);
          grads.assign(grad->result_begin(), grad->result_end());
        }
        if (Value g = cts[1]) {
          Value qScale = broadcastRowScale(b, g, q.getType(), scale);
          Value pk = DotProductAttentionOp::create(ob, b.getLoc(), q, k, k, scaleAttr, causal)
                         .getOutput();
          Value dq = b.mul(qScale, pk);
          auto back = DotProductAttentionGradOp::create(
              ob, b.getLoc(), q, k, v, out, lse,
              b.mul(qScale, q), scaleAttr, causal);
          grads[0] = b.add(grads[0], dq);
          grads[1] = b.add(grads[1], back.getDvalue());
        }
        return grads;
      }};
}
