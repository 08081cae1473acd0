//===- Sharded.h - optimizers whose state is split across ranks -*- C++ -*-===//
//
// ZeRO stage 1 (Rajbhandari et al., 2020), as a GradientTransformation over
// the ranks of a mesh axis in a shard_map-style step: every rank holds all
// the parameters and computes the gradients of its own batch; zero1(inner)
// then reduce-scatters the gradients (each rank gets the mean of one
// 1/axis_size block of every leaf, flattened and padded to a multiple of
// axis_size), runs `inner` on that block with the block of the parameters,
// and all-gathers the updates, so every rank applies the same full update
// while holding only its block of the optimizer state. The result equals
// `inner` on the group's mean gradient, up to rounding, when `inner`'s
// norms are taken over the whole group (clip_by_global_norm's `axis`).
//
//   auto tx = optim::zero1(optim::chain({optim::clip_by_global_norm(1.0, "data"),
//                                        optim::adamw(3e-4)}), "data", 8);
//   optim::State s = jit([&](const P &p) { return optim::init(tx, p); })(params); // a block
//   // in the step: update(tx, local_grads, s, params) -> full updates, next block of state
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_OPTIM_SHARDED_H
#define COTANGENT_TRACER_OPTIM_SHARDED_H

#include "tracer/optim/GradientTransformation.h"

namespace cotangent::optim {

/// ZeRO-1 over mesh axis `axis` of `axis_size` ranks: `inner`'s state holds
/// this rank's block of every leaf; update() takes the rank's own (not yet
/// averaged) gradients and returns the full updates of the group's mean.
GradientTransformation zero1(GradientTransformation inner, std::string axis, int64_t axis_size);

/// This rank's block of `x` (flattened, zero-padded to a multiple of
/// `axis_size`): what zero1 keeps state for.
Tensor shard_of(const Tensor &x, const std::string &axis, int64_t axis_size);

} // namespace cotangent::optim

#endif // COTANGENT_TRACER_OPTIM_SHARDED_H
