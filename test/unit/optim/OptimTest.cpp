// tracer/optim against optax: each optimizer's four steps and final state,
// and each schedule's values, as optax computed them (committed by
// test/jax/gen_optax_reference.py), lie within the bounds the interpreter
// derives for the same computation traced with tracer/optim; a jitted
// training step (loss, gradient, clipped AdamW with a warmup-cosine
// schedule, all in one compiled function) agrees with the interpreter; a
// state of another optimizer or a tree of another shape is a named error.
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/optim/Losses.h"
#include "tracer/optim/Transforms.h"

#include "test/unit/api/BoundedGrad.h"
#include "test/unit/api/JaxReference.h"
#include "test/unit/optim/TrajectoryCases.h"

#include <catch2/catch.hpp>

using namespace cotangent;

namespace {

using Params = std::map<std::string, interp::Tensor>;
using TracedParams = std::map<std::string, Tensor>;

const char *kReference = COTANGENT_OPTAX_REFERENCE;

/// The reference's optimizers, built with tracer/optim as the script builds
/// them with optax.
optim::GradientTransformation optimizer(const std::string &name) {
  auto warmupCosine = [] { return optim::warmup_cosine_decay_schedule(0.0, 0.1, 2, 6, 0.01); };
  if (name == "sgd")
    return optim::sgd(0.1);
  if (name == "sgd_momentum")
    return optim::sgd(0.1, 0.9);
  if (name == "sgd_nesterov")
    return optim::sgd(0.1, 0.9, true);
  if (name == "adam")
    return optim::adam(0.01);
  if (name == "adamw_masked")
    return optim::adamw(0.01, {.b1 = 0.8, .b2 = 0.99, .eps = 1e-6}, 0.1,
                        [](const std::string &path) { return path != "['b']"; });
  if (name == "adamw_warmup_cosine")
    return optim::adamw(warmupCosine(), {}, 0.05);
  if (name == "clip_then_adamw")
    return optim::chain({optim::clip_by_global_norm(1.0), optim::adamw(0.01, {}, 0.1)});
  FAIL("no optimizer " << name);
  return {};
}

optim::Schedule schedule(const std::string &name) {
  if (name == "constant_schedule")
    return optim::constant_schedule(0.25);
  if (name == "linear_schedule")
    return optim::linear_schedule(1.0, 0.1, 10, 3);
  if (name == "cosine_decay_schedule")
    return optim::cosine_decay_schedule(0.5, 20, 0.1, 2.0);
  if (name == "warmup_cosine_decay_schedule")
    return optim::warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100, 1e-5);
  FAIL("no schedule " << name);
  return {};
}

/// A reference array: f32 bits or i32 values.
interp::Tensor referenceArray(mlir::MLIRContext &ctx, const llvm::json::Object &a) {
  if (!a.getArray("ints"))
    return jaxref::f32Array(ctx, a);
  auto type = mlir::RankedTensorType::get(jaxref::integers(a, "shape"), mlir::IntegerType::get(&ctx, 32));
  return interp::Tensor::fromInts(type, jaxref::integers(a, "ints"));
}

/// {"['b']": ..., "['w']": ...} as parameters {"b", "w"}.
Params params(mlir::MLIRContext &ctx, const llvm::json::Object &o) {
  Params out;
  for (const auto &[key, value] : o) {
    std::string k = key.str();
    out.emplace(k.substr(2, k.size() - 4), referenceArray(ctx, *value.getAsObject()));
  }
  return out;
}

/// What the jit tests train: a tanh layer fitting 16 points of 8 features
/// to 4 outputs, with clipped AdamW (no decay on the bias) under a
/// warmup-cosine learning rate that starts at 0.
struct Regression {
  static interp::Tensor values(const Shape &shape, double scale, double phase) {
    return array::from_function(shape, [&](int64_t i) { return scale * std::sin(0.7 * i + phase); });
  }
  static Tensor loss(const TracedParams &p, Tensor in, Tensor target) {
    Tensor d = np::tanh(np::dot(in, p.at("w")) + p.at("b")) - target;
    return np::mean(d * d);
  }
  Params params{{"b", values({4}, 0.1, 0.3)}, {"w", values({8, 4}, 0.5, 0.9)}};
  interp::Tensor x = values({16, 8}, 1.0, 0.1), y = values({16, 4}, 0.8, 2.0);
  optim::GradientTransformation tx = optim::chain(
      {optim::clip_by_global_norm(1.0),
       optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 0.01, 2, 20), {}, 0.01,
                    [](const std::string &path) { return path != "['b']"; })});
};

} // namespace

TEST_CASE("optax's optimizer steps lie within the bounds of tracer/optim's", "[optim][numerics]") {
  mlir::MLIRContext ctx;
  int checked = 0;
  for (const llvm::json::Value &c : jaxref::cases(kReference)) {
    const llvm::json::Object &o = *c.getAsObject();
    auto name = o.getString("optimizer");
    if (!name)
      continue;
    INFO("optimizer " << name->str());
    Params p0 = params(ctx, *o.getObject("params"));
    std::vector<Params> grads;
    for (const llvm::json::Value &g : *o.getArray("grads"))
      grads.push_back(params(ctx, *g.getAsObject()));
    optim::GradientTransformation tx = optimizer(name->str());
    // The four steps, traced as one function: the bound follows the state
    // from step to step.
    auto steps = [&](const TracedParams &p, const std::vector<TracedParams> &gs) {
      optim::State state = optim::init(tx, p);
      std::vector<TracedParams> after;
      TracedParams current = p;
      for (const TracedParams &g : gs) {
        auto [updates, next] = optim::update(tx, g, state, current);
        current = optim::apply_updates(current, updates);
        state = next;
        after.push_back(current);
      }
      return std::pair{after, state};
    };
    cotangent::trace traced(TraceOptions{.context = &ctx}, steps, p0, grads);
    auto bounded = test::boundedReference(traced.func(), test::leavesOf(p0, grads));

    // The expected leaves in the result's order: each step's parameters,
    // then the state by name.
    std::vector<std::pair<std::string, interp::Tensor>> expected;
    const llvm::json::Array &after = *o.getArray("after");
    for (size_t s = 0; s < after.size(); ++s)
      for (const auto &[path, t] : params(ctx, *after[s].getAsObject()))
        expected.emplace_back("step " + std::to_string(s + 1) + " ['" + path + "']", t);
    std::map<std::string, interp::Tensor> state;
    for (const auto &[key, value] : *o.getObject("state"))
      state.emplace(key.str(), referenceArray(ctx, *value.getAsObject()));
    for (const auto &[key, t] : state)
      expected.emplace_back("state " + key, t);
    REQUIRE(bounded.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      INFO(expected[i].first);
      test::requireWithinBound(expected[i].second, bounded[i]);
    }
    ++checked;
  }
  CHECK(checked == 7);
}

TEST_CASE("optax's schedules lie within the bounds of tracer/optim's", "[optim][numerics]") {
  mlir::MLIRContext ctx;
  int checked = 0;
  for (const llvm::json::Value &c : jaxref::cases(kReference)) {
    const llvm::json::Object &o = *c.getAsObject();
    auto name = o.getString("schedule");
    if (!name)
      continue;
    INFO("schedule " << name->str());
    optim::Schedule fn = schedule(name->str());
    auto countType = mlir::RankedTensorType::get({}, mlir::IntegerType::get(&ctx, 32));
    cotangent::trace traced(TraceOptions{.context = &ctx}, [&](Tensor count) { return fn(count); },
                            i32({}));
    std::vector<int64_t> counts = jaxref::integers(o, "counts");
    interp::Tensor values = jaxref::f32Array(ctx, *o.getObject("values"));
    for (size_t k = 0; k < counts.size(); ++k) {
      INFO("count " << counts[k]);
      auto bounded = test::boundedReference(traced.func(), {interp::Tensor::fromInts(countType, {counts[k]})});
      REQUIRE(bounded.size() == 1);
      auto scalar = mlir::RankedTensorType::get({}, mlir::Float32Type::get(&ctx));
      test::requireWithinBound(interp::Tensor::fromDoubles(scalar, {values.getDouble(k)}), bounded[0]);
    }
    ++checked;
  }
  CHECK(checked == 4);
}

TEST_CASE("optax's losses lie within the bounds of tracer/optim's", "[optim][numerics]") {
  mlir::MLIRContext ctx;
  int checked = 0;
  for (const llvm::json::Value &c : jaxref::cases(kReference)) {
    const llvm::json::Object &o = *c.getAsObject();
    auto name = o.getString("loss");
    if (!name)
      continue;
    INFO("loss " << name->str());
    interp::Tensor logits = referenceArray(ctx, *o.getObject("logits"));
    interp::Tensor labels = referenceArray(ctx, *o.getObject("labels"));
    auto loss = [&](Tensor l, Tensor y) {
      if (*name == "softmax_cross_entropy_with_integer_labels")
        return optim::softmax_cross_entropy_with_integer_labels(l, y);
      if (*name == "softmax_cross_entropy")
        return optim::softmax_cross_entropy(l, y);
      return optim::l2_loss(l, y);
    };
    cotangent::trace traced(loss, logits, labels);
    auto bounded = test::boundedReference(traced.func(), {logits, labels});
    REQUIRE(bounded.size() == 1);
    test::requireWithinBound(jaxref::f32Array(ctx, *o.getObject("value")), bounded[0]);
    ++checked;
  }
  CHECK(checked == 3);
  auto logits = array::zeros({4, 7});
  CHECK_THROWS_WITH(cotangent::trace([](Tensor l, Tensor y) {
                      return optim::softmax_cross_entropy_with_integer_labels(l, y);
                    }, logits, array::zeros({4, 7}, DType::I32)),
                    Catch::Contains("labels must be integers of the logits' shape without its last axis"));
}

TEST_CASE("optax's 30-step MLP trajectories: every step within our bounds, interpreted and "
          "compiled",
          "[optim][jit][numerics]") {
  mlir::MLIRContext ctx;
  int checked = 0;
  for (const test::TrajectoryCase &t : test::trajectoryCases(ctx, kReference, "trajectory")) {
    INFO("trajectory " << t.name);
    const interp::Tensor &x = t.x, &y = t.y, &losses = t.losses;
    const llvm::json::Array &steps = *t.doc->getArray("steps");
    optim::GradientTransformation tx =
        t.name == "mlp_adamw"
            ? optim::chain({optim::clip_by_global_norm(1.0),
                            optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 0.05, 5, 30), {},
                                         0.01, [](const std::string &path) {
                                           return path.starts_with("['w");
                                         })})
            : optim::sgd(0.3, 0.9, true);
    auto loss = [](const TracedParams &p, Tensor in, Tensor target) {
      Tensor h = np::tanh(np::dot(in, p.at("w1")) + p.at("b1"));
      Tensor d = np::tanh(np::dot(h, p.at("w2")) + p.at("b2")) - target;
      return np::mean(d * d);
    };
    auto trainStep = [&](const TracedParams &p, const optim::State &s, Tensor in, Tensor target) {
      auto [value, grads] = value_and_grad(loss, argnums<0>)(p, in, target);
      auto [updates, next] = optim::update(tx, grads, s, p);
      return std::tuple{value, optim::apply_updates(p, updates), next};
    };
    auto stateAt = [&](size_t k) {
      std::map<std::string, interp::Tensor> state;
      for (const auto &[key, value] : *steps[k].getAsObject()->getObject("state"))
        state.emplace(key.str(), referenceArray(ctx, *value.getAsObject()));
      return state;
    };
    auto paramsAt = [&](size_t k) { return params(ctx, *steps[k].getAsObject()->getObject("params")); };
    // Our init is optax's: zeros and a count of 0.
    auto ours = jit([&](const TracedParams &p) { return optim::init(tx, p); })(paramsAt(0));
    for (const auto &[key, t] : stateAt(0))
      CHECK(std::memcmp(ours.at(key).data(), t.data(), static_cast<size_t>(t.getByteSize())) == 0);

    Params p0 = paramsAt(0);
    optim::StateOf<interp::Tensor> s0 = stateAt(0);
    cotangent::trace traced(trainStep, p0, s0, x, y);
    auto compiled = jit(trainStep);
    auto scalar = mlir::RankedTensorType::get({}, mlir::Float32Type::get(&ctx));
    std::vector<double> relative; // each bound over its value's magnitude
    for (size_t k = 0; k + 1 < steps.size(); ++k) {
      INFO("step " << k + 1);
      Params p = paramsAt(k);
      optim::StateOf<interp::Tensor> s = stateAt(k);
      // From optax's parameters and state before the step: optax's loss,
      // parameters and state after it, and our compiled ones, within the
      // interpreter's bounds of our step.
      auto bounded = test::boundedReference(traced.func(), test::leavesOf(p, s, x, y));
      interp::Tensor loss = interp::Tensor::fromDoubles(scalar, {losses.getDouble(static_cast<int64_t>(k))});
      test::requireAllWithinBounds(test::leavesOf(loss, paramsAt(k + 1), stateAt(k + 1)), bounded);
      auto [value, nextParams, nextState] = compiled(p, s, x, y);
      test::requireAllWithinBounds(test::leavesOf(value, nextParams, nextState), bounded);
      for (const auto &b : bounded)
        for (int64_t i = 0; i < b.value.getNumElements(); ++i)
          if (b.value.isFloat())
            relative.push_back(reinterpret_cast<const double *>(b.bound.data())[i] /
                               (1e-3 + std::abs(b.value.getDouble(i))));
    }
    // Not vacuous: one step's bounds are small against its values (a worst
    // case over every rounding; widest where Adam divides by a second
    // moment near 0).
    std::sort(relative.begin(), relative.end());
    INFO("median " << relative[relative.size() / 2] << ", widest " << relative.back());
    CHECK(relative[relative.size() / 2] < 1e-4);
    CHECK(relative.back() < 1e-1);
    // And training trained.
    CHECK(losses.getDouble(losses.getNumElements() - 1) < 0.5 * losses.getDouble(0));
    ++checked;
  }
  CHECK(checked == 2);
}

TEST_CASE("the optimizer's update compiles: clipping, AdamW and its schedule in one jit",
          "[optim][jit][numerics]") {
  Regression r;
  Params params = r.params;
  interp::Tensor x = r.x, y = r.y;
  const optim::GradientTransformation &tx = r.tx;
  auto loss = &Regression::loss;
  // jit returns the function's tree: the state as a dict of host values.
  optim::StateOf<interp::Tensor> state = jit([&](const TracedParams &p) { return optim::init(tx, p); })(params);
  CHECK(state.count("1/0/mu['w']"));
  CHECK(state.count("1/2/count"));

  auto apply = [&](const TracedParams &p, const optim::State &s, const TracedParams &g) {
    auto [updates, next] = optim::update(tx, g, s, p);
    return std::pair{optim::apply_updates(p, updates), next};
  };
  auto gradStep = jit(value_and_grad(loss, argnums<0>));
  auto applyStep = jit(apply);
  std::vector<double> losses;
  for (int step = 0; step < 8; ++step) {
    INFO("step " << step);
    auto [value, grads] = gradStep(params, x, y);
    losses.push_back(value.getDouble(0));
    auto [nextParams, nextState] = applyStep(params, state, grads);
    // The compiled update within the interpreter's bounds of the same trace.
    cotangent::trace traced(apply, params, state, grads);
    test::requireAllWithinBounds(
        test::leavesOf(nextParams, nextState),
        test::boundedReference(traced.func(), test::leavesOf(params, state, grads)));
    params = nextParams;
    state = nextState;
  }
  CHECK(state.at("1/0/count").getInt(0) == 8);
  // The first step's learning rate is 0 (warmup from 0): the loss moves
  // from the second on, and goes down.
  CHECK(losses[1] == losses[0]);
  for (size_t i = 2; i < losses.size(); ++i)
    CHECK(losses[i] < losses[i - 1]);
}

TEST_CASE("a whole training step is one compiled function: loss, gradient, clipped AdamW",
          "[optim][jit][grad][numerics]") {
  Regression r;
  Params params = r.params;
  interp::Tensor x = r.x, y = r.y;
  const optim::GradientTransformation &tx = r.tx;
  auto loss = &Regression::loss;
  // train_step(params, opt_state, x, y) -> (params, opt_state, loss), as a
  // JAX user writes it: grad inside the jitted function.
  auto trainStep = [&](const TracedParams &p, const optim::State &state, Tensor in, Tensor target) {
    auto [value, grads] = value_and_grad(loss, argnums<0>)(p, in, target);
    auto [updates, next] = optim::update(tx, grads, state, p);
    return std::tuple{optim::apply_updates(p, updates), next, value};
  };
  optim::StateOf<interp::Tensor> state = jit([&](const TracedParams &p) { return optim::init(tx, p); })(params);

  // In the jaxpr, the gradient is one call.
  cotangent::trace traced(trainStep, params, state, x, y);
  CHECK_THAT(traced.mlir(), Catch::Contains("call @grad_0_value_and_grad"));

  auto step = jit(trainStep);
  std::vector<double> losses;
  for (int i = 0; i < 8; ++i) {
    INFO("step " << i);
    auto [nextParams, nextState, value] = step(params, state, x, y);
    test::requireAllWithinBounds(
        test::leavesOf(nextParams, nextState, value),
        test::boundedReference(traced.func(), test::leavesOf(params, state, x, y)));
    params = nextParams;
    state = nextState;
    losses.push_back(value.getDouble(0));
  }
  CHECK(step.last_stats().peakBytes > 0);
  CHECK(losses[1] == losses[0]); // the warmup's first learning rate is 0
  for (size_t i = 2; i < losses.size(); ++i)
    CHECK(losses[i] < losses[i - 1]);
}

TEST_CASE("a state of another optimizer, or updates of another tree, are named errors",
          "[optim][errors]") {
  mlir::MLIRContext ctx;
  auto type = mlir::RankedTensorType::get({3}, mlir::Float32Type::get(&ctx));
  Params params{{"w", interp::Tensor(type)}};
  auto sgdState = [&](const TracedParams &p) {
    optim::State s = optim::init(optim::sgd(0.1, 0.9), p);
    return optim::update(optim::adam(0.1), p, s, p).first;
  };
  CHECK_THROWS_WITH(cotangent::trace(TraceOptions{.context = &ctx}, sgdState, params),
                    Catch::Contains("chain member 0: optimizer state has no entry 'count' "
                                    "(it has: trace['w'])"));
  Params other{{"v", interp::Tensor(type)}};
  auto mismatched = [&](const TracedParams &p, const TracedParams &q) {
    return optim::apply_updates(p, q);
  };
  CHECK_THROWS_WITH(cotangent::trace(TraceOptions{.context = &ctx}, mismatched, params, other),
                    Catch::Contains("the update at ['v'] (f32[3]) does not match the parameter at ['w']"));
  CHECK_THROWS_WITH(optim::cosine_decay_schedule(1.0, 0),
                    Catch::Contains("decay_steps must be positive, got 0"));
  CHECK_THROWS_WITH(optim::join_schedules({optim::constant_schedule(1)}, {3}),
                    Catch::Contains("1 schedules need 0 boundaries, got 1"));
  CHECK_THROWS_WITH(optim::clip_by_global_norm(-1), Catch::Contains("max_norm must be positive"));
}
