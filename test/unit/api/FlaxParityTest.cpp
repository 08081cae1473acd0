// nn:: layers against Flax (test/jax/reference/flax.json, written by
// test/jax/gen_flax_reference.py): the seed exercise's nn.checkpoint(MLP)
// over 24 keys and shapes, Dense, LayerNorm, Embed and
// MultiHeadDotProductAttention (causal and not), Dropout's masks (drawn on the
// host and inside the step), remat_scan
// (1 to 3 levels) and Sequential (both of Flax's namings). Initialized
// parameters and forward outputs equal Flax's within 1e-6 (relative, or
// absolute below 1), the forward both through the interpreter and compiled.
#include "BoundedGrad.h"
#include "Interpret.h"
#include "JaxReference.h"
#include "SeedMlp.h"
#include "TanhBlock.h"

#include "tracer/Jit.h"
#include "tracer/Layers.h"
#include "tracer/Module.h"
#include "tracer/Nn.h"

#include <cmath>

using namespace cotangent;
using examples::Block;
using examples::MLP;
using nn::Dict;

namespace {

const llvm::json::Array &cases() { return jaxref::cases(COTANGENT_FLAX_REFERENCE); }

double worst = 0; // the largest difference seen, for the summary

void checkClose(const interp::Tensor &got, const interp::Tensor &want) {
  REQUIRE(got.getType() == want.getType());
  for (int64_t i = 0; i < want.getNumElements(); ++i) {
    double g = got.getDouble(i), w = want.getDouble(i);
    double d = std::abs(g - w) / std::max(1.0, std::abs(w));
    worst = std::max(worst, d);
    CHECK(d <= 1e-6);
  }
}

/// {"kernel": array, ...} as host tensors.
Dict<interp::Tensor> leaves(mlir::MLIRContext &ctx, const llvm::json::Object &o) {
  Dict<interp::Tensor> out;
  for (const auto &[name, array] : o)
    out.emplace(name.str(), jaxref::f32Array(ctx, *array.getAsObject()));
  return out;
}

void checkParams(const Dict<interp::Tensor> &got, const Dict<interp::Tensor> &want) {
  REQUIRE(got.size() == want.size());
  for (const auto &[name, tensor] : want) {
    INFO("parameter " << name);
    REQUIRE(got.count(name));
    checkClose(got.at(name), tensor);
  }
}

} // namespace

TEST_CASE("the seed exercise: nn.checkpoint(MLP) initializes and applies as in Flax",
          "[flax][layers]") {
  mlir::MLIRContext ctx;
  size_t seen = 0;
  for (const llvm::json::Value &c : cases()) {
    const llvm::json::Object &o = *c.getAsObject();
    if (*o.getString("kind") != "mlp")
      continue;
    ++seen;
    int64_t seed = jaxref::integer(o, "seed"), features = jaxref::integer(o, "features");
    interp::Tensor x = jaxref::f32Array(ctx, *o.getObject("x"));
    INFO("seed " << seed << ", x " << x.getNumElements() << ", features " << features);

    auto CkptMLP = nn::checkpoint<MLP>();
    auto model = CkptMLP(features);
    nn::Scope root(ctx, random::PRNGKey(seed));
    Dict<Dict<interp::Tensor>> params = model.init(root, x.getNumElements());
    const llvm::json::Object &want = *o.getObject("params");
    REQUIRE(params.size() == want.size());
    for (const auto &[layer, tensors] : want) {
      INFO(layer.str());
      checkParams(params.at(layer.str()), leaves(ctx, *tensors.getAsObject()));
    }

    interp::Tensor expected = jaxref::f32Array(ctx, *o.getObject("output"));
    auto apply = [&](Dict<Dict<Tensor>> p, Tensor in) { return model(p, in); };
    checkClose(interpret(ctx, apply, params, x).at(0), expected);
    checkClose(jit(apply)(params, x), expected);
  }
  CHECK(seen >= 20);
  WARN("worst relative difference from Flax so far: " << worst);
}

TEST_CASE("Dense, LayerNorm, Embed and attention initialize and apply as in Flax",
          "[flax][layers]") {
  mlir::MLIRContext ctx;
  for (const llvm::json::Value &c : cases()) {
    const llvm::json::Object &o = *c.getAsObject();
    llvm::StringRef kind = *o.getString("kind");
    if (kind == "mlp" || kind == "remat_scan" || kind == "sequential") // their own tests
      continue;
    INFO(kind.str());
    interp::Tensor expected = jaxref::f32Array(ctx, *o.getObject("output"));
    if (kind == "attention") {
      nn::MultiHeadDotProductAttention attention{jaxref::integer(o, "num_heads")};
      interp::Tensor x = jaxref::f32Array(ctx, *o.getObject("x"));
      nn::Scope root(ctx, random::PRNGKey(jaxref::integer(o, "seed")));
      Dict<Dict<interp::Tensor>> params = attention.init(root, x.getShape().back());
      const llvm::json::Object &want = *o.getObject("params");
      REQUIRE(params.size() == want.size());
      for (const auto &[name, tensors] : want) {
        INFO(name.str());
        checkParams(params.at(name.str()), leaves(ctx, *tensors.getAsObject()));
      }
      bool causal = *o.getBoolean("causal");
      int64_t seq = x.getShape()[1];
      auto apply = [&](Dict<Dict<Tensor>> p, Tensor in) {
        return causal ? attention(p, in, nn::make_causal_mask(seq)) : attention(p, in);
      };
      checkClose(interpret(ctx, apply, params, x).at(0), expected);
      checkClose(jit(apply)(params, x), expected);
      continue;
    }
    if (kind == "dropout") {
      std::vector<int64_t> dims;
      for (const llvm::json::Value &d : *o.getArray("broadcast_dims"))
        dims.push_back(*d.getAsInteger());
      nn::Dropout dropout{*o.getNumber("rate"), dims};
      interp::Tensor x = jaxref::f32Array(ctx, *o.getObject("x"));
      nn::Scope root(ctx, random::PRNGKey(jaxref::integer(o, "seed"))); // rngs={'dropout': key}
      interp::Tensor keep = dropout.mask(root, {x.getShape().begin(), x.getShape().end()});
      auto apply = [&](Tensor in, Tensor mask) { return dropout(in, mask); };
      checkClose(interpret(ctx, apply, x, keep).at(0), expected);
      checkClose(jit(apply)(x, keep), expected);
      // The mask drawn inside the step from the key passed in, as Flax's
      // apply(..., rngs={'dropout': key}) under jit.
      interp::Tensor key = random::key_data(ctx, random::PRNGKey(jaxref::integer(o, "seed")));
      auto inStep = [&](Tensor in, Tensor k) { return dropout(in, nn::Rng{nn::make_rng(k, {})}); };
      checkClose(interpret(ctx, inStep, x, key).at(0), expected);
      checkClose(jit(inStep)(x, key), expected);
      auto deterministic = [&](Tensor in) { return dropout(in, std::nullopt); };
      checkClose(interpret(ctx, deterministic, x).at(0), x);
      continue;
    }
    Dict<interp::Tensor> want = leaves(ctx, *o.getObject("params"));
    if (kind == "dense") {
      nn::Dense dense{jaxref::integer(o, "features"), *o.getBoolean("use_bias")};
      interp::Tensor x = jaxref::f32Array(ctx, *o.getObject("x"));
      nn::Scope root(ctx, random::PRNGKey(jaxref::integer(o, "seed")));
      Dict<interp::Tensor> params = dense.init(root, x.getShape().back());
      checkParams(params, want);
      auto apply = [&](Dict<Tensor> p, Tensor in) { return dense(p, in); };
      checkClose(interpret(ctx, apply, params, x).at(0), expected);
    } else if (kind == "layernorm") {
      nn::LayerNorm norm;
      interp::Tensor x = jaxref::f32Array(ctx, *o.getObject("x"));
      nn::Scope root(ctx, random::PRNGKey(0));
      Dict<interp::Tensor> fresh = norm.init(root, x.getShape().back());
      CHECK(fresh.at("scale").getDouble(0) == 1.0);
      CHECK(fresh.at("bias").getDouble(0) == 0.0);
      auto apply = [&](Dict<Tensor> p, Tensor in) { return norm(p, in); };
      checkClose(interpret(ctx, apply, want, x).at(0), expected);
      checkClose(jit(apply)(want, x), expected);
    } else if (kind == "embed") {
      nn::Embed embed{jaxref::integer(o, "num_embeddings"), jaxref::integer(o, "features")};
      nn::Scope root(ctx, random::PRNGKey(jaxref::integer(o, "seed")));
      Dict<interp::Tensor> params = embed.init(root);
      checkParams(params, want);
      auto idsType = mlir::RankedTensorType::get(jaxref::integers(o, "ids_shape"),
                                                 mlir::IntegerType::get(&ctx, 32));
      interp::Tensor ids = interp::Tensor::fromInts(idsType, jaxref::integers(o, "ids"));
      auto apply = [&](Dict<Tensor> p, Tensor in) { return embed(p, in); };
      checkClose(interpret(ctx, apply, params, ids).at(0), expected);
    }
  }
}

namespace {

/// Each leaf of `got` against `want` (one more level of names than checkParams).
void checkParamTree(const Dict<Dict<interp::Tensor>> &got, const llvm::json::Object &want,
                    mlir::MLIRContext &ctx) {
  REQUIRE(got.size() == want.size());
  for (const auto &[name, sub] : want) {
    INFO("module " << name.str());
    REQUIRE(got.count(name.str()));
    checkParams(got.at(name.str()), leaves(ctx, *sub.getAsObject()));
  }
}

interp::Tensor toF64(const interp::Tensor &t) {
  auto type = t.getType().clone(mlir::Float64Type::get(t.getType().getContext()));
  std::vector<double> values(static_cast<size_t>(t.getNumElements()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = t.getDouble(static_cast<int64_t>(i));
  return interp::Tensor::fromDoubles(type, values);
}

/// The compiled gradient of sum(apply(params, x)^2) within the bound of the
/// interpreter's, in f32 and f64 (the bound follows LayerNorm's
/// E[x^2] - E[x]^2 through its cancellation).
template <class Apply>
void checkGradients(const Apply &apply, const Dict<Dict<interp::Tensor>> &params32,
                    const interp::Tensor &x32) {
  auto loss = [&](const Dict<Dict<Tensor>> &p, Tensor in) {
    Tensor y = apply(p, in);
    return np::sum(y * y);
  };
  std::vector<interp::Tensor> compiled32 = jit(grad(loss))(params32, x32);
  test::requireAllWithinBounds(compiled32, test::boundedValueAndGrad(loss, params32, x32), 1);
  auto params = tree_map(toF64, params32);
  interp::Tensor x = toF64(x32);
  std::vector<interp::Tensor> compiled = jit(grad(loss))(params, x);
  test::requireAllWithinBounds(compiled, test::boundedValueAndGrad(loss, params, x), 1);
}

} // namespace

TEST_CASE("remat_scan and Sequential initialize and apply as in Flax", "[flax][layers][numerics]") {
  mlir::MLIRContext ctx;
  int checked = 0;
  for (const llvm::json::Value &c : cases()) {
    const llvm::json::Object &o = *c.getAsObject();
    llvm::StringRef kind = *o.getString("kind");
    if (kind != "remat_scan" && kind != "sequential")
      continue;
    INFO(kind.str() << " seed " << jaxref::integer(o, "seed"));
    interp::Tensor x = jaxref::f32Array(ctx, *o.getObject("x"));
    interp::Tensor expected = jaxref::f32Array(ctx, *o.getObject("output"));
    nn::Scope root(ctx, random::PRNGKey(jaxref::integer(o, "seed")));
    int64_t width = x.getShape().back();
    if (kind == "remat_scan") {
      std::vector<int64_t> lengths = jaxref::integers(o, "lengths");
      INFO("lengths of " << lengths.size() << " levels");
      auto scanned = nn::remat_scan<Block>({.lengths = lengths})(width);
      nn::Scope scope = root.child("Remat_scanBlock_0");
      Dict<Dict<interp::Tensor>> params = scanned.init(scope, width);
      checkParamTree(params, *o.getObject("params")->getObject("Remat_scanBlock_0"), ctx);
      auto apply = [&](const Dict<Dict<Tensor>> &p, Tensor in) { return scanned(p, in); };
      checkClose(interpret(ctx, apply, params, x).at(0), expected);
      checkClose(jit(apply)(params, x), expected);
      checkGradients(apply, params, x);
    } else {
      auto relu = [](const Tensor &h) { return nn::relu(h); };
      auto naming = *o.getString("naming") == "inline" ? nn::SequentialNames::Inline
                                                        : nn::SequentialNames::Attribute;
      nn::Sequential seq(naming, nn::Dense{5}, relu, nn::LayerNorm{}, nn::Dense{3});
      Dict<Dict<interp::Tensor>> params = seq.init(root, width);
      checkParamTree(params, *o.getObject("params"), ctx);
      auto apply = [&](const Dict<Dict<Tensor>> &p, Tensor in) { return seq(p, in); };
      checkClose(interpret(ctx, apply, params, x).at(0), expected);
      checkClose(jit(apply)(params, x), expected);
      checkGradients(apply, params, x);
    }
    ++checked;
  }
  CHECK(checked == 10);
}

TEST_CASE("a layer's parameters that do not fit are named", "[flax][layers][errors]") {
  mlir::MLIRContext ctx;
  nn::Scope root(ctx, random::PRNGKey(0));
  Dict<interp::Tensor> params = nn::Dense{4}.init(root, 3);
  interp::Tensor x = interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get({3}, mlir::Float32Type::get(&ctx)), {1, 2, 3});
  auto wrongWidth = [](Dict<Tensor> p, Tensor in) { return nn::Dense{5}(p, in); };
  CHECK_THROWS_WITH(interpret(ctx, wrongWidth, params, x),
                    Catch::Contains("the kernel is f32[3,4], expected [in, 5]"));
  params.erase("bias");
  auto dense = [](Dict<Tensor> p, Tensor in) { return nn::Dense{4}(p, in); };
  CHECK_THROWS_WITH(interpret(ctx, dense, params, x),
                    Catch::Contains("the parameters have no 'bias' (they hold kernel)"));
  CHECK_THROWS_WITH(nn::initializers::lecun_normal()(ctx, random::PRNGKey(0), {4}),
                    Catch::Contains("needs a shape of rank 2 or more, got f32[4]"));
  CHECK_THROWS_WITH(nn::Dropout{1.0}.mask(root, {3}), Catch::Contains("the rate must lie in [0, 1)"));
  CHECK_THROWS_WITH((nn::Dropout{0.5, {2}}.mask(root, {3})),
                    Catch::Contains("broadcast dimension 2 is out of range for f32[3]"));
  CHECK_THROWS_WITH(nn::remat_scan<Block>({.lengths = {}})(3),
                    Catch::Contains("remat_scan: needs at least one length"));
  CHECK_THROWS_WITH(nn::remat_scan<Block>({.lengths = {4, 0}})(3),
                    Catch::Contains("remat_scan: lengths must be positive, got 0"));
  // Sequential parameters under the other naming.
  nn::Sequential seq(nn::Dense{4}, nn::Dense{2});
  Dict<Dict<interp::Tensor>> inline_ = seq.init(root, 3);
  nn::Sequential attr(nn::SequentialNames::Attribute, nn::Dense{4}, nn::Dense{2});
  auto apply = [&](const Dict<Dict<Tensor>> &p, Tensor in) { return attr(p, in); };
  CHECK_THROWS_WITH(interpret(ctx, apply, inline_, x),
                    Catch::Contains("Sequential: params has no entry 'layers_0'"));
}
