//===- Initializers.h - Flax's parameter initialization ---------*- C++ -*-===//
//
// What flax.linen's `init` does for parameters, on the host: a `Scope`
// derives each parameter's key from the root key, the module path and a
// per-module counter exactly as Flax does (SHA-1 of the path and counter,
// folded in), and the initializers of jax.nn.initializers draw from it:
//
//   nn::Scope root(ctx, random::PRNGKey(0));
//   nn::Scope dense = root.child("Dense_0");
//   interp::Tensor kernel = nn::initializers::lecun_normal()(dense.make_rng(), {6, 4});
//
// equals `MLP(4).init(PRNGKey(0), x)['params']['Dense_0']['kernel']` in
// Flax (test/unit/api/FlaxParityTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_INITIALIZERS_H
#define COTANGENT_TRACER_INITIALIZERS_H

#include "tracer/Random.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cotangent::nn {

/// Flax's scope while initializing: where in the module tree a module sits
/// (its path of names), the root key, and how many keys it has made.
class Scope {
public:
  Scope(mlir::MLIRContext &ctx, random::Key root)
      : ctx_(&ctx), root_(root), counters_(std::make_shared<Counters>()) {}

  /// The scope of a submodule named `name` (Flax: "Dense_0", ...).
  Scope child(const std::string &name) const;
  /// The next parameter key of this module (flax Scope.make_rng('params')).
  random::Key make_rng();
  /// Flax's default name for the next submodule of `type` ("Dense" ->
  /// "Dense_0", then "Dense_1", ...).
  std::string next_name(const std::string &type);

  mlir::MLIRContext &context() const { return *ctx_; }
  const std::vector<std::string> &path() const { return path_; }

  /// Flax's lifted scan at init (nn.remat_scan, nn.scan with split rngs):
  /// calls `init(scope_i, i)` for each of the prod(lengths) iterations, in
  /// order, scope_i being this module over the i-th key of the nested
  /// splits of its key. Flax traces the scanned body twice per nesting
  /// level and its key counters keep counting across those traces, so the
  /// keys the parameters finally get are those of the 2^depth-th trace:
  /// replayed here (one extra init to learn the count).
  void scanIterations(const std::vector<int64_t> &lengths,
                      const std::function<void(Scope &, size_t)> &init) const;

private:
  /// Keys made so far per module path, shared by every scope of one init
  /// (Flax keeps them in the parent, so a re-created child continues).
  using Counters = std::map<std::vector<std::string>, uint64_t>;

  mlir::MLIRContext *ctx_;
  random::Key root_;
  std::vector<std::string> path_;
  std::shared_ptr<Counters> counters_;
  std::map<std::string, int> names_;
};

/// What Flax folds into a key for the `counter`-th draw of the module at
/// `path`: the first four bytes of the SHA-1 of the names and the counter.
uint32_t fold_data(const std::vector<std::string> &path, uint64_t counter);

/// Flax's make_rng inside a traced step, whose root key (e.g. rngs=
/// {'dropout': key}) is a traced i32[2] argument: the key of the
/// `counter`-th draw of the module at `path`, as Scope::make_rng on the host.
Tensor make_rng(const Tensor &root, const std::vector<std::string> &path, uint64_t counter = 1,
                SrcLoc loc = SrcLoc::current());

/// jax.nn.initializers' signature: (context, key, shape) -> f32 tensor.
using Initializer = std::function<interp::Tensor(mlir::MLIRContext &, random::Key, const Shape &)>;

namespace initializers {

Initializer zeros();
Initializer ones();
Initializer constant(double value);
/// N(0, stddev^2).
Initializer normal(double stddev = 1e-2);
/// U[0, scale).
Initializer uniform(double scale = 1e-2);

enum class FanMode { FanIn, FanOut, FanAvg };
enum class Distribution { TruncatedNormal, Normal, Uniform };
/// jax.nn.initializers.variance_scaling: variance `scale` / fan, fans from
/// `in_axis`/`out_axis` (negative counts from the end), the other axes
/// being the receptive field.
Initializer variance_scaling(double scale, FanMode mode, Distribution distribution,
                             int in_axis = -2, int out_axis = -1);
Initializer lecun_normal();
Initializer lecun_uniform();
Initializer glorot_normal();  ///< xavier_normal
Initializer glorot_uniform(); ///< xavier_uniform
Initializer he_normal();      ///< kaiming_normal
Initializer he_uniform();     ///< kaiming_uniform

} // namespace initializers

} // namespace cotangent::nn

#endif // COTANGENT_TRACER_INITIALIZERS_H
