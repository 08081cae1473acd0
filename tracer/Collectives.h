//===- Collectives.h - jax.lax's collectives over traced tensors -*- C++ -*-===//
//
// What a shard_map body calls to combine the ranks of a named mesh axis:
// each function emits the jx collective of the same name
// (dialects/jx/JxCollectiveOps.td, docs/distributed.md). A traced function
// using them runs on a simulated group of ranks (interp::runSpmd); grad
// differentiates through them as JAX does (psum <-> psum, all_gather <->
// psum_scatter, ppermute <-> its reverse).
//
//   Tensor step(Tensor w_shard, Tensor x) {                 // FSDP-style
//     Tensor w = lax::all_gather(w_shard, "data", 4, 0, true);
//     return lax::psum(np::sum(np::tanh(np::dot(w, x))), "data");
//   }
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_COLLECTIVES_H
#define COTANGENT_TRACER_COLLECTIVES_H

#include "tracer/Pytree.h"
#include "tracer/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace cotangent::lax {

/// jax.lax.psum: the sum of every rank's `x`.
Tensor psum(const Tensor &x, const std::string &axis, SrcLoc loc = SrcLoc::current());
/// jax.lax.pmean: their mean (a float `x`).
Tensor pmean(const Tensor &x, const std::string &axis, SrcLoc loc = SrcLoc::current());
/// jax.lax.pmean of a tree: each leaf's mean over the ranks (a
/// data-parallel step's gradients: `grads = lax::pmean(grads, "data")`).
template <TensorTree T>
  requires(!std::is_same_v<std::remove_cvref_t<T>, Tensor>)
T pmean(const T &tree, const std::string &axis, SrcLoc loc = SrcLoc::current()) {
  std::vector<Tensor> leaves = flatten(tree);
  for (Tensor &leaf : leaves)
    leaf = pmean(leaf, axis, loc);
  return unflatten(tree, leaves);
}
/// jax.lax.all_gather over `axis_size` ranks: stacked along a new dimension
/// `dimension`, or with `tiled`, concatenated along it.
Tensor all_gather(const Tensor &x, const std::string &axis, int64_t axis_size,
                  int64_t dimension = 0, bool tiled = false, SrcLoc loc = SrcLoc::current());
/// jax.lax.psum_scatter over `axis_size` ranks: each rank's index of
/// `dimension` (of size axis_size) of the sum, or with `tiled`, its block.
Tensor psum_scatter(const Tensor &x, const std::string &axis, int64_t axis_size,
                    int64_t dimension = 0, bool tiled = false, SrcLoc loc = SrcLoc::current());
/// jax.lax.ppermute: (source, destination) pairs; a rank no pair sends to gets zeros.
Tensor ppermute(const Tensor &x, const std::string &axis,
                const std::vector<std::pair<int64_t, int64_t>> &perm,
                SrcLoc loc = SrcLoc::current());
/// jax.lax.axis_index: this rank's index along `axis`, an i32 scalar.
Tensor axis_index(const std::string &axis, SrcLoc loc = SrcLoc::current());

} // namespace cotangent::lax

#endif // COTANGENT_TRACER_COLLECTIVES_H
