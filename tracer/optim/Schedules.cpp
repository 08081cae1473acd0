//===- Schedules.cpp - optax's schedules as traced functions --------------===//
//
// Each follows optax's arithmetic op for op (and its dtype promotions: an
// i32 count against a Python float becomes f32), so a traced schedule gives
// optax's values.
//
//===----------------------------------------------------------------------===//

#include "tracer/optim/Schedules.h"

#include "tracer/Errors.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"

#include <numbers>

using namespace cotangent;

optim::Schedule optim::constant_schedule(double value) {
  return [value](const Tensor &) { return np::full({}, value); };
}

optim::Schedule optim::linear_schedule(double init_value, double end_value,
                                       int64_t transition_steps, int64_t transition_begin) {
  if (transition_steps <= 0)
    return constant_schedule(init_value);
  transition_begin = std::max<int64_t>(transition_begin, 0);
  return [=](const Tensor &count) {
    Tensor steps = np::clip(count - transition_begin, 0, transition_steps);
    Tensor frac = 1.0 - np::divide(steps, transition_steps);
    return (init_value - end_value) * frac + end_value;
  };
}

optim::Schedule optim::cosine_decay_schedule(double init_value, int64_t decay_steps, double alpha,
                                             double exponent) {
  if (decay_steps <= 0)
    throw TraceError("cosine_decay_schedule: decay_steps must be positive, got " +
                     std::to_string(decay_steps));
  return [=](const Tensor &count) {
    double steps = static_cast<double>(decay_steps);
    Tensor t = np::minimum(np::astype(count, DType::F32), steps);
    Tensor cosine = 0.5 * (1.0 + np::cos(std::numbers::pi * t / steps));
    if (exponent != 1.0)
      cosine = np::power(cosine, exponent);
    return init_value * ((1.0 - alpha) * cosine + alpha);
  };
}

optim::Schedule optim::join_schedules(std::vector<Schedule> schedules,
                                      std::vector<int64_t> boundaries) {
  if (schedules.empty() || boundaries.size() + 1 != schedules.size())
    throw TraceError("join_schedules: " + std::to_string(schedules.size()) + " schedules need " +
                     std::to_string(schedules.empty() ? 0 : schedules.size() - 1) +
                     " boundaries, got " + std::to_string(boundaries.size()));
  return [schedules = std::move(schedules), boundaries = std::move(boundaries)](const Tensor &step) {
    Tensor output = schedules[0](step);
    for (size_t i = 0; i < boundaries.size(); ++i)
      output = np::where(np::less(step, boundaries[i]), output, schedules[i + 1](step - boundaries[i]));
    return output;
  };
}

optim::Schedule optim::warmup_cosine_decay_schedule(double init_value, double peak_value,
                                                    int64_t warmup_steps, int64_t decay_steps,
                                                    double end_value, double exponent) {
  double alpha = peak_value == 0.0 ? 0.0 : end_value / peak_value;
  return join_schedules({linear_schedule(init_value, peak_value, warmup_steps),
                         cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)},
                        {warmup_steps});
}
