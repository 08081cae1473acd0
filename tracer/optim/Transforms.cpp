//===- Transforms.cpp - optax's transformations, op for op ----------------===//
//
// Each update follows optax's expression (its operand order and dtype
// promotions), so a traced step computes what optax computes up to the
// rounding of reordered sums: the tests hold optax's values within the
// interpreter's derived bounds of ours.
//
//===----------------------------------------------------------------------===//

#include "tracer/optim/Transforms.h"
#include "tracer/Collectives.h"

#include <cstdint>
#include <limits>

using namespace cotangent;
using namespace cotangent::optim;

namespace {

/// optax.safe_increment on an i32 count: count + 1, saturating.
Tensor safeIncrement(const Tensor &count) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  return np::where(np::less(count, kMax), count + 1, kMax);
}

/// optax.tree.bias_correction's divisor: 1 - decay ** count.
Tensor biasCorrection(double decay, const Tensor &count) {
  return 1.0 - np::power(decay, np::astype(count, DType::F32));
}

State counterState() { return {{"count", np::zeros({}, DType::I32)}}; }

} // namespace

GradientTransformation optim::scale_by_adam(AdamOptions o) {
  GradientTransformation tx;
  tx.init = [](const Leaves &params) {
    State s = counterState();
    for (const auto &[path, p] : params) {
      s.emplace("mu" + path, np::zeros_like(p));
      s.emplace("nu" + path, np::zeros_like(p));
    }
    return s;
  };
  tx.update = [o](Leaves &updates, const State &state, const Leaves &) {
    Tensor count = safeIncrement(stateEntry(state, "count"));
    Tensor c1 = biasCorrection(o.b1, count), c2 = biasCorrection(o.b2, count);
    State next{{"count", count}};
    for (auto &[path, g] : updates) {
      Tensor mu = (1.0 - o.b1) * g + o.b1 * stateEntry(state, "mu" + path);
      Tensor nu = (1.0 - o.b2) * (g * g) + o.b2 * stateEntry(state, "nu" + path);
      Tensor muHat = mu / np::astype(c1, mu.dtype());
      Tensor nuHat = nu / np::astype(c2, nu.dtype());
      g = muHat / (np::sqrt(nuHat + o.eps_root) + o.eps);
      next.emplace("mu" + path, mu);
      next.emplace("nu" + path, nu);
    }
    return next;
  };
  return tx;
}

GradientTransformation optim::trace(double decay, bool nesterov) {
  GradientTransformation tx;
  tx.init = [](const Leaves &params) {
    State s;
    for (const auto &[path, p] : params)
      s.emplace("trace" + path, np::zeros_like(p));
    return s;
  };
  tx.update = [decay, nesterov](Leaves &updates, const State &state, const Leaves &) {
    State next;
    for (auto &[path, g] : updates) {
      Tensor t = g + decay * stateEntry(state, "trace" + path);
      next.emplace("trace" + path, t);
      g = nesterov ? g + decay * t : t;
    }
    return next;
  };
  return tx;
}

GradientTransformation optim::add_decayed_weights(double weight_decay, Mask mask) {
  GradientTransformation tx;
  tx.init = [](const Leaves &) { return State{}; };
  tx.update = [weight_decay, mask](Leaves &updates, const State &, const Leaves &params) {
    if (params.size() != updates.size())
      throw TraceError("add_decayed_weights: needs the parameters (" +
                       std::to_string(updates.size()) + " updates, " +
                       std::to_string(params.size()) + " parameters)");
    for (size_t i = 0; i < updates.size(); ++i)
      if (!mask || mask(updates[i].first))
        updates[i].second = updates[i].second + weight_decay * params[i].second;
    return State{};
  };
  return tx;
}

GradientTransformation optim::clip_by_global_norm(double max_norm, std::string axis) {
  if (!(max_norm > 0))
    throw TraceError("clip_by_global_norm: max_norm must be positive, got " + std::to_string(max_norm));
  GradientTransformation tx;
  tx.init = [](const Leaves &) { return State{}; };
  tx.update = [max_norm, axis](Leaves &updates, const State &, const Leaves &) {
    if (updates.empty())
      return State{};
    // optax.tree.norm: the square root of the sum, leaf by leaf, of each
    // leaf's sum of squares.
    Tensor total;
    for (const auto &[path, g] : updates) {
      Tensor s = np::sum(g * g);
      total = total.valid() ? total + s : s;
    }
    if (!axis.empty())
      total = lax::psum(total, axis);
    Tensor norm = np::sqrt(total);
    Tensor trigger = np::less(norm, max_norm);
    for (auto &[path, g] : updates)
      g = np::where(trigger, g, (g / np::astype(norm, g.dtype())) * max_norm);
    return State{};
  };
  return tx;
}

GradientTransformation optim::scale(double step_size) {
  GradientTransformation tx;
  tx.init = [](const Leaves &) { return State{}; };
  tx.update = [step_size](Leaves &updates, const State &, const Leaves &) {
    for (auto &[path, g] : updates)
      g = step_size * g;
    return State{};
  };
  return tx;
}

GradientTransformation optim::scale_by_schedule(Schedule schedule) {
  GradientTransformation tx;
  tx.init = [](const Leaves &) { return counterState(); };
  tx.update = [schedule](Leaves &updates, const State &state, const Leaves &) {
    const Tensor &count = stateEntry(state, "count");
    Tensor step = schedule(count);
    for (auto &[path, g] : updates)
      g = np::astype(step, g.dtype()) * g;
    return State{{"count", safeIncrement(count)}};
  };
  return tx;
}

GradientTransformation optim::scale_by_learning_rate(LearningRate learning_rate, bool flip_sign) {
  double m = flip_sign ? -1.0 : 1.0;
  if (const double *lr = std::get_if<double>(&learning_rate))
    return scale(m * *lr);
  Schedule lr = std::get<Schedule>(learning_rate);
  return scale_by_schedule([lr, m](const Tensor &count) { return m * lr(count); });
}

namespace {

/// optax.identity: what sgd chains in place of a momentum it does not have.
GradientTransformation identity() {
  return {[](const Leaves &) { return State{}; },
          [](Leaves &, const State &, const Leaves &) { return State{}; }};
}

} // namespace

GradientTransformation optim::sgd(LearningRate learning_rate, std::optional<double> momentum,
                                  bool nesterov) {
  return chain({momentum ? trace(*momentum, nesterov) : identity(),
                scale_by_learning_rate(std::move(learning_rate))});
}

GradientTransformation optim::adam(LearningRate learning_rate, AdamOptions options) {
  return chain({scale_by_adam(options), scale_by_learning_rate(std::move(learning_rate))});
}

GradientTransformation optim::adamw(LearningRate learning_rate, AdamOptions options,
                                    double weight_decay, Mask mask) {
  return chain({scale_by_adam(options), add_decayed_weights(weight_decay, std::move(mask)),
                scale_by_learning_rate(std::move(learning_rate))});
}
