// jit with donated arguments (JAX's donate_argnums): a whole AdamW training
// step of the 8 x 1024 MLP writes its new parameters and optimizer state
// over the old ones' buffers, giving bit for bit what the step without
// donation gives; its measured peak is what compiled code allocates besides
// them (no copy of parameters or state) and equals the predicted memory
// plan byte for byte; a donated array is refused after the call, and
// donating misuse is a named error. The step's report says what it keeps
// and holds.
#include "analysis/MemoryPlan.h"
#include "bench/MlpModel.h"
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/optim/Transforms.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace cotangent;

namespace {

using Params = std::map<std::string, interp::Tensor>;
using TracedParams = std::map<std::string, Tensor>;

/// The bench's MLP (bench/MlpModel.h) and its clipped AdamW.
struct Mlp {
  bench::MlpTrainingData data;
  optim::GradientTransformation tx = optim::chain(
      {optim::clip_by_global_norm(1.0),
       optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 1e-3, 2, 100), {}, 0.01)});

  Mlp(int64_t layers, int64_t width, int64_t batch)
      : data(bench::mlpTrainingData({.layers = layers, .width = width, .batch = batch})) {}

  auto trainStep() const { return bench::mlpTrainStep(tx); }
  optim::StateOf<interp::Tensor> init() const {
    return jit([this](const TracedParams &p) { return optim::init(tx, p); })(data.params);
  }
};

template <class Tree>
Tree cloned(const Tree &tree) {
  return tree_map([](const interp::Tensor &t) { return t.clone(); }, tree);
}

template <class Tree>
int64_t bytesOf(const Tree &tree) {
  int64_t bytes = 0;
  for (const auto &[k, v] : tree)
    bytes += v.getByteSize();
  return bytes;
}

template <class Tree>
void requireBitwiseEqual(const Tree &a, const Tree &b) {
  REQUIRE(a.size() == b.size());
  for (const auto &[k, v] : a) {
    INFO(k);
    const interp::Tensor &w = b.at(k);
    REQUIRE(v.getType() == w.getType());
    REQUIRE(std::memcmp(v.data(), w.data(), v.getByteSize()) == 0);
  }
}

} // namespace

TEST_CASE("a donated AdamW step writes over its parameters and state: same bits, no copy of "
          "them, predicted = measured",
          "[optim][jit][donate]") {
  Mlp mlp(8, 1024, 256);
  auto state0 = mlp.init();
  auto kept = jit(mlp.trainStep());
  auto donated = jit(mlp.trainStep(), {.donate = {0, 1}});

  Params pk = cloned(mlp.data.params), pd = cloned(mlp.data.params);
  auto sk = cloned(state0), sd = cloned(state0);
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    std::vector<const void *> given;
    for (const auto &[path, leaf] : flattenValues(std::pair{pd, sd}, ""))
      given.push_back(leaf.data());
    auto [nk, nsk, lk] = kept(pk, sk, mlp.data.x, mlp.data.y);
    auto [nd, nsd, ld] = donated(pd, sd, mlp.data.x, mlp.data.y);
    // Every result of the donated step lives in the buffer it was given.
    size_t i = 0;
    for (const auto &[path, leaf] : flattenValues(std::pair{nd, nsd}, "")) {
      INFO(path);
      CHECK(leaf.data() == given[i++]);
    }
    CHECK(pd.at("w0").isDonated());
    CHECK_FALSE(pk.at("w0").isDonated());
    requireBitwiseEqual(nk, nd);
    requireBitwiseEqual(nsk, nsd);
    REQUIRE(lk.getDouble(0) == ld.getDouble(0));
    pk = nk, sk = nsk, pd = nd, sd = nsd;
  }

  // Every byte of parameters and state the kept step allocates afresh, the
  // donated one does not: its peak is the activations, gradients and
  // temporaries only.
  const int64_t donatedBytes = bytesOf(pd) + bytesOf(sd);
  const int64_t keptPeak = kept.last_stats().peakBytes, donatedPeak = donated.last_stats().peakBytes;
  INFO("peak without donation " << keptPeak << ", with " << donatedPeak << ", parameters and state "
                                << donatedBytes);
  CHECK(keptPeak - donatedPeak >= bytesOf(pd));
  CHECK(donatedPeak < donatedBytes);

  // The plan of the compiled step predicts the measured peak byte for byte,
  // and holds no block for a donated result: only the loss is an output.
  for (auto *step : {kept.last_compiled(), donated.last_compiled()}) {
    REQUIRE(step);
    auto plan = mlir::cotangent::predictCallPlan(step->module(), step->entry());
    REQUIRE(mlir::succeeded(plan));
    CHECK(plan->peakBytes == (step == kept.last_compiled() ? keptPeak : donatedPeak));
    if (step == donated.last_compiled()) {
      int outputs = 0;
      for (const mlir::cotangent::PlannedBlock &b : plan->blocks)
        if (b.role.rfind("output", 0) == 0) {
          ++outputs;
          CHECK(b.bytes == 4); // the loss
        }
      CHECK(outputs == 1);
    }
  }
}

TEST_CASE("a donated array is refused after the call", "[optim][jit][donate]") {
  Mlp mlp(2, 16, 4);
  auto state = mlp.init();
  auto step = jit(mlp.trainStep(), {.donate = {0, 1}});
  Params params = mlp.data.params;
  Params alias = params; // the same arrays, as a second Python name would be
  auto [next, nextState, loss] = step(params, state, mlp.data.x, mlp.data.y);
  CHECK(std::isfinite(loss.getDouble(0)));
  // What the step keeps and holds, as a user reads it.
  const std::string report = step.report();
  INFO(report);
  const std::string peak = std::to_string(step.last_stats().peakBytes);
  CHECK_THAT(report, Catch::Contains("gradient @grad_0 keeps for its backward:") &&
                         Catch::Contains("f32[16,16] from the argument args[0]['w0']") &&
                         Catch::Contains("total: 6 residuals, 3072 bytes") &&
                         Catch::Contains("donated: 8 arguments, 6152 bytes") &&
                         Catch::Contains("measured peak: " + peak + " bytes") &&
                         Catch::Contains("memory plan of @jit (one call, on the CPU runtime)\n"
                                         "peak: " + peak + " bytes, in @jit"));
  CHECK_THROWS_WITH(params.at("w0").getDouble(0),
                    Catch::Contains("this array was donated to @jit and cannot be used after "
                                    "the call"));
  CHECK_THROWS_WITH(alias.at("w1").data(), Catch::Contains("donated to @jit"));
  CHECK_THROWS_WITH(state.at("1/0/count").getInt(0), Catch::Contains("donated to @jit"));
  // Calling again with the donated arrays: refused, not run on freed memory.
  CHECK_THROWS_WITH(step(params, state, mlp.data.x, mlp.data.y),
                    Catch::Contains("@jit argument #0 was donated to an earlier call and cannot "
                                    "be used"));
  // The results are the arrays to go on with; the inputs were not donated.
  auto [again, againState, againLoss] = step(next, nextState, mlp.data.x, mlp.data.y);
  CHECK(againLoss.getDouble(0) < loss.getDouble(0) + 1e-3);
  CHECK_NOTHROW(mlp.data.x.getDouble(0));
}

TEST_CASE("donating misuse is a named error; an unmatched donation keeps its array",
          "[optim][jit][donate]") {
  auto a = array::full({4}, 1.0), b = array::full({3}, 2.0);
  auto add = [](Tensor p, Tensor q) { return p + q; };
  SECTION("a position the call does not have") {
    CHECK_THROWS_WITH(jit(add, {.donate = {2}})(a, a),
                      "jit: donate names argument 2 but the function is called with 2");
    CHECK_THROWS_WITH(jit(add, {.donate = {0, 0}})(a, a), "jit: donate names argument 0 twice");
  }
  SECTION("a donated buffer passed twice") {
    CHECK_THROWS_WITH(jit(add, {.donate = {0}})(a, a),
                      Catch::Contains("argument #0 is donated but shares its buffer with "
                                      "argument #1"));
    CHECK_NOTHROW(a.getDouble(0)); // nothing ran
  }
  SECTION("no result of the donated leaf's type: it stays the caller's") {
    auto first = [](Tensor p, Tensor) { return p * 2.0; };
    auto r = jit(first, {.donate = {1}})(a, b);
    CHECK(r.getDouble(3) == 2.0);
    CHECK(b.getDouble(0) == 2.0);
  }
  SECTION("a grad transform is donated through a function that calls it") {
    auto loss = [](Tensor p) { return np::sum(p * p); };
    CHECK_THROWS_WITH(jit(grad(loss), {.donate = {0}})(a),
                      Catch::Contains("donate applies to a plain function"));
  }
}
