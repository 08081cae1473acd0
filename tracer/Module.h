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
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_MODULE_H
#define COTANGENT_TRACER_MODULE_H

#include "tracer/Checkpoint.h"

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

/// What nn::checkpoint<M> returns: builds Checkpointed<M> from M's fields
/// (aggregate initialization, `CkptMLP(8)`) or from an M (`CkptMLP(mlp)`).
template <class M>
class Lifted {
public:
  using type = Checkpointed<M>;

  Lifted(CheckpointOptions options, SrcLoc loc) : options_(std::move(options)), loc_(loc) {}

  template <class... Fields>
  Checkpointed<M> operator()(Fields &&...fields) const {
    return Checkpointed<M>(M{std::forward<Fields>(fields)...}, options_, loc_);
  }

private:
  CheckpointOptions options_;
  SrcLoc loc_;
};

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

} // namespace cotangent::nn

#endif // COTANGENT_TRACER_MODULE_H
