//===- Transforms.h - optax's gradient transformations and optimizers -*- C++ -*-===//
//
// The building blocks (scale_by_adam, trace, add_decayed_weights,
// clip_by_global_norm, scale_by_learning_rate, scale_by_schedule) and the
// optimizers chained from them (sgd, adam, adamw), with optax's names,
// defaults and arithmetic. State entries: "count" (i32), "mu"/"nu"/"trace"
// followed by each parameter's path.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_OPTIM_TRANSFORMS_H
#define COTANGENT_TRACER_OPTIM_TRANSFORMS_H

#include "tracer/optim/GradientTransformation.h"
#include "tracer/optim/Schedules.h"

#include <optional>
#include <variant>

namespace cotangent::optim {

/// A step size: a constant or a schedule of the step count.
using LearningRate = std::variant<double, Schedule>;

/// Which parameters a transformation applies to, by path ("['w1']",
/// "['Dense_0']['kernel']"): optax's mask (e.g. no weight decay on biases
/// and norms). Empty: all of them.
using Mask = std::function<bool(const std::string &path)>;

struct AdamOptions {
  double b1 = 0.9;
  double b2 = 0.999;
  double eps = 1e-8;
  double eps_root = 0.0;
};

/// optax.scale_by_adam: bias-corrected first and second moments;
/// mu / (sqrt(nu + eps_root) + eps).
GradientTransformation scale_by_adam(AdamOptions options = {});
/// optax.trace: momentum (nesterov: g + decay * the new trace).
GradientTransformation trace(double decay, bool nesterov = false);
/// optax.add_decayed_weights: updates + weight_decay * params, where `mask` holds.
GradientTransformation add_decayed_weights(double weight_decay = 0.0, Mask mask = {});
/// optax.clip_by_global_norm: every update scaled by max_norm / ||updates||
/// when that norm (over all leaves) is at least max_norm. With `axis`, the
/// leaves are blocks split across that mesh axis's ranks (zero1's): the
/// norm is the whole group's (its square psum'd).
GradientTransformation clip_by_global_norm(double max_norm, std::string axis = "");
/// optax.scale: updates * step_size.
GradientTransformation scale(double step_size);
/// optax.scale_by_schedule: updates * schedule(count); count + 1.
GradientTransformation scale_by_schedule(Schedule schedule);
/// optax.scale_by_learning_rate: updates * -learning_rate (flip_sign).
GradientTransformation scale_by_learning_rate(LearningRate learning_rate, bool flip_sign = true);

/// optax.sgd: with momentum, trace(momentum, nesterov) first.
GradientTransformation sgd(LearningRate learning_rate, std::optional<double> momentum = std::nullopt,
                           bool nesterov = false);
/// optax.adam.
GradientTransformation adam(LearningRate learning_rate, AdamOptions options = {});
/// optax.adamw: Adam, then decoupled weight decay (where `mask` holds),
/// then the learning rate.
GradientTransformation adamw(LearningRate learning_rate, AdamOptions options = {},
                             double weight_decay = 1e-4, Mask mask = {});

} // namespace cotangent::optim

#endif // COTANGENT_TRACER_OPTIM_TRANSFORMS_H
