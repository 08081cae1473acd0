// optax's 30-step trajectories of the transformer block of examples/ (a
// pre-LN block: LayerNorm, causal multi-head attention, a GELU MLP), in Flax
// by test/jax/gen_optax_reference.py: from Flax's initial parameters, the
// same step traced with tracer/optim -- clipped AdamW with a warmup-cosine
// learning rate and weight decay on kernels only, and SGD with Nesterov
// momentum -- reproduces every loss and the final parameters within 1e-5
// relative, compiled and interpreted, running the whole trajectory itself
// (all but the attention's key bias, whose gradient is 0 but for rounding:
// see noiseOnly).
#include "tracer/Jit.h"
#include "tracer/Layers.h"
#include "tracer/Nn.h"
#include "tracer/optim/Transforms.h"

#include "test/unit/api/JaxReference.h"
#include "test/unit/optim/TrajectoryCases.h"

#include "runtime/interpreter/Interpreter.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace cotangent;
using nn::Dict;

template <class L>
struct OptaxBlockParams {
  Dict<L> Dense_0, Dense_1, LayerNorm_0, LayerNorm_1;
  Dict<Dict<L>> MultiHeadDotProductAttention_0;
};

// Flax orders a module's parameters by name, as JAX flattens dicts.
template <class L>
struct cotangent::TreeFields<OptaxBlockParams<L>> {
  using P = OptaxBlockParams<L>;
  static constexpr auto fields = std::tuple{
      treeField("Dense_0", &P::Dense_0), treeField("Dense_1", &P::Dense_1),
      treeField("LayerNorm_0", &P::LayerNorm_0), treeField("LayerNorm_1", &P::LayerNorm_1),
      treeField("MultiHeadDotProductAttention_0", &P::MultiHeadDotProductAttention_0)};
  template <class M>
  using Rebind = OptaxBlockParams<M>;
};

namespace {

const char *kReference = COTANGENT_OPTAX_REFERENCE;
constexpr int64_t kWidth = 16, kHeads = 2, kMlp = 32;

Tensor block(const OptaxBlockParams<Tensor> &p, Tensor x) {
  const int64_t seq = x.shape()[1];
  Tensor h = x + nn::MultiHeadDotProductAttention{kHeads}(p.MultiHeadDotProductAttention_0,
                                                         nn::LayerNorm{}(p.LayerNorm_0, x),
                                                         nn::make_causal_mask(seq));
  Tensor hidden = nn::gelu(nn::Dense{kMlp}(p.Dense_0, nn::LayerNorm{}(p.LayerNorm_1, h)));
  return h + nn::Dense{kWidth}(p.Dense_1, hidden);
}

Tensor loss(const OptaxBlockParams<Tensor> &p, Tensor x, Tensor y) {
  Tensor d = block(p, x) - y;
  return np::mean(d * d);
}

optim::GradientTransformation optimizer(const std::string &name) {
  if (name == "block_adamw")
    return optim::chain(
        {optim::clip_by_global_norm(1.0),
         optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 1e-2, 5, 30), {}, 0.01,
                      [](const std::string &path) { return path.ends_with("['kernel']"); })});
  REQUIRE(name == "block_sgd_nesterov");
  return optim::sgd(0.05, 0.9, true);
}

/// The parameters of the reference's tree `o` (leaves by path), in the
/// structure of `like`.
OptaxBlockParams<interp::Tensor> paramsOf(mlir::MLIRContext &ctx, const llvm::json::Object &o,
                                          const OptaxBlockParams<interp::Tensor> &like) {
  std::vector<interp::Tensor> leaves;
  for (const auto &[path, leaf] : flattenValues(like, "")) {
    const llvm::json::Object *a = o.getObject(path);
    INFO(path);
    REQUIRE(a);
    leaves.push_back(jaxref::f32Array(ctx, *a));
    REQUIRE(leaves.back().getType() == leaf.getType());
  }
  LeafCursorOf<interp::Tensor> cursor{leaves};
  return Tree<OptaxBlockParams<interp::Tensor>>::rebuild(like, cursor);
}

/// The one parameter whose gradient is 0 in exact arithmetic: a key bias
/// adds q.b to every score of a query, which the softmax removes. Its
/// computed gradient is rounding noise, which Adam scales up to steps of
/// the learning rate's size, in optax as here: its trajectory is noise.
bool noiseOnly(const std::string &path) { return path.ends_with("['key']['bias']"); }

/// ||a - b|| / ||b|| over the leaves of two trees of one structure, the
/// noise-only one aside.
template <class T>
double relativeDistance(const T &a, const T &b) {
  double diff = 0, norm = 0;
  auto x = flattenValues(a, ""), y = flattenValues(b, "");
  for (size_t i = 0; i < x.size(); ++i)
    for (int64_t k = 0; k < x[i].second.getNumElements() && !noiseOnly(x[i].first); ++k) {
      double u = x[i].second.getDouble(k), v = y[i].second.getDouble(k);
      diff += (u - v) * (u - v);
      norm += v * v;
    }
  return std::sqrt(diff / norm);
}

} // namespace

TEST_CASE("optax's 30-step trajectories of a transformer block: every loss and the final "
          "parameters within 1e-5, compiled and interpreted",
          "[optim][jit][numerics]") {
  mlir::MLIRContext ctx;
  // The tree's structure (Flax's shapes); the values come from the reference.
  nn::Scope root(ctx, random::PRNGKey(0));
  nn::Scope dense0 = root.child("Dense_0"), dense1 = root.child("Dense_1"),
            ln0 = root.child("LayerNorm_0"), ln1 = root.child("LayerNorm_1"),
            attention = root.child("MultiHeadDotProductAttention_0");
  OptaxBlockParams<interp::Tensor> like{
      nn::Dense{kMlp}.init(dense0, kWidth), nn::Dense{kWidth}.init(dense1, kMlp),
      nn::LayerNorm{}.init(ln0, kWidth), nn::LayerNorm{}.init(ln1, kWidth),
      nn::MultiHeadDotProductAttention{kHeads}.init(attention, kWidth)};
  int checked = 0;
  for (const test::TrajectoryCase &t : test::trajectoryCases(ctx, kReference, "block_trajectory")) {
    INFO("trajectory " << t.name);
    const interp::Tensor &x = t.x, &y = t.y, &losses = t.losses;
    const auto params0 = paramsOf(ctx, *t.doc->getObject("params"), like);
    const auto final = paramsOf(ctx, *t.doc->getObject("final"), like);
    optim::GradientTransformation tx = optimizer(t.name);
    auto trainStep = [&](const OptaxBlockParams<Tensor> &p, const optim::State &s, Tensor in,
                         Tensor target) {
      auto [value, grads] = value_and_grad(loss, argnums<0>)(p, in, target);
      auto [updates, next] = optim::update(tx, grads, s, p);
      return std::tuple{value, optim::apply_updates(p, updates), next};
    };
    const auto state0 =
        jit([&](const OptaxBlockParams<Tensor> &p) { return optim::init(tx, p); })(params0);

    // Compiled: one jit'd step, its parameters and state donated.
    auto compiled = jit(trainStep, {.donate = {0, 1}});
    // Copies: a donated buffer is given up by every Tensor that shares it.
    auto p = tree_map([](const interp::Tensor &t) { return t.clone(); }, params0);
    auto s = tree_map([](const interp::Tensor &t) { return t.clone(); }, state0);
    std::vector<double> ours;
    for (int64_t k = 0; k < losses.getNumElements(); ++k) {
      auto [value, next, nextState] = compiled(p, s, x, y);
      ours.push_back(value.getDouble(0));
      p = std::move(next);
      s = std::move(nextState);
    }
    // Interpreted: the same step traced once, run by the reference interpreter.
    cotangent::trace traced(TraceOptions{.name = "step", .context = &ctx}, trainStep, params0,
                            state0, x, y);
    auto ip = params0;
    auto is = state0;
    std::vector<double> interpreted;
    for (int64_t k = 0; k < losses.getNumElements(); ++k) {
      std::vector<interp::Tensor> args;
      for (const auto &[path, leaf] : flattenValues(std::tuple{ip, is, x, y}, ""))
        args.push_back(leaf);
      auto out = interp::run(traced.func(), args);
      REQUIRE(mlir::succeeded(out));
      interpreted.push_back((*out)[0].getDouble(0));
      LeafCursorOf<interp::Tensor> cursor{*out};
      cursor.take(); // the loss
      ip = Tree<OptaxBlockParams<interp::Tensor>>::rebuild(ip, cursor);
      is = Tree<optim::StateOf<interp::Tensor>>::rebuild(is, cursor);
    }

    for (int64_t k = 0; k < losses.getNumElements(); ++k) {
      INFO("step " << k + 1 << ": optax " << losses.getDouble(k) << ", compiled " << ours[k]
                   << ", interpreted " << interpreted[k]);
      const double want = losses.getDouble(k);
      CHECK(std::fabs(ours[k] - want) <= 1e-5 * std::fabs(want));
      CHECK(std::fabs(interpreted[k] - want) <= 1e-5 * std::fabs(want));
    }
    const double compiledDistance = relativeDistance(p, final);
    const double interpretedDistance = relativeDistance(ip, final);
    INFO("final parameters, relative distance to optax's: compiled " << compiledDistance
                                                                      << ", interpreted "
                                                                      << interpretedDistance);
    CHECK(compiledDistance <= 1e-5);
    CHECK(interpretedDistance <= 1e-5);
    // Not vacuous: the parameters moved, and the loss fell.
    CHECK(relativeDistance(params0, final) > 1e-3);
    CHECK(losses.getDouble(losses.getNumElements() - 1) < 0.9 * losses.getDouble(0));
    ++checked;
  }
  CHECK(checked == 2);
}
