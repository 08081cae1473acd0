// Jitted::call_into: a donated AdamW step of the bench's MLP writes its
// results into the trees it was given (std::tie of parameters, state and
// loss): bit for bit what the returning form gives, every result in the
// buffer its argument had, and, once warm, no host allocation at all
// (operator new counted: bench/HostAllocations.cpp is linked in; the
// returning form allocates its trees' nodes every step). A tree shaped
// otherwise is refused before the call, its arrays left as they were.
#include "bench/HostAllocations.h"
#include "bench/MlpModel.h"
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/optim/Transforms.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace cotangent;

namespace {

using Params = std::map<std::string, interp::Tensor>;

template <class Tree>
Tree cloned(const Tree &tree) {
  return tree_map([](const interp::Tensor &t) { return t.clone(); }, tree);
}

struct Setup {
  bench::MlpTrainingData data = bench::mlpTrainingData({.layers = 3, .width = 256, .batch = 16});
  optim::GradientTransformation tx = optim::chain(
      {optim::clip_by_global_norm(1.0),
       optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 1e-3, 2, 100), {}, 0.01)});
  optim::StateOf<interp::Tensor> state0 =
      jit([this](const std::map<std::string, Tensor> &p) { return optim::init(tx, p); })(
          data.params);
};

interp::Tensor scalar() {
  return interp::Tensor(
      mlir::RankedTensorType::get({}, mlir::Float32Type::get(&defaultContext())));
}

} // namespace

TEST_CASE("call_into writes a donated step's results into its trees, allocating nothing once warm",
          "[optim][jit][donate]") {
  Setup s;
  auto returning = jit(bench::mlpTrainStep(s.tx), {.donate = {0, 1}});
  auto into = jit(bench::mlpTrainStep(s.tx), {.donate = {0, 1}});
  Params pr = cloned(s.data.params), pi = cloned(s.data.params);
  auto sr = cloned(s.state0), si = cloned(s.state0);
  interp::Tensor loss = scalar();
  for (int step = 0; step < 6; ++step) {
    INFO("step " << step);
    std::vector<const void *> given;
    for (const auto &[path, leaf] : flattenValues(std::pair{pi, si}, ""))
      given.push_back(leaf.data());
    const uint64_t before = bench::hostAllocations(), inside = bench::compiledCodeAllocations();
    into.call_into(std::tie(pi, si, loss), pi, si, s.data.x, s.data.y);
    const uint64_t allocated = bench::hostAllocations() - before -
                               (bench::compiledCodeAllocations() - inside);
    if (step >= 2) // the first calls compile and warm the pools
      CHECK(allocated == 0);
    auto [p, st, l] = returning(pr, sr, s.data.x, s.data.y);
    pr = std::move(p), sr = std::move(st);
    REQUIRE(loss.getDouble(0) == l.getDouble(0));
    size_t i = 0;
    // const: data() of a shared tensor that is not const copies it first.
    const auto a = flattenValues(std::pair{pi, si}, ""), b = flattenValues(std::pair{pr, sr}, "");
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      INFO(a[k].first);
      CHECK(a[k].second.data() == given[i++]); // written over its own buffer
      REQUIRE(a[k].second.getType() == b[k].second.getType());
      REQUIRE(std::memcmp(a[k].second.data(), b[k].second.data(), a[k].second.getByteSize()) == 0);
    }
  }
}

TEST_CASE("call_into refuses a tree not shaped like the result before the call", "[optim][jit]") {
  Setup s;
  auto step = jit(bench::mlpTrainStep(s.tx), {.donate = {0, 1}});
  Params p = cloned(s.data.params);
  auto state = cloned(s.state0);
  interp::Tensor loss = scalar();
  // Parameters and state swapped: another structure.
  CHECK_THROWS_WITH(step.call_into(std::tie(state, p, loss), p, state, s.data.x, s.data.y),
                    Catch::Contains("call_into's tree is not shaped like the function's result"));
  // A loss of another dtype.
  interp::Tensor wrong(
      mlir::RankedTensorType::get({}, mlir::Float64Type::get(&defaultContext())));
  CHECK_THROWS_WITH(step.call_into(std::tie(p, state, wrong), p, state, s.data.x, s.data.y),
                    Catch::Contains("a leaf's shape or dtype"));
  // Nothing ran: the arrays are still the caller's.
  CHECK_FALSE(p.at("w0").isDonated());
  CHECK(std::memcmp(p.at("w0").data(), s.data.params.at("w0").data(),
                    p.at("w0").getByteSize()) == 0);
}
