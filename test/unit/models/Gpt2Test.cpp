// models/gpt2: the presets' sizes, the parameter tree's Hugging Face names,
// GPT-2's initialization, errors of bad input, and the tiny preset's loss,
// gradients and first SGD steps against the same Flax model in JAX
// (test/jax/gen_gpt2_reference.py; both sides make the parameters from one
// formula, so no weights are committed), and in mixed precision (bf16
// matmuls) against JAX with the same casts. Each gradient leaf is compared by
// its norm, four fixed projections and its first and last elements (all of
// it for leaves of at most 1024 elements): a leaf within 1e-5 relative in
// norm, |g - g_jax| <= 1e-5 |g_jax|, meets every one of these checks.
#include "models/gpt2/Model.h"

#include "tracer/Array.h"
#include "tracer/Jit.h"

#include "test/unit/api/BoundedGrad.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

using namespace cotangent;

namespace {

const char *kReference = COTANGENT_GPT2_REFERENCE;
constexpr double kRelative = 1e-5;

const llvm::json::Object &reference() {
  static llvm::json::Value doc = [] {
    auto buffer = llvm::MemoryBuffer::getFile(kReference);
    REQUIRE(buffer);
    auto parsed = llvm::json::parse((*buffer)->getBuffer());
    REQUIRE(static_cast<bool>(parsed));
    return std::move(*parsed);
  }();
  return *doc.getAsObject();
}

bool endsWith(const std::string &s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// The script's parameters: leaf s (sorted HF names) element k is
/// base + amp * sin(0.001 (k + 1) (7 + s) + s), rounded to f32.
gpt2::Params<interp::Tensor> formulaParams(const gpt2::Config &config) {
  std::vector<std::string> names;
  gpt2::make_params<interp::Tensor>(config, [&](const std::string &name, const Shape &shape) {
    names.push_back(name);
    return array::zeros(shape);
  });
  std::sort(names.begin(), names.end());
  return gpt2::make_params<interp::Tensor>(config, [&](const std::string &name, const Shape &shape) {
    const double s = static_cast<double>(std::find(names.begin(), names.end(), name) - names.begin());
    const bool layerNorm = endsWith(name, ".weight") && name.find("ln_") != std::string::npos;
    const double base = layerNorm ? 1.0 : 0.0;
    const double amp = layerNorm ? 0.1 : endsWith(name, ".bias") ? 0.01 : 0.02;
    return array::from_function(shape, [&](int64_t k) {
      return static_cast<float>(base + amp * std::sin(0.001 * static_cast<double>(k + 1) * (7 + s) + s));
    });
  });
}

/// The script's tokens: ids (131 b + 17 t + 7) % 512, targets one further.
std::pair<interp::Tensor, interp::Tensor> formulaTokens(int64_t batch, int64_t seq) {
  auto token = [seq](int64_t shift) {
    return [seq, shift](int64_t i) {
      return static_cast<int32_t>((131 * (i / seq) + 17 * (i % seq + shift) + 7) % 512);
    };
  };
  return {array::from_function<int32_t>({batch, seq}, token(0)),
          array::from_function<int32_t>({batch, seq}, token(1))};
}

/// The reference's run: the tiny preset, the formula's parameters and tokens.
struct TinyRun {
  gpt2::Config config = *gpt2::preset("tiny");
  gpt2::Params<interp::Tensor> params = formulaParams(config);
  std::pair<interp::Tensor, interp::Tensor> tokens =
      formulaTokens(*reference().getObject("config")->getInteger("batch"),
                    *reference().getObject("config")->getInteger("seq"));
};

double relativeTo(double got, double want, double scale) { return std::abs(got - want) / scale; }

/// One gradient leaf against the reference's summary of it: within 1e-5
/// of its norm, or within `bound` (the interpreter's derived bound on any
/// f32 evaluation's distance, as a vector norm) where the leaf's own
/// conditioning makes that larger.
void checkLeaf(const std::string &name, const interp::Tensor &g, double bound = 0,
               const char *key = "gradients", double relative = kRelative) {
  INFO(key << " " << name);
  const llvm::json::Object *want = reference().getObject(key)->getObject(name);
  REQUIRE(want);
  const int64_t n = g.getNumElements();
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    v[static_cast<size_t>(k)] = g.getDouble(k);
  const double norm = *want->getNumber("norm");
  REQUIRE(norm > 0);
  const double tolerance = std::max(relative * norm, bound);
  double ours = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
  INFO("norm " << norm << ", derived bound " << bound);
  CHECK(std::abs(ours - norm) <= tolerance);
  const llvm::json::Array &probes = *want->getArray("probes");
  for (size_t j = 0; j < probes.size(); ++j) {
    double probe = 0, probeNorm = 0;
    for (int64_t k = 0; k < n; ++k) {
      double c = std::cos(0.013 * static_cast<double>(k + 1) * static_cast<double>(j + 1) +
                          static_cast<double>(j));
      probe += v[static_cast<size_t>(k)] * c;
      probeNorm += c * c;
    }
    // |<g - g_jax, c>| <= |g - g_jax| |c|.
    CHECK(std::abs(probe - *probes[j].getAsNumber()) <= tolerance * std::sqrt(probeNorm));
  }
  auto elements = [&](const char *key, int64_t first) {
    if (const llvm::json::Array *a = want->getArray(key))
      for (size_t i = 0; i < a->size(); ++i)
        CHECK(std::abs(v[static_cast<size_t>(first) + i] - *(*a)[i].getAsNumber()) <= tolerance);
  };
  elements("first", 0);
  elements("last", n - 8);
  elements("values", 0);
}

/// The leaves of `params` with their HF names, in the tree's order.
std::vector<std::pair<std::string, interp::Tensor>>
namedLeaves(const gpt2::Params<interp::Tensor> &params) {
  std::vector<std::pair<std::string, interp::Tensor>> leaves = flattenValues(params, "");
  for (auto &[path, t] : leaves)
    path = gpt2::hf_name(path);
  return leaves;
}

auto lossFn(const gpt2::Config &config) {
  return [config](const gpt2::Params<Tensor> &p, const Tensor &ids, const Tensor &targets) {
    return gpt2::loss(config, p, ids, targets);
  };
}

} // namespace

TEST_CASE("GPT-2 presets have GPT-2's sizes", "[models][gpt2]") {
  CHECK(gpt2::preset_names() == std::vector<std::string>{"tiny", "124M", "350M", "774M", "1558M"});
  // Hugging Face's parameter counts (wte tied to the logits).
  CHECK(gpt2::preset("124M")->parameter_count() == 124439808);
  CHECK(gpt2::preset("350M")->parameter_count() == 354823168);
  CHECK(gpt2::preset("774M")->parameter_count() == 774030080);
  CHECK(gpt2::preset("1558M")->parameter_count() == 1557611200);
  CHECK_FALSE(gpt2::preset("125M"));
  // 6 N per token plus attention: 124M at 1024 tokens, llm.c's count.
  const gpt2::Config small = *gpt2::preset("124M");
  CHECK(small.flops_per_token(1024) ==
        6.0 * (124439808 - 1024 * 768) + 12.0 * 12 * 1024 * 768);
}

TEST_CASE("GPT-2 parameters are named as Hugging Face's checkpoints", "[models][gpt2]") {
  mlir::MLIRContext &ctx = defaultContext();
  const gpt2::Config config = *gpt2::preset("tiny");
  gpt2::Params<interp::Tensor> params = gpt2::init(config, ctx);
  std::vector<std::string> names;
  int64_t count = 0;
  Tree<gpt2::Params<interp::Tensor>>::forEach(
      params, "", [&](const std::string &path, const interp::Tensor &t) {
        names.push_back(gpt2::hf_name(path));
        count += t.getNumElements();
      });
  CHECK(count == config.parameter_count());
  REQUIRE(names.size() == 4 + 12 * 2);
  CHECK(names.front() == "wte.weight");
  CHECK(names[2] == "h.0.ln_1.bias");
  CHECK(names[4] == "h.0.attn.c_attn.bias");
  CHECK(names[7] == "h.0.attn.c_proj.weight");
  CHECK(names[13] == "h.0.mlp.c_proj.weight");
  CHECK(names.back() == "ln_f.weight");
  CHECK(gpt2::hf_name("['h'][11]['mlp']['c_fc']['weight']") == "h.11.mlp.c_fc.weight");
}

TEST_CASE("GPT-2's initialization", "[models][gpt2]") {
  mlir::MLIRContext &ctx = defaultContext();
  const gpt2::Config config = *gpt2::preset("tiny");
  gpt2::Params<interp::Tensor> params = gpt2::init(config, ctx, 7);
  auto stddev = [](const interp::Tensor &t) {
    double sum = 0, square = 0;
    const int64_t n = t.getNumElements();
    for (int64_t k = 0; k < n; ++k) {
      sum += t.getDouble(k);
      square += t.getDouble(k) * t.getDouble(k);
    }
    const double mean = sum / static_cast<double>(n);
    return std::sqrt(square / static_cast<double>(n) - mean * mean);
  };
  // 65536 and 16384 draws: the sample deviation within 3% of the stated one.
  CHECK(stddev(params.wte.at("weight")) == Approx(0.02).epsilon(0.03));
  CHECK(stddev(params.h[0].attn.c_attn.at("weight")) == Approx(0.02).epsilon(0.03));
  CHECK(stddev(params.h[1].attn.c_proj.at("weight")) == Approx(0.02 / 2).epsilon(0.03));
  CHECK(stddev(params.h[1].mlp.c_proj.at("weight")) == Approx(0.02 / 2).epsilon(0.03));
  CHECK(params.h[0].ln_1.at("weight").getDouble(5) == 1.0);
  CHECK(params.h[0].mlp.c_fc.at("bias").getDouble(5) == 0.0);
  // Leaves draw from different keys; a seed gives the same draws again.
  CHECK(params.wte.at("weight").getDouble(0) != params.wpe.at("weight").getDouble(0));
  CHECK(gpt2::init(config, ctx, 7).wte.at("weight").getDouble(3) ==
        params.wte.at("weight").getDouble(3));
  CHECK(gpt2::init(config, ctx, 8).wte.at("weight").getDouble(3) !=
        params.wte.at("weight").getDouble(3));
}

TEST_CASE("tiny GPT-2's loss and gradients equal Flax's", "[models][gpt2]") {
  const TinyRun run;
  const auto &[config, params, tokens] = run;
  const auto &[ids, targets] = tokens;
  const double want = *reference().getNumber("loss");
  CHECK(std::abs(want - std::log(512.0)) < 1.0);

  // The interpreter's value and gradients, with their derived bounds.
  std::vector<interp::BoundedTensor> bounded =
      test::boundedValueAndGrad(lossFn(config), params, ids, targets);
  CHECK(relativeTo(bounded[0].value.getDouble(0), want, want) <= kRelative);
  std::vector<double> bounds; // per leaf, as a vector norm
  for (size_t i = 1; i < bounded.size(); ++i) {
    double square = 0;
    for (int64_t k = 0; k < bounded[i].bound.getNumElements(); ++k)
      square += bounded[i].bound.getDouble(k) * bounded[i].bound.getDouble(k);
    bounds.push_back(std::sqrt(square));
  }
  auto checkGradients = [&](const gpt2::Params<interp::Tensor> &grads) {
    auto leaves = namedLeaves(grads);
    REQUIRE(leaves.size() == 28);
    REQUIRE(bounded.size() >= leaves.size() + 1);
    for (size_t i = 0; i < leaves.size(); ++i) {
      checkLeaf(leaves[i].first, leaves[i].second, bounds[i]);
      test::requireWithinBound(leaves[i].second, bounded[i + 1]);
    }
  };

  SECTION("compiled, within the interpreter's bounds") {
    auto [value, grads] = jit(value_and_grad(lossFn(config), argnums<0>))(params, ids, targets);
    CHECK(relativeTo(value.getDouble(0), want, want) <= kRelative);
    test::requireWithinBound(value, bounded[0]);
    checkGradients(grads);
  }
  SECTION("a checkpoint per block changes nothing computed") {
    auto remat = [config](const gpt2::Params<Tensor> &p, const Tensor &in, const Tensor &out) {
      return gpt2::loss(config, p, in, out, {.block_policy = policies::nothing_saveable()});
    };
    auto [value, grads] = jit(value_and_grad(remat, argnums<0>))(params, ids, targets);
    CHECK(relativeTo(value.getDouble(0), want, want) <= kRelative);
    checkGradients(grads);
  }
}

TEST_CASE("tiny GPT-2 in mixed precision equals JAX's with the same casts", "[models][gpt2][bf16]") {
  // Every matmul's operands in bf16 (8 significant bits), accumulated in
  // f32 on both sides but in different orders, so a product may round to
  // the neighbouring bf16 value: each leaf within 2^-6 (four bf16 units in
  // the last place) of its norm, the loss within 2^-8.
  const TinyRun run;
  const auto &[config, params, tokens] = run;
  const auto &[ids, targets] = tokens;
  auto bf16 = [config](const gpt2::Params<Tensor> &p, const Tensor &in, const Tensor &out) {
    return gpt2::loss(config, p, in, out, {.matmul_dtype = DType::BF16});
  };
  // The step traces bf16 converts around every matmul.
  cotangent::trace traced({.context = &defaultContext()}, bf16, params, ids, targets);
  CHECK_THAT(traced.mlir(), Catch::Contains("xbf16>"));
  auto [value, grads] = jit(value_and_grad(bf16, argnums<0>))(params, ids, targets);
  const double want = *reference().getNumber("bf16_loss");
  CHECK(relativeTo(value.getDouble(0), want, want) <= 1.0 / 256);
  const double f32Loss = *reference().getNumber("loss");
  CHECK(relativeTo(want, f32Loss, f32Loss) <= 1.0 / 256);
  // The rounding of bf16 products scales with the terms summed, not with a
  // sum that cancels: a leaf whose gradient cancels to under 1% of the
  // model's largest (h.0.ln_2.bias: 4e-3 beside norms of 1) is held to 2^-6
  // of that 1% instead of its own norm.
  double largest = 0;
  for (const auto &[name, doc] : *reference().getObject("bf16_gradients"))
    largest = std::max(largest, *doc.getAsObject()->getNumber("norm"));
  for (const auto &[name, g] : namedLeaves(grads)) {
    CHECK(array::dtype(g) == DType::F32);
    checkLeaf(name, g, 0.01 * largest / 64, "bf16_gradients", 1.0 / 64);
  }
}

TEST_CASE("tiny GPT-2 trains as Flax's does", "[models][gpt2]") {
  TinyRun run;
  auto &[config, params, tokens] = run;
  const auto &[ids, targets] = tokens;
  auto step = jit(value_and_grad(lossFn(config), argnums<0>));
  const llvm::json::Array &losses = *reference().getArray("loss_steps");
  for (size_t i = 0; i < losses.size(); ++i) {
    auto [value, grads] = step(params, ids, targets);
    const double want = *losses[i].getAsNumber();
    INFO("step " << i);
    CHECK(relativeTo(value.getDouble(0), want, want) <= kRelative);
    params = tree_map(
        [](const interp::Tensor &w, const interp::Tensor &g) {
          return array::from_function(array::shape(w), [&](int64_t k) {
            return static_cast<float>(w.getDouble(k)) - 0.1f * static_cast<float>(g.getDouble(k));
          });
        },
        params, grads);
  }
}

TEST_CASE("GPT-2 refuses bad tokens and parameters", "[models][gpt2][errors]") {
  const gpt2::Config config = *gpt2::preset("tiny");
  gpt2::Params<interp::Tensor> params = gpt2::init(config, defaultContext());
  auto [ids, targets] = formulaTokens(1, 65);
  auto call = [&](const gpt2::Params<interp::Tensor> &p, const interp::Tensor &in,
                  const interp::Tensor &out) { return jit(value_and_grad(lossFn(config), argnums<0>))(p, in, out); };
  CHECK_THROWS_WITH(call(params, ids, targets),
                    Catch::Contains("a sequence of 65 tokens is longer than tiny's context of 64"));
  interp::Tensor floats = array::zeros({1, 8});
  CHECK_THROWS_WITH(call(params, floats, floats),
                    Catch::Contains("token ids must be integers [batch, seq]"));
  gpt2::Params<interp::Tensor> short_ = params;
  short_.h.pop_back();
  auto [few, next] = formulaTokens(1, 8);
  CHECK_THROWS_WITH(call(short_, few, next), Catch::Contains("params have 1 blocks, tiny has 2"));
}
