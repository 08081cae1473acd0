//===- Losses.h - optax's losses, traced -------------------------*- C++ -*-===//
//
// The losses a training step ends in, with optax's names and formulas, per
// example (reduce them with np::mean as optax users do).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_OPTIM_LOSSES_H
#define COTANGENT_TRACER_OPTIM_LOSSES_H

#include "tracer/Tensor.h"

namespace cotangent::optim {

/// optax.softmax_cross_entropy_with_integer_labels: logsumexp(logits) minus
/// the label's logit, over the last axis; `labels` (i32 or i64) has logits'
/// shape without it (negative labels count from the end, then labels are
/// clamped, as take_along_axis gathers). One jx.softmax_cross_entropy, llm.c's
/// fused classifier: the backward saves the logits and each row's
/// logsumexp and makes d(logits) in one elementwise pass, no probabilities,
/// one-hot or scatter of [..., classes] beside it.
Tensor softmax_cross_entropy_with_integer_labels(const Tensor &logits, const Tensor &labels,
                                                 SrcLoc loc = SrcLoc::current());
/// optax.softmax_cross_entropy: -sum(labels * log_softmax(logits)) over the
/// last axis, `labels` a distribution of logits' shape.
Tensor softmax_cross_entropy(const Tensor &logits, const Tensor &labels,
                             SrcLoc loc = SrcLoc::current());
/// optax.l2_loss: 0.5 * (predictions - targets)^2, elementwise.
Tensor l2_loss(const Tensor &predictions, const Tensor &targets, SrcLoc loc = SrcLoc::current());

} // namespace cotangent::optim

#endif // COTANGENT_TRACER_OPTIM_LOSSES_H
