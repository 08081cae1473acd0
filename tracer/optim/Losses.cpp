//===- Losses.cpp - optax's losses ----------------------------------------===//

#include "tracer/optim/Losses.h"

#include "tracer/DType.h"
#include "tracer/Errors.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"

using namespace cotangent;

Tensor optim::softmax_cross_entropy_with_integer_labels(const Tensor &logits, const Tensor &labels,
                                                        SrcLoc loc) {
  Shape expected(logits.shape().begin(), logits.shape().end() - (logits.rank() ? 1 : 0));
  if (logits.rank() == 0 || labels.shape() != expected || !isInteger(labels.dtype()))
    throwTraceError("softmax_cross_entropy_with_integer_labels",
                    "labels must be integers of the logits' shape without its last axis",
                    {logits.str(), labels.str()}, loc);
  // optax's arithmetic: the label's logit gathered (its gradient a
  // scatter-add, no [..., classes] one-hot mask kept for the backward).
  Tensor normalizer = nn::logsumexp(logits, {-1}, false, loc);
  Tensor labelLogits = np::squeeze(
      np::take_along_axis(logits, np::expand_dims(labels, {-1}, loc), -1, loc), {-1}, loc);
  return np::subtract(normalizer, labelLogits, loc);
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
