// np::einsum: each spec equals the same contraction written with dot,
// matmul, transpose and sum (f64), its gradient matches central differences
// (f64; and f32 through OpCheck), and jit(grad) agrees with the interpreter
// (f32 within the interpreter's derived bound; f64 through OpCheck).
// Bad specs name the spec and the operands.
#include "tracer/Jit.h"

#include "Interpret.h"
#include "OpCheck.h"
#include "RandomTensor.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

using namespace cotangent;

namespace {

using Operands = std::vector<Tensor>;

struct Case {
  std::string spec;
  std::vector<Shape> shapes;
  std::function<Tensor(const Operands &)> reference; // the same in other ops
};

std::vector<Case> cases() {
  return {
      {"ij,jk->ik", {{3, 4}, {4, 5}}, [](const Operands &o) { return np::dot(o[0], o[1]); }},
      {"ij,jk", {{3, 4}, {4, 5}}, [](const Operands &o) { return np::dot(o[0], o[1]); }},
      {"ij,kj->ki", {{3, 4}, {5, 4}},
       [](const Operands &o) { return np::dot(o[1], np::transpose(o[0])); }},
      {"i,i->", {{6}, {6}}, [](const Operands &o) { return np::sum(o[0] * o[1]); }},
      {"i,j->ij", {{3}, {4}},
       [](const Operands &o) { return np::expand_dims(o[0], {1}) * np::expand_dims(o[1], {0}); }},
      {"ij->ji", {{3, 4}}, [](const Operands &o) { return np::transpose(o[0]); }},
      {"ijk->ik", {{2, 3, 4}}, [](const Operands &o) { return np::sum(o[0], {1}); }},
      {"ij->", {{3, 4}}, [](const Operands &o) { return np::sum(o[0]); }},
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}},
       [](const Operands &o) { return np::matmul(o[0], o[1]); }},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}},
       [](const Operands &o) { return np::dot(np::dot(o[0], o[1]), o[2]); }},
      {"ij,ik->j", {{3, 4}, {3, 5}},
       [](const Operands &o) { return np::sum(np::dot(np::transpose(o[0]), o[1]), {1}); }},
      // Flax's attention: scores, then the weighted values.
      {"...qhd,...khd->...hqk", {{2, 5, 3, 4}, {2, 6, 3, 4}},
       [](const Operands &o) {
         return np::matmul(np::transpose(o[0], {0, 2, 1, 3}), np::transpose(o[1], {0, 2, 3, 1}));
       }},
      {"...hqk,...khd->...qhd", {{2, 3, 5, 6}, {2, 6, 3, 4}},
       [](const Operands &o) {
         return np::transpose(np::matmul(o[0], np::transpose(o[1], {0, 2, 1, 3})), {0, 2, 1, 3});
       }},
  };
}

std::vector<interp::Tensor> inputs(mlir::MLIRContext &ctx, const Case &c, unsigned seed) {
  std::vector<interp::Tensor> out;
  for (const Shape &s : c.shapes)
    out.push_back(randomTensor(ctx, s, seed++));
  return out;
}

interp::Tensor asF32(mlir::MLIRContext &ctx, const interp::Tensor &t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    v.push_back(t.getDouble(i));
  return interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get(t.getShape(), mlir::Float32Type::get(&ctx)), v);
}

} // namespace

TEST_CASE("einsum equals the contraction written out", "[einsum]") {
  mlir::MLIRContext ctx;
  for (const Case &c : cases()) {
    INFO(c.spec);
    std::vector<interp::Tensor> args = inputs(ctx, c, 1);
    auto viaEinsum = [&](std::vector<Tensor> o) { return np::einsum(c.spec, o); };
    auto written = [&](std::vector<Tensor> o) { return c.reference(o); };
    interp::Tensor got = interpret(ctx, viaEinsum, args).at(0);
    interp::Tensor want = interpret(ctx, written, args).at(0);
    REQUIRE(got.getType() == want.getType());
    for (int64_t i = 0; i < want.getNumElements(); ++i)
      CHECK(got.getDouble(i) == Approx(want.getDouble(i)).epsilon(1e-12).margin(1e-12));
  }
}

TEST_CASE("einsum gradients: central differences (f64), compiled = interpreted (f32)",
          "[einsum][grad][numerics]") {
  mlir::MLIRContext ctx;
  for (const Case &c : cases()) {
    INFO(c.spec);
    std::vector<interp::Tensor> args = inputs(ctx, c, 7);
    // A loss that weighs every output element differently.
    auto loss = [&](std::vector<Tensor> o) {
      Tensor y = np::einsum(c.spec, o);
      Tensor w = np::reshape(np::sin(np::arange(0, y.size()) * 0.7 + 0.3), y.shape());
      return np::sum(y * w);
    };
    std::vector<interp::Tensor> g = grad(loss)(args);
    const double h = 1e-6;
    for (size_t k = 0; k < args.size(); ++k)
      for (int64_t i = 0; i < args[k].getNumElements(); ++i) {
        auto at = [&](double delta) {
          std::vector<interp::Tensor> moved = args;
          std::vector<double> v;
          for (int64_t j = 0; j < args[k].getNumElements(); ++j)
            v.push_back(args[k].getDouble(j) + (j == i ? delta : 0.0));
          moved[k] = interp::Tensor::fromDoubles(args[k].getType(), v);
          return interpret(ctx, loss, moved).at(0).getDouble(0);
        };
        CHECK(g[k].getDouble(i) == Approx((at(h) - at(-h)) / (2 * h)).epsilon(1e-6).margin(1e-8));
      }

    std::vector<interp::Tensor> args32;
    for (const interp::Tensor &a : args)
      args32.push_back(asF32(ctx, a));
    std::vector<interp::Tensor> compiled = jit(grad(loss))(args32);
    test::requireAllWithinBounds(compiled, test::boundedValueAndGrad(loss, args32), 1);
  }
}

TEST_CASE("einsum through OpCheck: f32 gradients and compiled f64 ones too", "[einsum][numerics]") {
  // A Gram matrix (x against itself, so both operands' cotangents add up)
  // and a reduction over rows, on the 3 x 5 input of OpCheck.
  test::check([](Tensor x) { return np::einsum("ij,kj->ik", {x, x}); },
              [](auto &x, int64_t r, int64_t c) {
                std::vector<double> out(r * r, 0.0);
                for (int64_t i = 0; i < r; ++i)
                  for (int64_t k = 0; k < r; ++k)
                    for (int64_t j = 0; j < c; ++j)
                      out[i * r + k] += x[i * c + j] * x[k * c + j];
                return out;
              });
  test::check([](Tensor x) { return np::einsum("ij->j", {np::sin(x)}); },
              [](auto &x, int64_t r, int64_t c) {
                std::vector<double> out(c, 0.0);
                for (int64_t i = 0; i < r; ++i)
                  for (int64_t j = 0; j < c; ++j)
                    out[j] += std::sin(x[i * c + j]);
                return out;
              });
}

TEST_CASE("bad einsum specs name the spec and the operands", "[einsum][errors]") {
  mlir::MLIRContext ctx;
  interp::Tensor a = randomTensor(ctx, {3, 4}, 1), b = randomTensor(ctx, {5, 6}, 2);
  auto run = [&](const std::string &spec, std::vector<interp::Tensor> args) {
    auto f = [&](std::vector<Tensor> o) { return np::einsum(spec, o); };
    return interpret(ctx, f, args);
  };
  CHECK_THROWS_WITH(run("ij,jk->ik", {a, b}),
                    Catch::Contains("einsum: 'ij,jk->ik': 'j' is 4 in one operand and 5 in another") &&
                        Catch::Contains("f64[3,4]") && Catch::Contains("f64[5,6]"));
  CHECK_THROWS_WITH(run("ij,kl->iz", {a, b}), Catch::Contains("the output's 'z' is in no operand"));
  CHECK_THROWS_WITH(run("ii", {a}), Catch::Contains("'i' repeats within one term"));
  CHECK_THROWS_WITH(run("ij,kl", {a}), Catch::Contains("2 operand terms for 1 operands"));
  CHECK_THROWS_WITH(run("ijk", {a}), Catch::Contains("term 'ijk' does not fit operand 0 of rank 2"));
  CHECK_THROWS_WITH(run("i1", {a}), Catch::Contains("'1' is not a letter"));
  CHECK_THROWS_WITH(run("ij->ii", {a}), Catch::Contains("the output repeats 'i'"));
}
