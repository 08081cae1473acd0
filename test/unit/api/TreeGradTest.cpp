// grad, value_and_grad and jit over trees of interp::Tensors: gradients come
// back shaped like the argnums arguments, has_aux returns the aux tree,
// jit compiles once per tree and agrees with the interpreter, and every
// misuse names the leaf's path; pullback (jax.vjp at run time) returns the
// output tree and a backward over cotangent trees.
#include "tracer/Jit.h"
#include "tracer/Nn.h"

#include <catch2/catch.hpp>

#include <random>

using namespace cotangent;

namespace {

template <class T>
using Dict = std::map<std::string, T>;

interp::Tensor randomF32(mlir::MLIRContext &ctx, std::vector<int64_t> shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
  std::vector<double> values(type.getNumElements());
  for (double &v : values)
    v = dist(rng);
  return interp::Tensor::fromDoubles(type, values);
}

interp::Tensor labels(mlir::MLIRContext &ctx, std::vector<int64_t> values) {
  auto type = mlir::RankedTensorType::get({static_cast<int64_t>(values.size())},
                                          mlir::IntegerType::get(&ctx, 32));
  return interp::Tensor::fromInts(type, values);
}

void checkClose(const interp::Tensor &a, const interp::Tensor &b, double eps = 1e-5) {
  REQUIRE(a.getType() == b.getType());
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    CHECK(a.getDouble(i) == Approx(b.getDouble(i)).epsilon(eps).margin(1e-6));
}

/// Flax's names: {"Dense_0": {"kernel", "bias"}, "Dense_1": {...}}.
Dict<Dict<interp::Tensor>> mlpParams(mlir::MLIRContext &ctx, int64_t in, int64_t hidden,
                                     int64_t out) {
  return {{"Dense_0", {{"kernel", randomF32(ctx, {in, hidden}, 1)},
                       {"bias", randomF32(ctx, {hidden}, 2)}}},
          {"Dense_1", {{"kernel", randomF32(ctx, {hidden, out}, 3)},
                       {"bias", randomF32(ctx, {out}, 4)}}}};
}

Tensor mlp(const Dict<Dict<Tensor>> &p, Tensor x) {
  Tensor h = nn::gelu(np::dot(x, p.at("Dense_0").at("kernel")) + p.at("Dense_0").at("bias"));
  return np::dot(h, p.at("Dense_1").at("kernel")) + p.at("Dense_1").at("bias");
}

/// Cross-entropy against integer labels (not differentiated).
Tensor loss(Dict<Dict<Tensor>> p, Tensor x, Tensor y) {
  Tensor logits = mlp(p, x);
  return -np::mean(np::sum(nn::log_softmax(logits) * nn::one_hot(y, 3), {1}));
}

/// The same loss with the parameters one by one, for the flat grad.
Tensor flatLoss(Tensor k0, Tensor b0, Tensor k1, Tensor b1, Tensor x, Tensor y) {
  return loss({{"Dense_0", {{"kernel", k0}, {"bias", b0}}},
               {"Dense_1", {{"kernel", k1}, {"bias", b1}}}},
              x, y);
}

} // namespace

/// A registered struct of parameters (TreeFields), over any leaf type.
template <class L>
struct TwoLayers {
  Dict<L> first;
  std::vector<L> rest;
};
template <class L>
struct cotangent::TreeFields<TwoLayers<L>> {
  static constexpr auto fields = std::tuple{treeField("first", &TwoLayers<L>::first),
                                            treeField("rest", &TwoLayers<L>::rest)};
  template <class M>
  using Rebind = TwoLayers<M>;
};

TEST_CASE("a registered struct is a tree: paths, gradients, tree_map", "[grad][tree]") {
  mlir::MLIRContext ctx;
  TwoLayers<interp::Tensor> p{{{"w", randomF32(ctx, {3, 4}, 1)}}, {randomF32(ctx, {4}, 2)}};
  auto leaves = flattenValues(p, "params");
  REQUIRE(leaves.size() == 2);
  CHECK(leaves[0].first == "params['first']['w']");
  CHECK(leaves[1].first == "params['rest'][0]");

  auto f = [](TwoLayers<Tensor> q, Tensor x) {
    return np::sum(np::tanh(np::dot(x, q.first.at("w"))) * q.rest[0]);
  };
  interp::Tensor x = randomF32(ctx, {5, 3}, 3);
  TwoLayers<interp::Tensor> g = grad(f, argnums<0>)(p, x);
  std::vector<interp::Tensor> flat = grad(f)(p, x);
  checkClose(g.first.at("w"), flat[0]);
  checkClose(g.rest[0], flat[1]);

  // One SGD step with tree_map keeps the structure; a mismatched tree is named.
  auto step = tree_map(
      [](const interp::Tensor &w, const interp::Tensor &d) {
        std::vector<double> v;
        for (int64_t i = 0; i < w.getNumElements(); ++i)
          v.push_back(w.getDouble(i) - 0.5 * d.getDouble(i));
        return interp::Tensor::fromDoubles(w.getType(), v);
      },
      p, g);
  CHECK(step.first.at("w").getDouble(0) ==
        Approx(p.first.at("w").getDouble(0) - 0.5 * g.first.at("w").getDouble(0)));
  TwoLayers<interp::Tensor> other{{{"v", randomF32(ctx, {3, 4}, 1)}}, {}};
  CHECK_THROWS_WITH(tree_map([](const interp::Tensor &a, const interp::Tensor &) { return a; }, p,
                             other),
                    Catch::Contains("tree_map: the trees differ") &&
                        Catch::Contains("['first']['w']: missing, expected f32[3,4]") &&
                        Catch::Contains("['first']['v']: not in the expected tree"));
}

TEST_CASE("grad(f, argnums<0>) returns a tree shaped like the argument", "[grad][tree]") {
  mlir::MLIRContext ctx;
  auto params = mlpParams(ctx, 4, 8, 3);
  interp::Tensor x = randomF32(ctx, {5, 4}, 5), y = labels(ctx, {0, 2, 1, 1, 0});
  Dict<Dict<interp::Tensor>> g = grad(loss, argnums<0>)(params, x, y);
  REQUIRE(g.size() == 2);
  REQUIRE(g.at("Dense_0").size() == 2);
  CHECK(g.at("Dense_0").at("kernel").getType() == params.at("Dense_0").at("kernel").getType());
  CHECK(g.at("Dense_1").at("bias").getType() == params.at("Dense_1").at("bias").getType());

  // The flat grad over the same leaves (map order: bias before kernel).
  auto &p0 = params.at("Dense_0"), &p1 = params.at("Dense_1");
  auto [k0, b0, k1, b1] = grad(flatLoss, argnums<0, 1, 2, 3>)(p0.at("kernel"), p0.at("bias"),
                                                              p1.at("kernel"), p1.at("bias"), x, y);
  checkClose(g.at("Dense_0").at("kernel"), k0);
  checkClose(g.at("Dense_0").at("bias"), b0);
  checkClose(g.at("Dense_1").at("kernel"), k1);
  checkClose(g.at("Dense_1").at("bias"), b1);
}

TEST_CASE("grad over several argnums returns a tuple of trees", "[grad][tree]") {
  mlir::MLIRContext ctx;
  auto f = [](std::vector<Tensor> ws, std::pair<Tensor, Tensor> xy) {
    Tensor h = np::tanh(np::dot(xy.first, ws[0]));
    return np::sum(np::dot(h, ws[1]) * xy.second);
  };
  std::vector<interp::Tensor> ws{randomF32(ctx, {3, 4}, 1), randomF32(ctx, {4, 2}, 2)};
  std::pair xy{randomF32(ctx, {6, 3}, 3), randomF32(ctx, {6, 2}, 4)};
  auto [dws, dxy] = grad(f, argnums<0, 1>)(ws, xy);
  REQUIRE(dws.size() == 2);
  std::vector<interp::Tensor> flat = grad(f)(ws, xy); // every leaf, in order
  REQUIRE(flat.size() == 4);
  checkClose(dws[0], flat[0]);
  checkClose(dws[1], flat[1]);
  checkClose(dxy.first, flat[2]);
  checkClose(dxy.second, flat[3]);

  // argnums<1> alone: the pair.
  std::pair<interp::Tensor, interp::Tensor> only = grad(f, argnums<1>)(ws, xy);
  checkClose(only.second, flat[3]);
}

TEST_CASE("has_aux returns the aux tree beside the value and the gradients", "[grad][tree]") {
  mlir::MLIRContext ctx;
  auto params = mlpParams(ctx, 4, 8, 3);
  interp::Tensor x = randomF32(ctx, {5, 4}, 5), y = labels(ctx, {0, 2, 1, 1, 0});
  auto withAux = [](Dict<Dict<Tensor>> p, Tensor x, Tensor y) {
    Tensor logits = mlp(p, x);
    Dict<Tensor> aux{{"logits", logits}, {"max", np::max(logits)}};
    return std::pair{loss(p, x, y), aux};
  };
  auto [valueAux, g] = value_and_grad(withAux, argnums<0>, has_aux)(params, x, y);
  auto [value, aux] = valueAux;
  auto [plainValue, plainGrad] = value_and_grad(loss, argnums<0>)(params, x, y);
  checkClose(value, plainValue);
  checkClose(g.at("Dense_1").at("kernel"), plainGrad.at("Dense_1").at("kernel"));
  checkClose(g.at("Dense_0").at("bias"), plainGrad.at("Dense_0").at("bias"));
  REQUIRE(aux.at("logits").getNumElements() == 15);
  double biggest = -1e30;
  for (int64_t i = 0; i < 15; ++i)
    biggest = std::max(biggest, aux.at("logits").getDouble(i));
  CHECK(aux.at("max").getDouble(0) == biggest);

  // grad with has_aux: {grads, aux}.
  auto [g2, aux2] = grad(withAux, argnums<0>, has_aux)(params, x, y);
  checkClose(g2.at("Dense_0").at("kernel"), g.at("Dense_0").at("kernel"));
  checkClose(aux2.at("logits"), aux.at("logits"));
}

TEST_CASE("jit of tree transforms agrees with the interpreter, once per tree", "[jit][tree]") {
  mlir::MLIRContext ctx;
  auto params = mlpParams(ctx, 4, 8, 3);
  interp::Tensor x = randomF32(ctx, {5, 4}, 5), y = labels(ctx, {0, 2, 1, 1, 0});
  auto step = jit(value_and_grad(loss, argnums<0>));
  auto [value, g] = step(params, x, y);
  auto [refValue, ref] = value_and_grad(loss, argnums<0>)(params, x, y);
  checkClose(value, refValue);
  for (const char *layer : {"Dense_0", "Dense_1"})
    for (const char *leaf : {"kernel", "bias"})
      checkClose(g.at(layer).at(leaf), ref.at(layer).at(leaf));
  CHECK(step.last_stats().peakBytes > 0);

  // Another batch size: compiled again, still right.
  interp::Tensor x2 = randomF32(ctx, {2, 4}, 6), y2 = labels(ctx, {1, 2});
  auto [value2, g2] = step(params, x2, y2);
  checkClose(value2, value_and_grad(loss, argnums<0>)(params, x2, y2).first);

  // has_aux compiled.
  auto withAux = [](Dict<Dict<Tensor>> p, Tensor x, Tensor y) {
    return std::pair{loss(p, x, y), std::vector<Tensor>{mlp(p, x)}};
  };
  auto [gAux, aux] = jit(grad(withAux, argnums<0>, has_aux))(params, x, y);
  checkClose(gAux.at("Dense_0").at("kernel"), ref.at("Dense_0").at("kernel"));
  REQUIRE(aux.size() == 1);
  CHECK(aux[0].getNumElements() == 15);
}

TEST_CASE("a tree that differs from the compiled one is named leaf by leaf", "[jit][tree][errors]") {
  mlir::MLIRContext ctx;
  auto params = mlpParams(ctx, 4, 8, 3);
  interp::Tensor x = randomF32(ctx, {5, 4}, 5), y = labels(ctx, {0, 2, 1, 1, 0});
  auto step = jit(grad(loss, argnums<0>, {.arg_names = {"params", "x", "y"}}), {.recompile = false});
  step(params, x, y);

  auto wider = params;
  wider.at("Dense_0").insert_or_assign("kernel", randomF32(ctx, {4, 6}, 7));
  wider.at("Dense_0").insert_or_assign("bias", randomF32(ctx, {6}, 8));
  wider.at("Dense_1").insert_or_assign("kernel", randomF32(ctx, {6, 3}, 9));
  CHECK_THROWS_WITH(step(wider, x, y),
                    Catch::Contains("params['Dense_0']['kernel']: expected f32[4,8], got f32[4,6]") &&
                        Catch::Contains("params['Dense_1']['kernel']: expected f32[8,3], got f32[6,3]") &&
                        Catch::Contains("recompile is off"));

  auto missing = params;
  missing.at("Dense_1").erase("bias");
  missing.at("Dense_1").insert_or_assign("bais", params.at("Dense_1").at("bias"));
  CHECK_THROWS_WITH(step(missing, x, y),
                    Catch::Contains("params['Dense_1']['bias']: missing, expected f32[3]") &&
                        Catch::Contains("params['Dense_1']['bais']: not in the expected tree (f32[3])"));

  interp::Tensor x64 = interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get({5, 4}, mlir::Float64Type::get(&ctx)), std::vector<double>(20, 0.5));
  CHECK_THROWS_WITH(step(params, x64, y), Catch::Contains("x: expected f32[5,4], got f64[5,4]"));
}

TEST_CASE("grad misuse names the argument's path", "[grad][tree][errors]") {
  mlir::MLIRContext ctx;
  auto params = mlpParams(ctx, 4, 8, 3);
  interp::Tensor x = randomF32(ctx, {5, 4}, 5), y = labels(ctx, {0, 2, 1, 1, 0});
  GradOptions names{.arg_names = {"params", "x", "y"}};

  // An integer leaf among the differentiated arguments.
  auto withLabels = [](Dict<Dict<Tensor>> p, std::pair<Tensor, Tensor> data) {
    return loss(p, data.first, data.second);
  };
  CHECK_THROWS_WITH(grad(withLabels, argnums<1>, {.arg_names = {"params", "batch"}})(
                        params, std::pair{x, y}),
                    Catch::Contains("grad: batch[1] is i32[5]: only float arguments can be differentiated"));
  CHECK_THROWS_WITH(grad(loss, argnums<0, 2>, names)(params, x, y),
                    Catch::Contains("grad: y is i32[5]"));

  // A loss that is not a scalar, with and without has_aux.
  auto vector = [](Dict<Dict<Tensor>> p, Tensor x, Tensor) { return mlp(p, x); };
  CHECK_THROWS_WITH(grad(vector, argnums<0>)(params, x, y),
                    Catch::Contains("one scalar float tensor, got f32[5,3]"));
  auto two = [](Dict<Dict<Tensor>> p, Tensor x, Tensor y) {
    return std::pair{loss(p, x, y), mlp(p, x)};
  };
  CHECK_THROWS_WITH(grad(two, argnums<0>)(params, x, y),
                    Catch::Contains("got 2 results (use has_aux for more)"));
  auto auxFirst = [](Dict<Dict<Tensor>> p, Tensor x, Tensor y) {
    return std::pair{mlp(p, x), loss(p, x, y)};
  };
  CHECK_THROWS_WITH(grad(auxFirst, argnums<0>, has_aux)(params, x, y),
                    Catch::Contains("has_aux") && Catch::Contains("got f32[5,3]"));

  // A key the function reads but the tree lacks: the function's own error.
  auto partial = params;
  partial.erase("Dense_1");
  CHECK_THROWS(grad(loss, argnums<0>)(partial, x, y));
}

TEST_CASE("pullback: the output tree now, the arguments' cotangent trees later",
          "[grad][tree][pullback]") {
  mlir::MLIRContext ctx;
  Dict<interp::Tensor> params = {{"w", randomF32(ctx, {3, 4}, 1)}, {"b", randomF32(ctx, {4}, 2)}};
  interp::Tensor x = randomF32(ctx, {2, 3}, 3);
  // Two outputs in a map: the activations and their per-row sum of squares.
  auto f = [](const Dict<Tensor> &p, const Tensor &in) {
    Tensor h = checkpoint([](Tensor a, Tensor w, Tensor b) { return np::tanh(np::dot(a, w) + b); })(
        in, p.at("w"), p.at("b"));
    return Dict<Tensor>{{"h", h}, {"norm", np::sum(h * h, 1)}};
  };
  auto [y, backward] = pullback(f, params, x);
  REQUIRE(y.size() == 2);
  CHECK(y.at("h").getShape() == llvm::ArrayRef<int64_t>{2, 4});
  CHECK(y.at("norm").getShape() == llvm::ArrayRef<int64_t>{2});

  Dict<interp::Tensor> ct = {{"h", randomF32(ctx, {2, 4}, 4)}, {"norm", randomF32(ctx, {2}, 5)}};
  auto [dparams, dx] = backward(ct);
  // The same as the gradient of <ct, f(params, x)>, by grad over trees.
  auto inner = [&](const Dict<Tensor> &p, const Tensor &in) {
    Dict<Tensor> out = f(p, in);
    return np::sum(out.at("h") * np::asarray(ct.at("h"))) +
           np::sum(out.at("norm") * np::asarray(ct.at("norm")));
  };
  auto [gparams, gx] = grad(inner, argnums<0, 1>)(params, x);
  checkClose(dparams.at("w"), gparams.at("w"));
  checkClose(dparams.at("b"), gparams.at("b"));
  checkClose(dx, gx);
  // The backward can run again, with another cotangent.
  auto [again, dx2] = backward(ct);
  checkClose(again.at("w"), dparams.at("w"));

  // A cotangent of another shape is named leaf by leaf.
  Dict<interp::Tensor> wrong = {{"h", randomF32(ctx, {2, 5}, 4)}};
  CHECK_THROWS_WITH(backward(wrong),
                    Catch::Contains("the cotangent must be shaped like the output") &&
                        Catch::Contains("y['h']: expected f32[2,4], got f32[2,5]") &&
                        Catch::Contains("y['norm']: missing, expected f32[2]"));
}
