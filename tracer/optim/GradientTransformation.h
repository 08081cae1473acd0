//===- GradientTransformation.h - optax's optimizers, traced ----*- C++ -*-===//
//
// Optimizers as optax writes them: a GradientTransformation is a pair of
// functions, `init(params) -> state` and `update(updates, state, params) ->
// (updates, state)`, composed with `chain`. Both are traced like any other
// function of Tensors, so the update is part of the compiled training step
// (jit(train_step)), not host code walking the parameters.
//
// The state is a tree the user can inspect, save and restore: a dict from
// names to leaves, each name the transformation's field and the parameter's
// path ("mu['Dense_0']['kernel']", "count"; chain prefixes each member's
// index: "0/mu['w']"). As a std::map of Tensors it is a jit argument and
// result; as a std::map of interp::Tensors, a host value.
//
//   auto tx = optim::adamw(optim::warmup_cosine_decay_schedule(0, 1e-3, 10, 100), {.b1 = 0.9});
//   optim::State s = optim::init(tx, params);
//   auto [updates, next] = optim::update(tx, grads, s, params);
//   params = optim::apply_updates(params, updates);
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_OPTIM_GRADIENTTRANSFORMATION_H
#define COTANGENT_TRACER_OPTIM_GRADIENTTRANSFORMATION_H

#include "tracer/Errors.h"
#include "tracer/Numpy.h"
#include "tracer/Pytree.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cotangent::optim {

/// An optimizer's state over leaves of type Leaf (Tensor while tracing,
/// interp::Tensor on the host).
template <class Leaf>
using StateOf = std::map<std::string, Leaf>;
using State = StateOf<Tensor>;

/// A tree's leaves with their paths ("['w1']"), in the tree's order.
using Leaves = std::vector<std::pair<std::string, Tensor>>;

struct GradientTransformation {
  /// The state for parameters `params`.
  std::function<State(const Leaves &params)> init;
  /// Transforms `updates` (leaves at the parameters' paths) in place and
  /// returns the next state.
  std::function<State(Leaves &updates, const State &state, const Leaves &params)> update;
};

/// optax.chain: each transformation's update feeds the next; the state
/// holds each one's under its index ("0/", "1/", ...).
GradientTransformation chain(std::vector<GradientTransformation> transforms);

/// Entry `key` of `state`; throws TraceError naming the key and the
/// entries there are when it is missing (a state of another optimizer).
const Tensor &stateEntry(const State &state, const std::string &key);

/// Leaves of `updates` checked against `params` (same paths, shapes, dtypes).
void checkSameTree(const Leaves &updates, const Leaves &params);

template <TensorTree P>
State init(const GradientTransformation &tx, const P &params) {
  return tx.init(flattenWithPaths(params));
}

/// optax's `tx.update(grads, state, params)`: the updates shaped like
/// `grads`, and the next state.
template <TensorTree P>
std::pair<P, State> update(const GradientTransformation &tx, const P &grads, const State &state,
                           const P &params) {
  Leaves updates = flattenWithPaths(grads);
  Leaves leaves = flattenWithPaths(params);
  checkSameTree(updates, leaves);
  State next = tx.update(updates, state, leaves);
  std::vector<Tensor> out;
  for (auto &[path, t] : updates)
    out.push_back(t);
  return {unflatten(grads, out), std::move(next)};
}

/// optax.apply_updates: params + updates, in each parameter's dtype.
template <TensorTree P>
P apply_updates(const P &params, const P &updates) {
  Leaves p = flattenWithPaths(params), u = flattenWithPaths(updates);
  checkSameTree(u, p);
  std::vector<Tensor> out;
  for (size_t i = 0; i < p.size(); ++i)
    out.push_back(np::astype(p[i].second + u[i].second, p[i].second.dtype()));
  return unflatten(params, out);
}

} // namespace cotangent::optim

#endif // COTANGENT_TRACER_OPTIM_GRADIENTTRANSFORMATION_H
