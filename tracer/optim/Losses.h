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
/// the label's logit, over the last axis; `labels` (i32) has logits' shape
/// without it. The label's logit is read through a one-hot mask (a batched
/// gather, take_along_axis, is issue 44's): it costs a [..., classes]
/// temporary, which remat policies recompute freely.
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
