// Finite-difference checks of the VJP rules of elementwise ops, in f64: for a
// random output cotangent ct, the input cotangent of @f_vjp must match central
// differences (step 1e-6) of <ct, f(x)> within 1e-6 * (1 + |vjp|). Inputs stay
// away from non-differentiable points unless a test is about them (ties).
#include "AutodiffUtil.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace autodiff;

namespace {

const std::vector<std::string> kShapes = {"", "5", "3x4", "2x1x3"};

std::string unaryProgram(const std::string &op, const std::string &type) {
  return subst(R"(func.func @f(%x: $T) -> $T {
  %0 = jx.$OP %x : $T
  return %0 : $T
})",
               {{"OP", op}, {"T", type}});
}

/// Checks `op` on every shape with inputs drawn from [lo, hi] (|x| >= minAbs).
void checkUnary(const std::string &op, double lo, double hi, double minAbs = 0.0) {
  uint64_t seed = 7;
  for (const std::string &shape : kShapes) {
    std::string type = tensorType(shape);
    DYNAMIC_SECTION(op << " on " << type) {
      std::mt19937_64 rng(seed);
      GradCheck options;
      options.seed = seed;
      options.inputs = {random(type, rng, lo, hi, minAbs)};
      checkGradients(unaryProgram(op, type), options);
    }
    ++seed;
  }
  // The op inside a chain, its result used twice (cotangents accumulate).
  DYNAMIC_SECTION(op << " in a chain") {
    std::string src = subst(R"(func.func @f(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<4xf64> {
  %0 = jx.$OP %x : tensor<4xf64>
  %1 = jx.mul %0, %w : tensor<4xf64>
  %2 = jx.add %1, %0 : tensor<4xf64>
  return %2 : tensor<4xf64>
})",
                            {{"OP", op}});
    std::mt19937_64 rng(99);
    GradCheck options;
    options.inputs = {random("tensor<4xf64>", rng, lo, hi, minAbs)};
    checkGradients(src, options);
  }
}

std::string binaryProgram(const std::string &op, const std::string &type) {
  return subst(R"(func.func @f(%x: $T, %y: $T) -> $T {
  %0 = jx.$OP %x, %y : $T
  return %0 : $T
})",
               {{"OP", op}, {"T", type}});
}

void checkBinary(const std::string &op, std::pair<double, double> xs, std::pair<double, double> ys,
                 double minAbsY = 0.0) {
  uint64_t seed = 11;
  for (const std::string &shape : kShapes) {
    std::string type = tensorType(shape);
    DYNAMIC_SECTION(op << " on " << type) {
      std::mt19937_64 rng(seed);
      GradCheck options;
      options.inputs = {random(type, rng, xs.first, xs.second),
                        random(type, rng, ys.first, ys.second, minAbsY)};
      checkGradients(binaryProgram(op, type), options);
    }
    ++seed;
  }
  // Only one operand active: the other is a constant.
  DYNAMIC_SECTION(op << " with one active operand") {
    std::string src = subst(R"(func.func @f(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %c = jx.constant dense<[$C]> : tensor<3xf64>
  %0 = jx.$OP %x, %c : tensor<3xf64>
  %1 = jx.$OP %c, %x : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
})",
                            {{"OP", op}, {"C", "1.25, 1.5, 1.75"}});
    std::mt19937_64 rng(5);
    GradCheck options;
    options.inputs = {random("tensor<3xf64>", rng, std::max(xs.first, ys.first),
                             std::min(xs.second, ys.second), minAbsY)};
    checkGradients(src, options);
  }
}

} // namespace

TEST_CASE("vjp of neg", "[autodiff][grad]") { checkUnary("neg", -2, 2); }
TEST_CASE("vjp of sin", "[autodiff][grad]") { checkUnary("sin", -3, 3); }
TEST_CASE("vjp of cos", "[autodiff][grad]") { checkUnary("cos", -3, 3); }
TEST_CASE("vjp of tan", "[autodiff][grad]") { checkUnary("tan", -1.2, 1.2); }
TEST_CASE("vjp of exp", "[autodiff][grad]") { checkUnary("exp", -2, 2); }
TEST_CASE("vjp of log", "[autodiff][grad]") { checkUnary("log", 0.2, 4); }
TEST_CASE("vjp of log1p", "[autodiff][grad]") { checkUnary("log1p", -0.8, 3); }
TEST_CASE("vjp of expm1", "[autodiff][grad]") { checkUnary("expm1", -2, 2); }
TEST_CASE("vjp of erf", "[autodiff][grad]") { checkUnary("erf", -2.5, 2.5); }
TEST_CASE("vjp of erfc", "[autodiff][grad]") { checkUnary("erfc", -2.5, 2.5); }
TEST_CASE("vjp of tanh", "[autodiff][grad]") { checkUnary("tanh", -2.5, 2.5); }
TEST_CASE("vjp of logistic", "[autodiff][grad]") { checkUnary("logistic", -4, 4); }
TEST_CASE("vjp of sqrt", "[autodiff][grad]") { checkUnary("sqrt", 0.2, 4); }
TEST_CASE("vjp of rsqrt", "[autodiff][grad]") { checkUnary("rsqrt", 0.2, 4); }
TEST_CASE("vjp of abs", "[autodiff][grad]") { checkUnary("abs", -2, 2, /*minAbs=*/0.1); }

TEST_CASE("vjp of abs at zero follows JAX: the derivative is 1 for x >= 0", "[autodiff][grad]") {
  auto module = parse(unaryProgram("abs", "tensor<4xf64>"));
  differentiate(*module, false);
  VjpResult r = runVjp(*module, {values("tensor<4xf64>", {0.0, -0.0, 2.0, -3.0})},
                       {values("tensor<4xf64>", {1.5, 1.5, 1.5, 1.5})});
  CHECK(r.gradients[0].getDouble(0) == 1.5);
  CHECK(r.gradients[0].getDouble(1) == 1.5);
  CHECK(r.gradients[0].getDouble(2) == 1.5);
  CHECK(r.gradients[0].getDouble(3) == -1.5);
}

TEST_CASE("vjp of integer_pow", "[autodiff][grad]") {
  for (int y : {0, 1, 2, 3, 5, -1, -2, -3}) {
    for (const std::string &shape : {std::string(), std::string("6"), std::string("2x3")}) {
      std::string type = tensorType(shape);
      DYNAMIC_SECTION("y = " << y << " on " << type) {
        std::string src = subst(R"(func.func @f(%x: $T) -> $T {
  %0 = jx.integer_pow %x, y = $Y : $T
  return %0 : $T
})",
                                {{"T", type}, {"Y", std::to_string(y)}});
        std::mt19937_64 rng(static_cast<uint64_t>(y + 10));
        GradCheck options;
        // Negative powers stay away from the pole at 0.
        options.inputs = {random(type, rng, -1.8, 1.8, y < 0 ? 0.3 : 0.0)};
        VjpResult r = checkGradients(src, options);
        if (y == 0)
          CHECK(allZero(r.gradients[0]));
        if (y == 1)
          CHECK(bitIdentical(r.gradients[0], r.cotangents[0]));
      }
    }
  }
}

TEST_CASE("vjp of add", "[autodiff][grad]") { checkBinary("add", {-2, 2}, {-2, 2}); }
TEST_CASE("vjp of sub", "[autodiff][grad]") { checkBinary("sub", {-2, 2}, {-2, 2}); }
TEST_CASE("vjp of mul", "[autodiff][grad]") { checkBinary("mul", {-2, 2}, {-2, 2}); }
TEST_CASE("vjp of div", "[autodiff][grad]") { checkBinary("div", {-2, 2}, {-2, 2}, 0.3); }
TEST_CASE("vjp of pow", "[autodiff][grad]") { checkBinary("pow", {0.3, 2.5}, {-2, 2}); }
TEST_CASE("vjp of atan2", "[autodiff][grad]") { checkBinary("atan2", {-2, 2}, {0.3, 2}); }

TEST_CASE("vjp of max and min away from ties", "[autodiff][grad]") {
  // The constants 1.25..1.75 are never drawn exactly.
  checkBinary("max", {-2, 2}, {-2, 2});
  checkBinary("min", {-2, 2}, {-2, 2});
}

TEST_CASE("vjp of max and min split the cotangent evenly on ties", "[autodiff][grad]") {
  for (std::string op : {"max", "min"}) {
    DYNAMIC_SECTION(op) {
      auto module = parse(binaryProgram(op, "tensor<4xf64>"));
      differentiate(*module, false);
      Tensor x = values("tensor<4xf64>", {1.0, -2.0, 3.0, 0.5});
      Tensor y = values("tensor<4xf64>", {1.0, 4.0, -3.0, 0.5});
      Tensor ct = values("tensor<4xf64>", {0.5, -1.5, 2.0, 3.0});
      VjpResult r = runVjp(*module, {x, y}, {ct});
      bool isMax = op == "max";
      // Element 0 and 3 tie: half each; 1 goes to y for max (x for min); 2 to x for max.
      std::vector<double> gx = {0.25, isMax ? 0.0 : -1.5, isMax ? 2.0 : 0.0, 1.5};
      std::vector<double> gy = {0.25, isMax ? -1.5 : 0.0, isMax ? 0.0 : 2.0, 1.5};
      for (int i = 0; i < 4; ++i) {
        CHECK(r.gradients[0].getDouble(i) == gx[i]);
        CHECK(r.gradients[1].getDouble(i) == gy[i]);
      }
    }
  }
  SECTION("relu at zero: max(x, 0) with x = 0 passes half the cotangent") {
    auto module = parse(R"(func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %z = jx.constant dense<0.0> : tensor<3xf64>
  %0 = jx.max %x, %z : tensor<3xf64>
  return %0 : tensor<3xf64>
})");
    differentiate(*module, false);
    VjpResult r = runVjp(*module, {values("tensor<3xf64>", {0.0, 2.0, -1.0})},
                         {values("tensor<3xf64>", {4.0, 4.0, 4.0})});
    CHECK(r.gradients[0].getDouble(0) == 2.0);
    CHECK(r.gradients[0].getDouble(1) == 4.0);
    CHECK(r.gradients[0].getDouble(2) == 0.0);
  }
  SECTION("max(x, x) gives the whole cotangent") {
    auto module = parse(R"(func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = jx.max %x, %x : tensor<2xf64>
  return %0 : tensor<2xf64>
})");
    differentiate(*module, false);
    VjpResult r = runVjp(*module, {values("tensor<2xf64>", {0.3, -7.0})},
                         {values("tensor<2xf64>", {1.5, -2.0})});
    CHECK(r.gradients[0].getDouble(0) == 1.5);
    CHECK(r.gradients[0].getDouble(1) == -2.0);
  }
}

TEST_CASE("vjp of binary ops with the same operand twice", "[autodiff][grad]") {
  for (std::string op : {"add", "sub", "mul", "div", "pow", "atan2"}) {
    DYNAMIC_SECTION(op) {
      std::mt19937_64 rng(8);
      GradCheck options;
      options.inputs = {random("tensor<2x2xf64>", rng, 0.3, 2.0)};
      checkGradients(subst(R"(func.func @f(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = jx.$OP %x, %x : tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
})",
                           {{"OP", op}}),
                     options);
    }
  }
}

TEST_CASE("vjp of rem", "[autodiff][grad]") {
  // x / y is kept at least 0.1 away from an integer (rem jumps there).
  std::vector<double> xs = {2.7, -2.7, 0.45, -5.3, 3.9, 1.05};
  std::vector<double> ys = {1.1, 1.1, -0.8, 1.7, -1.2, 0.7};
  for (size_t i = 0; i < xs.size(); ++i) {
    double q = xs[i] / ys[i];
    REQUIRE(std::abs(q - std::round(q)) > 0.1);
  }
  GradCheck options;
  options.inputs = {values("tensor<2x3xf64>", xs), values("tensor<2x3xf64>", ys)};
  checkGradients(binaryProgram("rem", "tensor<2x3xf64>"), options);
  options.inputs = {values("tensor<f64>", {-5.3}), values("tensor<f64>", {1.7})};
  checkGradients(binaryProgram("rem", "tensor<f64>"), options);
}

TEST_CASE("vjp of select_n", "[autodiff][grad]") {
  SECTION("boolean selector from a comparison") {
    checkGradients(R"(func.func @f(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %p = jx.gt %a, %b : tensor<2x3xf64>
  %s = jx.sin %a : tensor<2x3xf64>
  %0 = jx.select_n %p, %s, %b : tensor<2x3xi1>, tensor<2x3xf64>, tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})");
  }
  SECTION("i32 selector with three cases; the selector argument gets a zero cotangent") {
    std::mt19937_64 rng(3);
    GradCheck options;
    options.inputs = {values("tensor<5xi32>", {0, 2, 1, 2, 0}), random("tensor<5xf64>", rng),
                      random("tensor<5xf64>", rng), random("tensor<5xf64>", rng)};
    VjpResult r = checkGradients(
        R"(func.func @f(%w: tensor<5xi32>, %a: tensor<5xf64>, %b: tensor<5xf64>, %c: tensor<5xf64>) -> tensor<5xf64> {
  %0 = jx.select_n %w, %a, %b, %c : tensor<5xi32>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>
  return %0 : tensor<5xf64>
})",
        options);
    // Each case gets the cotangent exactly where it is chosen, zero elsewhere.
    for (int k = 0; k < 5; ++k)
      for (int c = 0; c < 3; ++c)
        CHECK(r.gradients[1 + c].getDouble(k) ==
              (options.inputs[0].getInt(k) == c ? r.cotangents[0].getDouble(k) : 0.0));
  }
  SECTION("scalar selector, tensor cases, the selector computed from the input") {
    checkGradients(R"(func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>, %t: tensor<f64>) -> tensor<3xf64> {
  %z = jx.constant dense<0.0> : tensor<f64>
  %p = jx.lt %t, %z : tensor<f64>
  %c = jx.cos %b : tensor<3xf64>
  %0 = jx.select_n %p, %a, %c : tensor<i1>, tensor<3xf64>, tensor<3xf64>
  return %0 : tensor<3xf64>
})");
  }
  SECTION("one case") {
    checkGradients(R"(func.func @f(%a: tensor<3xf64>) -> tensor<3xf64> {
  %p = jx.constant dense<0> : tensor<3xi32>
  %0 = jx.select_n %p, %a : tensor<3xi32>, tensor<3xf64>
  %1 = jx.sin %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
})");
  }
  SECTION("scalar selector, scalar cases") {
    GradCheck options;
    options.inputs = {values("tensor<i1>", {1})};
    checkGradients(R"(func.func @f(%p: tensor<i1>, %a: tensor<f64>, %b: tensor<f64>) -> tensor<f64> {
  %m = jx.mul %a, %b : tensor<f64>
  %0 = jx.select_n %p, %a, %m : tensor<i1>, tensor<f64>, tensor<f64>
  return %0 : tensor<f64>
})",
                   options);
  }
}

TEST_CASE("vjp of convert_element_type", "[autodiff][grad]") {
  // f64 -> f32 -> f64 around a square; inputs and the step are multiples of
  // 1/64 so that f32 holds them exactly, and the central difference of a
  // square is exact. The backward multiplies in f32 (the cotangent is
  // rounded to f32 there), hence an f32-sized tolerance.
  std::vector<double> xs = {0.25, -1.5, 0.015625, 1.984375, -0.5};
  GradCheck options;
  options.inputs = {values("tensor<5xf64>", xs)};
  options.step = 1.0 / 64;
  options.tolerance = 1e-6;
  VjpResult r = checkGradients(R"(func.func @f(%x: tensor<5xf64>) -> tensor<5xf64> {
  %0 = jx.convert_element_type %x : tensor<5xf64> -> tensor<5xf32>
  %1 = jx.mul %0, %0 : tensor<5xf32>
  %2 = jx.convert_element_type %1 : tensor<5xf32> -> tensor<5xf64>
  return %2 : tensor<5xf64>
})",
                               options);
  REQUIRE(r.gradients[0].getElementType().isF64());
}

TEST_CASE("integer arguments get zero cotangents", "[autodiff][grad]") {
  GradCheck options;
  options.inputs = {values("tensor<3xf64>", {0.5, -1.0, 2.0}), values("tensor<3xi32>", {3, -2, 7}),
                    values("tensor<i64>", {4})};
  VjpResult r = checkGradients(
      R"(func.func @f(%x: tensor<3xf64>, %n: tensor<3xi32>, %m: tensor<i64>) -> (tensor<3xf64>, tensor<3xi32>) {
  %0 = jx.convert_element_type %n : tensor<3xi32> -> tensor<3xf64>
  %1 = jx.mul %x, %0 : tensor<3xf64>
  %2 = jx.convert_element_type %m : tensor<i64> -> tensor<f64>
  %3 = jx.broadcast_in_dim %2, dims = [] : tensor<f64> -> tensor<3xf64>
  %4 = jx.add %1, %3 : tensor<3xf64>
  %5 = jx.add %n, %n : tensor<3xi32>
  return %4, %5 : tensor<3xf64>, tensor<3xi32>
})",
      options);
  CHECK(r.gradients[1].getElementType().isInteger(32));
  CHECK(r.gradients[2].getElementType().isInteger(64));
  CHECK(allZero(r.gradients[1]));
  CHECK(allZero(r.gradients[2]));
  // d(x * n)/dx = n exactly.
  for (int k = 0; k < 3; ++k)
    CHECK(r.gradients[0].getDouble(k) ==
          r.cotangents[0].getDouble(k) * static_cast<double>(options.inputs[1].getInt(k)));
}

TEST_CASE("zero-gradient ops give exact zeros", "[autodiff][grad]") {
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"sign", "%0 = jx.sign %x : tensor<2x3xf64>"},
      {"floor", "%0 = jx.floor %x : tensor<2x3xf64>"},
      {"ceil", "%0 = jx.ceil %x : tensor<2x3xf64>"},
      {"stop_gradient", "%0 = jx.stop_gradient %x : tensor<2x3xf64>"},
      {"lt", "%c = jx.lt %x, %y : tensor<2x3xf64>\n"
             "  %0 = jx.convert_element_type %c : tensor<2x3xi1> -> tensor<2x3xf64>"},
      {"ge", "%c = jx.ge %x, %y : tensor<2x3xf64>\n"
             "  %0 = jx.convert_element_type %c : tensor<2x3xi1> -> tensor<2x3xf64>"},
      {"eq+ne", "%c = jx.eq %x, %y : tensor<2x3xf64>\n"
                "  %d = jx.ne %x, %x : tensor<2x3xf64>\n"
                "  %e = jx.or %c, %d : tensor<2x3xi1>\n"
                "  %0 = jx.convert_element_type %e : tensor<2x3xi1> -> tensor<2x3xf64>"},
      {"argmax", "%a = jx.argmax %x, axis = 1 : tensor<2x3xf64> -> tensor<2xi32>\n"
                 "  %f = jx.convert_element_type %a : tensor<2xi32> -> tensor<2xf64>\n"
                 "  %0 = jx.broadcast_in_dim %f, dims = [0] : tensor<2xf64> -> tensor<2x3xf64>"},
  };
  for (auto &[name, body] : programs) {
    DYNAMIC_SECTION(name) {
      std::string src = subst(R"(func.func @f(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> {
  $BODY
  return %0 : tensor<2x3xf64>
})",
                              {{"BODY", body}});
      std::mt19937_64 rng(17);
      GradCheck options;
      // Away from integers (floor/ceil) and from 0 (sign); x != y.
      options.inputs = {values("tensor<2x3xf64>", {0.3, -1.6, 2.4, -0.7, 1.2, -2.2}),
                        values("tensor<2x3xf64>", {0.9, -2.1, 1.4, 0.6, 1.25, -3.0})};
      options.finiteDifferences = name != "stop_gradient";
      VjpResult r = checkGradients(src, options);
      CHECK(allZero(r.gradients[0]));
      CHECK(allZero(r.gradients[1]));
    }
  }
  SECTION("stop_gradient stops one path only") {
    GradCheck options;
    options.finiteDifferences = false;
    VjpResult r = checkGradients(R"(func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = jx.stop_gradient %x : tensor<3xf64>
  %0 = jx.mul %x, %s : tensor<3xf64>
  return %0 : tensor<3xf64>
})",
                                 options);
    // d/dx (x * sg(x)) = x.
    for (int k = 0; k < 3; ++k)
      CHECK(r.gradients[0].getDouble(k) == r.cotangents[0].getDouble(k) * r.inputs[0].getDouble(k));
  }
}
