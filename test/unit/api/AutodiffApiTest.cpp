// The C++ autodiff API end to end: trace -> --jx-vjp -> --jx-remat ->
// saved_residuals / print_fwd_bwd, and grad through the interpreter, on the
// seed's g/f example under each checkpoint placement and policy.
#include "tracer/Autodiff.h"

#include "RandomTensor.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace cotangent;

namespace {

Tensor g(Tensor W, Tensor x) { return np::sin(np::dot(W, x)); }

const TraceOptions fOptions{.name = "f", .arg_names = {"W1", "W2", "W3", "x"}};
const Spec W1 = f32({5, 4}), W2 = f32({6, 5}), W3 = f32({7, 6}), X = f32({4});

/// "f32[5] output of sin" without the location, for compact comparisons.
std::vector<std::string> summary(const Split &s) {
  std::vector<std::string> out;
  for (const Residual &r : s.saved_residuals()) {
    switch (r.kind) {
    case Residual::Kind::Argument:
      out.push_back(r.type + " " + r.what);
      break;
    case Residual::Kind::Output:
      out.push_back(r.type + " " + r.what);
      break;
    case Residual::Kind::Named:
      out.push_back(r.type + " '" + r.what + "'");
      break;
    }
  }
  return out;
}

using Lines = std::vector<std::string>;


} // namespace

TEST_CASE("no checkpoint: the seed's nine residuals, arguments first", "[api][seed]") {
  auto f = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) { return g(W3, g(W2, g(W1, x))); };
  Split s = vjp(fOptions, f, W1, W2, W3, X);
  CHECK(summary(s) == Lines{"f32[5,4] W1", "f32[6,5] W2", "f32[7,6] W3", "f32[4] x", "f32[5] sin",
                            "f32[5] cos", "f32[6] sin", "f32[6] cos", "f32[7] cos"});
  // Locations name this file and the traced function.
  Residual cos = s.saved_residuals()[5];
  CHECK_THAT(cos.location, Catch::Contains("AutodiffApiTest.cpp:") && Catch::EndsWith("(g)"));
  CHECK_THAT(s.print_saved_residuals(),
             Catch::StartsWith("f32[5,4] from the argument W1\n") &&
                 Catch::Contains("total: 9 residuals, 500 bytes"));
}

TEST_CASE("checkpoint on each g saves W1, W2, W3, x, sin[5], sin[6] and no cos", "[api][remat]") {
  auto f = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) {
    auto cg = checkpoint(g);
    return cg(W3, cg(W2, cg(W1, x)));
  };
  Split s = vjp(fOptions, f, W1, W2, W3, X);
  CHECK(summary(s) ==
        Lines{"f32[5,4] W1", "f32[6,5] W2", "f32[7,6] W3", "f32[4] x", "f32[5] sin", "f32[6] sin"});
  // Without the remat pass the same trace saves everything.
  Split all(trace(fOptions, f, W1, W2, W3, X), SplitOptions{.remat = false});
  CHECK(all.saved_residuals().size() == 9);
}

TEST_CASE("SplitOptions::defaultPolicy decides the residuals outside every checkpoint",
          "[api][remat]") {
  auto f = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) { return g(W3, g(W2, g(W1, x))); };
  // min_residual_bytes (the compile tools' default): the first two layers'
  // dot outputs, from which sin (the next dot's input) and cos are rebuilt,
  // instead of each sin and cos; the last layer's cos itself, as small as its
  // dot output and nearer the backward, so nothing is recomputed for it.
  Split cut(trace(fOptions, f, W1, W2, W3, X), SplitOptions{.defaultPolicy = "min_residual_bytes"});
  CHECK(summary(cut) == Lines{"f32[5,4] W1", "f32[6,5] W2", "f32[7,6] W3", "f32[4] x",
                              "f32[5] dot_general", "f32[6] dot_general", "f32[7] cos"});
  // The same gradients as with every residual kept.
  Split keep = vjp(fOptions, f, W1, W2, W3, X);
  // Arguments and cotangents, the same values in each split's context.
  auto arguments = [](const Split &split) {
    mlir::MLIRContext &ctx = *split.module().getContext();
    std::vector<interp::Tensor> args;
    unsigned seed = 1;
    for (std::vector<int64_t> shape : {std::vector<int64_t>{5, 4}, {6, 5}, {7, 6}, {4}, {7}}) {
      interp::Tensor t = randomTensor(ctx, shape, seed++);
      std::vector<double> values;
      for (int64_t i = 0; i < t.getNumElements(); ++i)
        values.push_back(t.getDouble(i));
      args.push_back(interp::Tensor::fromDoubles(
          mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx)), values));
    }
    return args;
  };
  std::vector<interp::Tensor> a = evaluate(cut, cut.vjp(), arguments(cut)),
                              b = evaluate(keep, keep.vjp(), arguments(keep));
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (int64_t j = 0; j < a[i].getNumElements(); ++j)
      CHECK(a[i].getDouble(j) == b[i].getDouble(j));
  CHECK_THROWS_WITH(
      Split(trace(fOptions, f, W1, W2, W3, X), SplitOptions{.defaultPolicy = "min_bytes"}),
      Catch::Contains("default-policy: unknown remat policy 'min_bytes'"));
}

TEST_CASE("dots_with_no_batch_dims_saveable on the whole f saves the three dots", "[api][remat]") {
  auto f = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) { return g(W3, g(W2, g(W1, x))); };
  auto cf = checkpoint(f, {.policy = policies::dots_with_no_batch_dims_saveable()});
  Split s = vjp(fOptions, cf, W1, W2, W3, X);
  CHECK(summary(s) == Lines{"f32[5,4] W1", "f32[6,5] W2", "f32[7,6] W3", "f32[4] x",
                            "f32[5] dot_general", "f32[6] dot_general", "f32[7] dot_general"});
}

TEST_CASE("save_only_these_names('a') keeps the named first layer only", "[api][remat]") {
  auto f = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) {
    x = checkpoint_name(g(W1, x), "a");
    x = checkpoint_name(g(W2, x), "b");
    return checkpoint_name(g(W3, x), "c");
  };
  auto cf = checkpoint(f, {.policy = policies::save_only_these_names({"a"})});
  Split s = vjp(fOptions, cf, W1, W2, W3, X);
  CHECK(summary(s) == Lines{"f32[5,4] W1", "f32[6,5] W2", "f32[7,6] W3", "f32[4] x", "f32[5] 'a'"});
}

TEST_CASE("print_fwd_bwd puts forward and backward in two columns", "[api]") {
  auto f = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) { return g(W3, g(W2, g(W1, x))); };
  Split s = vjp(fOptions, f, W1, W2, W3, X);
  std::string text = s.print_fwd_bwd(DumpSyntax::Jaxpr, 120);
  CHECK_THAT(text, Catch::StartsWith("forward @f_fwd") && Catch::Contains("| backward @f_bwd") &&
                       Catch::Contains("= cos") && Catch::Contains("= mul"));
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    CHECK(line.size() <= 120);
}

TEST_CASE("grad matches finite differences and is the same under every policy", "[api][grad]") {
  auto loss = [](Tensor W1, Tensor W2, Tensor x) { return np::sum(g(W2, g(W1, x))); };
  mlir::MLIRContext ctx;
  interp::Tensor w1 = randomTensor(ctx, {5, 4}, 1, 1.0), w2 = randomTensor(ctx, {6, 5}, 2, 1.0),
                 x = randomTensor(ctx, {4}, 3, 1.0);
  auto [value, grads] = value_and_grad(loss)(w1, w2, x);
  REQUIRE(grads.size() == 3);
  // Central differences on W1.
  auto f = [&](const interp::Tensor &w) { return value_and_grad(loss)(w, w2, x).first.getDouble(0); };
  for (int64_t i = 0; i < w1.getNumElements(); ++i) {
    interp::Tensor plus = w1.clone(), minus = w1.clone();
    plus.setDouble(i, w1.getDouble(i) + 1e-6);
    minus.setDouble(i, w1.getDouble(i) - 1e-6);
    double fd = (f(plus) - f(minus)) / 2e-6;
    CHECK(grads[0].getDouble(i) == Approx(fd).epsilon(1e-6).margin(1e-8));
  }
  // The same gradients, bit for bit, with every layer rematerialized.
  auto remat = [](Tensor W1, Tensor W2, Tensor x) {
    auto cg = checkpoint(g);
    return np::sum(cg(W2, cg(W1, x)));
  };
  std::vector<interp::Tensor> again = grad(remat)(w1, w2, x);
  for (size_t k = 0; k < grads.size(); ++k)
    for (int64_t i = 0; i < grads[k].getNumElements(); ++i)
      CHECK(again[k].getDouble(i) == grads[k].getDouble(i));
}

TEST_CASE("grad of a non-scalar function is an error", "[api][grad]") {
  mlir::MLIRContext ctx;
  interp::Tensor x = randomTensor(ctx, {4}, 1, 1.0);
  CHECK_THROWS_WITH(grad([](Tensor v) { return np::sin(v); })(x),
                    Catch::Contains("must return one scalar float tensor"));
}
