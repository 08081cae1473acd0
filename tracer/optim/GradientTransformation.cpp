//===- GradientTransformation.cpp - chain and the state's checks ----------===//

#include "tracer/optim/GradientTransformation.h"

using namespace cotangent;

const Tensor &optim::stateEntry(const State &state, const std::string &key) {
  auto it = state.find(key);
  if (it != state.end())
    return it->second;
  std::string have;
  for (const auto &[name, t] : state)
    have += (have.empty() ? "" : ", ") + name;
  throw TraceError("optimizer state has no entry '" + key + "' (it has: " +
                   (have.empty() ? "nothing" : have) +
                   "): was it made by this optimizer's init, for these parameters?");
}

void optim::checkSameTree(const Leaves &updates, const Leaves &params) {
  if (updates.size() != params.size())
    throw TraceError("optimizer: " + std::to_string(updates.size()) + " updates for " +
                     std::to_string(params.size()) + " parameters");
  for (size_t i = 0; i < params.size(); ++i) {
    const auto &[up, u] = updates[i];
    const auto &[pp, p] = params[i];
    if (up != pp || u.shape() != p.shape())
      throw TraceError("optimizer: the update at " + up + " (" + u.str() +
                       ") does not match the parameter at " + pp + " (" + p.str() + ")");
  }
}

optim::GradientTransformation optim::chain(std::vector<GradientTransformation> transforms) {
  auto prefix = [](size_t i) { return std::to_string(i) + "/"; };
  GradientTransformation out;
  out.init = [transforms, prefix](const Leaves &params) {
    State state;
    for (size_t i = 0; i < transforms.size(); ++i)
      for (auto &[key, t] : transforms[i].init(params))
        state.emplace(prefix(i) + key, t);
    return state;
  };
  out.update = [transforms, prefix](Leaves &updates, const State &state, const Leaves &params) {
    State next;
    for (size_t i = 0; i < transforms.size(); ++i) {
      // Each member sees its own entries, without the prefix.
      State own;
      std::string p = prefix(i);
      for (auto it = state.lower_bound(p); it != state.end() && it->first.starts_with(p); ++it)
        own.emplace(it->first.substr(p.size()), it->second);
      State member;
      try {
        member = transforms[i].update(updates, own, params);
      } catch (const TraceError &e) {
        throw TraceError("chain member " + std::to_string(i) + ": " + e.what());
      }
      for (auto &[key, t] : member)
        next.emplace(p + key, t);
    }
    return next;
  };
  return out;
}
