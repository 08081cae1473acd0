//===- JxCrossEntropyOps.cpp - the fused softmax cross-entropy ------------===//
//
// Types: logits [..., C], labels [...] of integers, loss and logsumexp [...]
// in the logits' type. Expansion: a max and a sum of exponentials over the
// classes, the label's logit picked by comparing an iota with the label (an
// elementwise select and a sum: no gather, no one-hot tensor kept), and the
// backward's (exp(x - lse) - [class == label]) * dloss, one elementwise
// expression the lowering fuses into one loop.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/CompositeBuilder.h"
#include "dialects/jx/JxOps.h"

using namespace mlir;
using namespace mlir::jx;

namespace {

/// The rows' type: `logits` without its last dimension.
FailureOr<RankedTensorType> rowsOf(std::optional<Location> loc, Type logitsType,
                                   Type labelsType) {
  auto logits = dyn_cast<RankedTensorType>(logitsType);
  auto labels = dyn_cast<RankedTensorType>(labelsType);
  if (!logits || !labels)
    return emitOptionalError(loc, "expected ranked tensor operands");
  if (logits.getRank() == 0 || logits.getShape().back() == 0)
    return emitOptionalError(loc, "logits need a non-empty class dimension, got ", logits);
  auto rows = RankedTensorType::get(logits.getShape().drop_back(), logits.getElementType());
  if (labels.getShape() != rows.getShape())
    return emitOptionalError(loc, "labels must be the logits' shape without the classes, ",
                             rows.clone(labels.getElementType()), ", got ", labels);
  return rows;
}

/// [class == label] over `logits`' shape: labels counted from the end when
/// negative, then clamped to the classes (as jx.take gathers).
Value labelMask(CompositeBuilder &x, Value logits, Value labels) {
  OpBuilder &b = x.b;
  RankedTensorType lt = x.typeOf(labels);
  int64_t classes = x.typeOf(logits).getShape().back();
  Value zero = x.splat(lt, 0), count = x.splat(lt, static_cast<double>(classes));
  Value negative = LtOp::create(b, x.loc, labels, zero);
  Value fromEnd = AddOp::create(b, x.loc, labels, count);
  Value label = SelectNOp::create(b, x.loc, negative, ValueRange{labels, fromEnd});
  label = MaxOp::create(b, x.loc, MinOp::create(b, x.loc, label, x.splat(lt, classes - 1)), zero);
  auto indexType = x.typeOf(logits).clone(lt.getElementType());
  Value iota = IotaOp::create(b, x.loc, indexType, b.getI64IntegerAttr(indexType.getRank() - 1));
  return EqOp::create(b, x.loc, iota, x.alongLast(label, logits));
}

} // namespace

LogicalResult SoftmaxCrossEntropyOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                                      Adaptor adaptor,
                                                      SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> rows =
      rowsOf(loc, adaptor.getLogits().getType(), adaptor.getLabels().getType());
  if (failed(rows))
    return failure();
  results.append({*rows, *rows});
  return success();
}

LogicalResult SoftmaxCrossEntropyGradOp::inferReturnTypes(MLIRContext *,
                                                          std::optional<Location> loc,
                                                          Adaptor adaptor,
                                                          SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> rows =
      rowsOf(loc, adaptor.getLogits().getType(), adaptor.getLabels().getType());
  if (failed(rows))
    return failure();
  if (adaptor.getLogsumexp().getType() != *rows || adaptor.getDloss().getType() != *rows)
    return emitOptionalError(loc, "logsumexp and dloss must be ", *rows, ", got ",
                             adaptor.getLogsumexp().getType(), " and ",
                             adaptor.getDloss().getType());
  results.push_back(adaptor.getLogits().getType());
  return success();
}

SmallVector<Value> SoftmaxCrossEntropyOp::expand(OpBuilder &b) {
  CompositeBuilder x(b, getLoc(), getLogits());
  Value logits = x.widen(getLogits());
  Value max = x.reduceLast<ReduceMaxOp>(logits);
  Value shifted = SubOp::create(b, x.loc, logits, x.alongLast(max, logits));
  Value sum = x.reduceLast<ReduceSumOp>(ExpOp::create(b, x.loc, shifted));
  Value lse = AddOp::create(b, x.loc, max, LogOp::create(b, x.loc, sum));
  Value picked = SelectNOp::create(b, x.loc, labelMask(x, logits, getLabels()),
                                   ValueRange{x.splat(x.typeOf(logits), 0), logits});
  Value loss = SubOp::create(b, x.loc, lse, x.reduceLast<ReduceSumOp>(picked));
  return {x.narrow(loss, getLoss().getType()), x.narrow(lse, getLogsumexp().getType())};
}

SmallVector<Value> SoftmaxCrossEntropyGradOp::expand(OpBuilder &b) {
  CompositeBuilder x(b, getLoc(), getLogits());
  Value logits = x.widen(getLogits());
  RankedTensorType t = x.typeOf(logits);
  Value probs = ExpOp::create(
      b, x.loc, SubOp::create(b, x.loc, logits, x.alongLast(x.widen(getLogsumexp()), logits)));
  Value oneHot = SelectNOp::create(b, x.loc, labelMask(x, logits, getLabels()),
                                   ValueRange{x.splat(t, 0), x.splat(t, 1)});
  Value dlogits = MulOp::create(b, x.loc, SubOp::create(b, x.loc, probs, oneHot),
                                x.alongLast(x.widen(getDloss()), logits));
  return {x.narrow(dlogits, getDlogits().getType())};
}
