//===- VjpRulesComposite.cpp - VJP rules of the composite ops -------------===//
//
// Fused attention: dot_product_attention saves its operands, its output and the logsumexp
// (both its results: a remat policy that saves dots saves them, and a
// recompute policy redoes the forward), and its transpose is
// dot_product_attention_grad, which recomputes the probabilities from the
// logsumexp. The logsumexp's own cotangent g, which no traced program
// produces but IR may, adds g_i P_ij to the scaled scores' cotangent:
// dq_i += scale g_i (P k)_i, an attention whose values are the keys, and
// dk_j += sum_i P_ij (scale g_i q_i), the value cotangent of a backward
// whose output cotangent is scale g q.
//
// The fused cross-entropy saves its logits, its logsumexp and the labels;
// its transpose is softmax_cross_entropy_grad, (softmax - one-hot) * dloss in
// one pass. The logsumexp's cotangent g adds g * softmax.
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

void mlir::cotangent::addCompositeVjpRules(VjpRuleTable &t) {
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

  t[TypeID::get<SoftmaxCrossEntropyOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool>) {
        auto ce = cast<SoftmaxCrossEntropyOp>(op);
        return SmallVector<Value>{ce.getLogits(), ce.getLogsumexp(), ce.getLabels()};
      },
      [](JxBuilder &b, Operation *, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        Value logits = res[0], lse = res[1], labels = res[2];
        Type rows = lse.getType();
        Value dloss = cts[0] ? b.convert(cts[0], rows) : b.zeros(rows);
        Value dlogits = b.create<SoftmaxCrossEntropyGradOp>(logits, lse, labels, dloss);
        if (Value g = cts[1]) {
          auto t = cast<RankedTensorType>(logits.getType());
          SmallVector<int64_t> rowDims;
          for (int64_t d = 0; d + 1 < t.getRank(); ++d)
            rowDims.push_back(d);
          Value probs = b.create<ExpOp>(b.sub(logits, b.broadcastInDim(lse, t, rowDims)));
          dlogits = b.add(dlogits, b.mul(probs, b.broadcastInDim(b.convert(g, rows), t, rowDims)));
        }
        return SmallVector<Value>{dlogits, Value()};
      }};
}
