//===- Losses.cpp - optax's losses ----------------------------------------===//

#include "tracer/optim/Losses.h"

#include "tracer/DType.h"
#include "tracer/Errors.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"
#include "tracer/TraceState.h"

#include "dialects/jx/JxOps.h"

using namespace cotangent;

Tensor optim::softmax_cross_entropy_with_integer_labels(const Tensor &logits, const Tensor &labels,
                                                        SrcLoc loc) {
  Shape expected(logits.shape().begin(), logits.shape().end() - (logits.rank() ? 1 : 0));
  if (logits.rank() == 0 || labels.shape() != expected || !isInteger(labels.dtype()))
    throwTraceError("softmax_cross_entropy_with_integer_labels",
                    "labels must be integers of the logits' shape without its last axis",
                    {logits.str(), labels.str()}, loc);
  static constexpr std::string_view name = "softmax_cross_entropy_with_integer_labels";
  detail::TraceState &state = detail::activeTrace(name, loc);
  mlir::Value x = detail::use(logits, name, loc), y = detail::use(labels, name, loc);
  detail::checkInference<mlir::jx::SoftmaxCrossEntropyOp>(state, name, loc, {x, y}, {});
  return detail::wrap(detail::emit<mlir::jx::SoftmaxCrossEntropyOp>(name, loc, x, y).getLoss());
}

Tensor optim::softmax_cross_entropy(const Tensor &logits, const Tensor &labels, SrcLoc loc) {
  if (logits.shape() != labels.shape())
    throwTraceError("softmax_cross_entropy", "labels must have the logits' shape",
                    {logits.str(), labels.str()}, loc);
  return -np::sum(labels * nn::log_softmax(logits, -1, loc), {-1}, false, loc);
}

Tensor optim::l2_loss(const Tensor &predictions, const Tensor &targets, SrcLoc loc) {
  Tensor d = np::subtract(predictions, targets, loc);
  return 0.5 * (d * d);
}
