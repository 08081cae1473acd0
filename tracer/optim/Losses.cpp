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
  Tensor normalizer = nn::logsumexp(logits, {-1}, false, loc);
  Tensor mask = nn::one_hot(labels, logits.shape().back(), logits.dtype(), loc);
  Tensor labelLogits = np::sum(mask * logits, {-1}, false, loc);
  return normalizer - labelLogits;
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
