//===- Module.h - Flax-style modules and nn::checkpoint ---------*- C++ -*-===//
//
// A module is a plain struct: its fields are its configuration and its call
// operator applies it to a parameter tree and inputs,
//
//   struct MLP {
//     int64_t features;
//     Tensor operator()(const Params &params, Tensor x) const;
//   };
//
// `nn::checkpoint<MLP>(options)` lifts the module TYPE, as
// flax.linen.checkpoint lifts a class: it returns a constructor of
// `nn::Checkpointed<MLP>`, a module with MLP's fields and members whose call
// runs MLP's call inside `cotangent::checkpoint(..., options)`. The forward
// computation is unchanged; only what differentiation saves differs.
//
//   auto CkptMLP = nn::checkpoint<MLP>({.policy = policies::dots_saveable()});
//   auto model = CkptMLP(8);               // Checkpointed<MLP>, features = 8
//   Tensor y = model(params, x);           // one jx.remat around MLP's ops
//
// Lifting a lifted type wraps once more (a remat inside a remat).
//
// `nn::remat_scan<Block>({.lengths = {4, 8}})` is flax.linen.remat_scan: the
// module applied prod(lengths) times to a carry, each parameter stacked on
// leading axes of those lengths, as nested scans whose inner levels are
// checkpointed (sqrt-depth memory for two levels). Its init draws each
// iteration's parameters from Flax's keys (Scope::scanIterations), so they
// equal Flax's; name it as Flax does in its parent, "Remat_scan" + the
// module's class name + "_0".
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_MODULE_H
#define COTANGENT_TRACER_MODULE_H

#include "tracer/Checkpoint.h"
#include "tracer/ControlFlow.h"
#include "tracer/Errors.h"
#include "tracer/Initializers.h"
#include "tracer/ValueTree.h"

#include <utility>

namespace cotangent::nn {

/// The module M with its call under checkpoint.
template <class M>
class Checkpointed : public M {
public:
  using Module = M;

  explicit Checkpointed(M module, CheckpointOptions options = {},
                        SrcLoc loc = SrcLoc::current())
      : M(std::move(module)), options_(std::move(options)), loc_(loc) {}

  /// M's call operator, traced as the body of one jx.remat.
  template <class... Args>
  auto operator()(const Args &...args) const {
    auto call = [inner = static_cast<const M &>(*this)](const auto &...a) { return inner(a...); };
    return cotangent::Checkpointed<decltype(call)>(call, options_, loc_)(args...);
  }

  /// The unwrapped module.
  const M &module() const { return *this; }
  const CheckpointOptions &options() const { return options_; }

private:
  CheckpointOptions options_;
  SrcLoc loc_;
};

/// What a module transform returns (nn::checkpoint<M>, nn::remat_scan<M>):
/// builds the transformed module W from M's fields (aggregate
/// initialization, `CkptMLP(8)`) or from an M (`CkptMLP(mlp)`).
template <class W, class M, class Options>
class LiftedModule {
public:
  using type = W;

  LiftedModule(Options options, SrcLoc loc) : options_(std::move(options)), loc_(loc) {}

  template <class... Fields>
  W operator()(Fields &&...fields) const {
    return W(M{std::forward<Fields>(fields)...}, options_, loc_);
  }

private:
  Options options_;
  SrcLoc loc_;
};

template <class M>
using Lifted = LiftedModule<Checkpointed<M>, M, CheckpointOptions>;

/// flax.linen.checkpoint: lifts the module type M.
template <class M>
Lifted<M> checkpoint(CheckpointOptions options = {}, SrcLoc loc = SrcLoc::current()) {
  return Lifted<M>(std::move(options), loc);
}

/// flax.linen.remat, an alias of checkpoint.
template <class M>
Lifted<M> remat(CheckpointOptions options = {}, SrcLoc loc = SrcLoc::current()) {
  return Lifted<M>(std::move(options), loc);
}

struct RematScanOptions {
  /// Iterations per nesting level, outermost first; their product is the depth.
  std::vector<int64_t> lengths;
  /// The checkpoint of every level but the innermost (Flax: its `policy`).
  std::optional<Policy> policy;
};

namespace detail {
/// The per-iteration value trees' leaves stacked on leading axes `lengths`.
interp::Tensor stackLeaves(const std::vector<interp::Tensor> &leaves,
                           const std::vector<int64_t> &lengths, const std::string &path);
} // namespace detail

/// The module M repeated by remat_scan; see the file comment.
template <class M>
class RematScanned : public M {
public:
  RematScanned(M module, RematScanOptions options, SrcLoc loc = SrcLoc::current())
      : M(std::move(module)), options_(std::move(options)), loc_(loc) {
    if (options_.lengths.empty())
      throwTraceError("remat_scan", "needs at least one length", {}, loc_);
    for (int64_t l : options_.lengths)
      if (l < 1)
        throwTraceError("remat_scan", "lengths must be positive, got " + std::to_string(l), {},
                        loc_);
  }

  /// M's parameters for every iteration, each leaf stacked to
  /// [lengths..., leaf shape] (Flax's variable_axes {params: 0}).
  template <class... Sizes>
  auto init(Scope &scope, const Sizes &...sizes) const {
    using Params = decltype(M::init(scope, sizes...));
    std::optional<Params> like;
    std::vector<std::vector<std::pair<std::string, interp::Tensor>>> perIteration;
    scope.scanIterations(options_.lengths, [&](Scope &s, size_t i) {
      Params p = M::init(s, sizes...);
      perIteration.resize(std::max(perIteration.size(), i + 1));
      perIteration[i] = flattenValues(p, "");
      if (!like)
        like.emplace(std::move(p));
    });
    std::vector<interp::Tensor> stacked;
    for (size_t leaf = 0; leaf < perIteration[0].size(); ++leaf) {
      std::vector<interp::Tensor> slices;
      for (const auto &leaves : perIteration)
        slices.push_back(leaves[leaf].second);
      stacked.push_back(detail::stackLeaves(slices, options_.lengths, perIteration[0][leaf].first));
    }
    LeafCursorOf<interp::Tensor> cursor{stacked};
    return Tree<Params>::rebuild(*like, cursor);
  }

  /// x through the prod(lengths) iterations, the parameters scanned over.
  template <class P>
  Tensor operator()(const P &params, const Tensor &x) const {
    return level(params, x, 0);
  }

  const M &module() const { return *this; }
  const RematScanOptions &options() const { return options_; }

private:
  template <class P>
  Tensor level(const P &params, const Tensor &x, size_t depth) const {
    auto body = [&](const Tensor &carry, const P &p) {
      if (depth + 1 == options_.lengths.size())
        return std::pair{Tensor(M::operator()(p, carry)), None{}};
      auto inner = [&, depth](const Tensor &c, const P &q) { return level(q, c, depth + 1); };
      CheckpointOptions remat{.policy = options_.policy, .prevent_cse = false};
      return std::pair{checkpoint(inner, remat, loc_)(carry, p), None{}};
    };
    return scan(body, x, params, {}, loc_).first;
  }

  RematScanOptions options_;
  SrcLoc loc_;
};

template <class M>
using LiftedScan = LiftedModule<RematScanned<M>, M, RematScanOptions>;

/// flax.linen.remat_scan: lifts the module type M (its call maps a carry
/// to a carry of the same shape).
template <class M>
LiftedScan<M> remat_scan(RematScanOptions options, SrcLoc loc = SrcLoc::current()) {
  return LiftedScan<M>(std::move(options), loc);
}

} // namespace cotangent::nn

#endif // COTANGENT_TRACER_MODULE_H
