//===- Schedules.h - optax's learning-rate schedules, traced ----*- C++ -*-===//
//
// A schedule maps the step count (an i32 scalar Tensor, as optax's states
// keep it) to a scalar f32 step size, traced: a warmup-cosine learning rate
// is part of the compiled step. Names, arguments and formulas are optax's.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_OPTIM_SCHEDULES_H
#define COTANGENT_TRACER_OPTIM_SCHEDULES_H

#include "tracer/Tensor.h"

#include <functional>
#include <vector>

namespace cotangent::optim {

using Schedule = std::function<Tensor(const Tensor &count)>;

/// optax.constant_schedule.
Schedule constant_schedule(double value);
/// optax.linear_schedule: init_value to end_value over transition_steps,
/// starting at transition_begin (a non-positive transition_steps keeps
/// init_value, as optax does).
Schedule linear_schedule(double init_value, double end_value, int64_t transition_steps,
                         int64_t transition_begin = 0);
/// optax.cosine_decay_schedule: init_value * ((1 - alpha) * c^exponent + alpha)
/// with c = (1 + cos(pi * min(count, decay_steps) / decay_steps)) / 2.
Schedule cosine_decay_schedule(double init_value, int64_t decay_steps, double alpha = 0.0,
                               double exponent = 1.0);
/// optax.join_schedules: schedules[i + 1] from boundaries[i] on, counted
/// from there.
Schedule join_schedules(std::vector<Schedule> schedules, std::vector<int64_t> boundaries);
/// optax.warmup_cosine_decay_schedule: linear from init_value to peak_value
/// over warmup_steps, then a cosine decay to end_value at decay_steps
/// (which counts the warmup).
Schedule warmup_cosine_decay_schedule(double init_value, double peak_value, int64_t warmup_steps,
                                      int64_t decay_steps, double end_value = 0.0,
                                      double exponent = 1.0);

} // namespace cotangent::optim

#endif // COTANGENT_TRACER_OPTIM_SCHEDULES_H
