//===- MathAccuracyTest.cpp - compiled f32 math against libm -------------===//
//
// The CPU pipeline computes f32 tanh, exp, expm1, log, log1p, logistic, erf,
// erfc and atan2 by polynomial approximations (jx-approximate-math); sin and cos stay
// libm calls.
// Each is run compiled over its range, sampled densely (uniformly, and
// log-uniformly in magnitude where the range spans many binades, plus the
// edges), and compared with the correctly rounded value (libm in double,
// rounded to float): the largest distance in units in the last place must
// stay within the bound docs/lowering.md states. f64 still calls libm, so it
// is exact against the interpreter (OpsTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "Compare.h"

#include <bit>
#include <cstdint>
#include <functional>
#include <limits>

using namespace cotangent;
using namespace cotangent::test;

namespace {

/// Distance between two floats in representable values (0 when equal; NaN
/// against NaN is 0, NaN against a number the largest distance).
int64_t ulpDistance(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<int64_t>::max();
  auto ordered = [](float f) {
    int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? int64_t(std::numeric_limits<int32_t>::min()) - i : int64_t(i);
  };
  return std::abs(ordered(a) - ordered(b));
}

struct Range {
  double lo, hi;
  bool logScale = false; ///< sample |x| log-uniformly in [lo, hi], both signs if `signed`
  bool bothSigns = false;
};

std::vector<double> samples(const Range &r, unsigned seed, size_t n) {
  std::mt19937 rng(seed);
  std::vector<double> xs = {r.lo, r.hi};
  if (r.lo <= 0 && r.hi >= 0)
    xs.push_back(0.0);
  while (xs.size() < n) {
    double x;
    if (r.logScale) {
      double e = std::uniform_real_distribution<double>(std::log(r.lo), std::log(r.hi))(rng);
      x = std::exp(e);
      if (r.bothSigns && (rng() & 1))
        x = -x;
    } else {
      x = std::uniform_real_distribution<double>(r.lo, r.hi)(rng);
    }
    xs.push_back(static_cast<float>(x));
  }
  return xs;
}

/// Compiled `jx.<op>` over `xs` (and `ys` for a binary op), in f32.
std::vector<double> compiledValues(const std::string &op, const std::vector<double> &xs,
                                   const std::vector<double> *ys = nullptr) {
  std::string n = std::to_string(xs.size());
  std::string t = "tensor<" + n + "xf32>";
  std::string body = ys ? "  %0 = jx." + op + " %x, %y : " + t + "\n"
                        : "  %0 = jx." + op + " %x : " + t + "\n";
  std::string text = "func.func @f(%x: " + t + (ys ? ", %y: " + t : std::string()) + ") -> " +
                     t + " {\n" + body + "  return %0 : " + t + "\n}\n";
  auto module = parse(text);
  auto compiled = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(compiled));
  auto type = mlir::RankedTensorType::get({int64_t(xs.size())},
                                          mlir::Float32Type::get(&context()));
  std::vector<Tensor> args = {Tensor::fromDoubles(type, xs)};
  if (ys)
    args.push_back(Tensor::fromDoubles(type, *ys));
  auto got = (*compiled)->call("f", args);
  REQUIRE(mlir::succeeded(got));
  std::vector<double> out(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    out[i] = got->results[0].getDouble(i);
  return out;
}

/// The largest ulp distance of compiled @f over `xs` (and `ys` for a binary op).
int64_t maxUlp(const std::string &op, const std::function<double(double, double)> &ref,
               const std::vector<double> &xs, const std::vector<double> *ys) {
  std::vector<double> got = compiledValues(op, xs, ys);
  int64_t worst = 0;
  double worstX = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    // The reference reads the float the compiled code reads.
    double x = static_cast<float>(xs[i]), y = ys ? static_cast<float>((*ys)[i]) : 0.0;
    float want = static_cast<float>(ref(x, y));
    float have = static_cast<float>(got[i]);
    int64_t d = ulpDistance(have, want);
    if (d > worst) {
      worst = d;
      worstX = xs[i];
    }
  }
  UNSCOPED_INFO(op << ": at most " << worst << " ulp (worst at x = " << worstX << ")");
  return worst;
}

struct Case {
  std::string op;
  std::function<double(double, double)> ref;
  Range range;
  int64_t bound; ///< the ulp bound docs/lowering.md states
};

} // namespace

TEST_CASE("compiled f32 transcendental functions stay within their ulp bounds of libm",
          "[cpu][math]") {
  auto unary = [](double (*f)(double)) {
    return [f](double x, double) { return f(x); };
  };
  // Approximated (jx-approximate-math): the bounds of docs/lowering.md.
  // Still libm (sin, cos): within 1 ulp.
  std::vector<Case> cases = {
      {"tanh", unary(std::tanh), {-10, 10}, 4},
      {"tanh", unary(std::tanh), {1e-30, 10, true, true}, 4},
      {"exp", unary(std::exp), {-87, 88}, 1},
      {"expm1", unary(std::expm1), {-20, 20}, 2},
      {"expm1", unary(std::expm1), {1e-30, 20, true, true}, 2},
      {"log", unary(std::log), {1e-37, 3e38, true}, 1},
      {"logistic", [](double x, double) { return 1 / (1 + std::exp(-x)); }, {-80, 80}, 2},
      {"log1p", unary(std::log1p), {-0.999, 10}, 2},
      {"log1p", unary(std::log1p), {1e-30, 1e30, true}, 2},
      {"erf", unary(std::erf), {-6, 6}, 4},
      {"erf", unary(std::erf), {1e-30, 6, true, true}, 4},
      // erfc's results are normal floats up to x = 9.19 (the tail is below).
      {"erfc", unary(std::erfc), {-6, 9.19}, 2},
      {"erfc", unary(std::erfc), {1e-30, 9.19, true, true}, 2},
      {"sin", unary(std::sin), {-1e4, 1e4}, 1},
      {"cos", unary(std::cos), {-1e4, 1e4}, 1},
  };
  for (const Case &c : cases) {
    INFO(c.op << " over [" << c.range.lo << ", " << c.range.hi << "]");
    std::vector<double> xs = samples(c.range, 7, 100000);
    CHECK(maxUlp(c.op, c.ref, xs, nullptr) <= c.bound);
  }
  // erfc's subnormal tail: counted in ulps of subnormals the approximation
  // is off by up to ~4e5 of them, but its absolute error stays below 1e-39.
  std::vector<double> tail = samples({9.19, 11}, 7, 100000);
  std::vector<double> tailValues = compiledValues("erfc", tail);
  double worstTail = 0;
  for (size_t i = 0; i < tail.size(); ++i)
    worstTail = std::max(worstTail,
                         std::abs(tailValues[i] - std::erfc(static_cast<float>(tail[i]))));
  CHECK(worstTail < 1e-39);

  std::vector<double> ys = samples({1e-20, 1e20, true, true}, 8, 100000);
  std::vector<double> xs = samples({1e-20, 1e20, true, true}, 9, 100000);
  CHECK(maxUlp("atan2", [](double y, double x) { return std::atan2(y, x); }, xs, &ys) <= 1);
}
