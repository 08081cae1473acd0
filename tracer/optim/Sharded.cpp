//===- Sharded.cpp - ZeRO-1 from reduce-scatter and all-gather ------------===//

#include "tracer/optim/Sharded.h"
#include "tracer/Collectives.h"

namespace cotangent::optim {
namespace {

int64_t blockSize(const Tensor &x, int64_t n) { return (x.size() + n - 1) / n; }

/// `x` flattened and zero-padded to `n` blocks.
Tensor padded(const Tensor &x, int64_t n) {
  Tensor flat = np::reshape(x, {x.size()});
  const int64_t pad = blockSize(x, n) * n - x.size();
  return pad ? np::concatenate({flat, np::zeros({pad}, x.dtype())}) : flat;
}

Leaves blocks(const Leaves &leaves, const std::string &axis, int64_t n) {
  Leaves out;
  for (const auto &[path, x] : leaves)
    out.push_back({path, shard_of(x, axis, n)});
  return out;
}

} // namespace

Tensor shard_of(const Tensor &x, const std::string &axis, int64_t axis_size) {
  const int64_t block = blockSize(x, axis_size);
  Tensor rows = np::reshape(padded(x, axis_size), {axis_size, block});
  return np::dynamic_index_in_dim(rows, lax::axis_index(axis), 0);
}

GradientTransformation zero1(GradientTransformation inner, std::string axis, int64_t axis_size) {
  if (axis_size < 1)
    throw TraceError("zero1: axis_size must be at least 1, got " + std::to_string(axis_size));
  GradientTransformation tx;
  tx.init = [inner, axis, axis_size](const Leaves &params) {
    return inner.init(blocks(params, axis, axis_size));
  };
  tx.update = [inner, axis, axis_size](Leaves &updates, const State &state, const Leaves &params) {
    const double n = static_cast<double>(axis_size);
    // Reduce-scatter: the mean gradient's block of every leaf.
    Leaves mine;
    for (const auto &[path, g] : updates)
      mine.push_back(
          {path, lax::psum_scatter(padded(g, axis_size), axis, axis_size, 0, true) / n});
    State next = inner.update(mine, state, blocks(params, axis, axis_size));
    // All-gather: every rank gets the whole update.
    for (size_t i = 0; i < updates.size(); ++i) {
      Tensor &u = updates[i].second;
      Tensor all = lax::all_gather(mine[i].second, axis, axis_size, 0, true);
      u = np::reshape(np::slice(all, {0}, {u.size()}), u.shape());
    }
    return next;
  };
  return tx;
}

} // namespace cotangent::optim
