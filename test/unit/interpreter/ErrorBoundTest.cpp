// runWithErrorBounds: each rule against its formula, the cases where a
// rounding may change a decision (comparisons, select, cond, while), and the
// property every compiled-vs-interpreter test rests on: another conforming
// evaluation -- the same program in f64 -- lands within the bound of the f32
// reference, while a result moved by more than its bound is reported.
#include "runtime/interpreter/ErrorBound.h"
#include "runtime/interpreter/Interpreter.h"
#include "runtime/interpreter/Ops.h"

#include "dialects/jx/JxOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace cotangent::interp;
using namespace mlir;

namespace {

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registry.insert<jx::JxDialect, func::FuncDialect>();
    return new MLIRContext(registry);
  }();
  return *ctx;
}

OwningOpRef<ModuleOp> parse(const std::string &text) {
  auto module = parseSourceString<ModuleOp>(text, &context());
  REQUIRE(module);
  return module;
}

Tensor values(RankedTensorType type, const std::vector<double> &v) { return Tensor::fromDoubles(type, v); }

std::vector<BoundedTensor> bounded(ModuleOp module, const std::string &name, std::vector<Tensor> args) {
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  REQUIRE(fn);
  auto out = runWithErrorBounds(fn, args);
  REQUIRE(succeeded(out));
  return *out;
}

double bound(const BoundedTensor &t, int64_t i = 0) {
  return reinterpret_cast<const double *>(t.bound.data())[i];
}

/// Seeded f32/f64 arguments of `fn`'s types in [-1, 1).
std::vector<Tensor> randomArgs(func::FuncOp fn, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<Tensor> args;
  for (Type t : fn.getArgumentTypes()) {
    auto type = cast<RankedTensorType>(t);
    std::vector<double> v(type.getNumElements());
    for (double &x : v)
      x = dist(rng);
    args.push_back(Tensor::fromDoubles(type, v));
  }
  return args;
}

const char *kMlpGrad = R"mlir(
func.func @mlp(%w1: tensor<16x32xf32>, %w2: tensor<32x8xf32>, %x: tensor<64x16xf32>, %g: tensor<64x8xf32>) -> (tensor<f32>, tensor<16x32xf32>, tensor<32x8xf32>) {
  %h = jx.dot_general %x, %w1, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x16xf32>, tensor<16x32xf32> -> tensor<64x32xf32>
  %a = jx.tanh %h : tensor<64x32xf32>
  %y = jx.dot_general %a, %w2, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<64x32xf32>, tensor<32x8xf32> -> tensor<64x8xf32>
  %e = jx.sub %y, %g : tensor<64x8xf32>
  %sq = jx.mul %e, %e : tensor<64x8xf32>
  %loss = jx.reduce_sum %sq, axes = [0, 1] : tensor<64x8xf32> -> tensor<f32>
  %dw2 = jx.dot_general %a, %e, contracting_dims = [0] x [0], batch_dims = [] x [] : tensor<64x32xf32>, tensor<64x8xf32> -> tensor<32x8xf32>
  %da = jx.dot_general %e, %w2, contracting_dims = [1] x [1], batch_dims = [] x [] : tensor<64x8xf32>, tensor<32x8xf32> -> tensor<64x32xf32>
  %a2 = jx.mul %a, %a : tensor<64x32xf32>
  %one = jx.constant dense<1.0> : tensor<64x32xf32>
  %d = jx.sub %one, %a2 : tensor<64x32xf32>
  %dh = jx.mul %da, %d : tensor<64x32xf32>
  %dw1 = jx.dot_general %x, %dh, contracting_dims = [0] x [0], batch_dims = [] x [] : tensor<64x16xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  return %loss, %dw1, %dw2 : tensor<f32>, tensor<16x32xf32>, tensor<32x8xf32>
}
)mlir";

/// `text` with every f32 made f64: the same program, evaluated closer to
/// exactly.
std::string inDouble(std::string text) {
  for (size_t at = text.find("f32"); at != std::string::npos; at = text.find("f32", at))
    text.replace(at, 3, "f64");
  return text;
}

} // namespace

TEST_CASE("a sum is bounded by gamma_n of its magnitude for both evaluations", "[interpreter][bound]") {
  auto module = parse(R"mlir(
func.func @sum(%x: tensor<1000xf32>) -> tensor<f32> {
  %0 = jx.reduce_sum %x, axes = [0] : tensor<1000xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
)mlir");
  auto type = RankedTensorType::get({1000}, Float32Type::get(&context()));
  std::vector<double> v(1000);
  double magnitude = 0, sum = 0;
  for (int i = 0; i < 1000; ++i) {
    v[i] = (i % 2 ? -1.0 : 1.0) * (1 + i / 1000.0);
    magnitude += std::abs(static_cast<float>(v[i]));
    sum += static_cast<float>(v[i]);
  }
  auto out = bounded(*module, "sum", {values(type, v)});
  double u = 0x1p-24, gamma = 1000 * u / (1 - 1000 * u);
  float y = static_cast<float>(sum);
  // Twice gamma_n of the magnitude, then each evaluation's final rounding.
  double expected = 2 * gamma * magnitude;
  expected += 2 * (u * std::abs(y) + u * expected + 0x1p-126);
  CHECK(out[0].value.getDouble(0) == y);
  CHECK(bound(out[0]) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("a dot of exact operands is bounded by gamma_k of sum |a||b|", "[interpreter][bound]") {
  auto module = parse(R"mlir(
func.func @dot(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)mlir");
  auto f32 = Float32Type::get(&context());
  auto out = bounded(*module, "dot",
                     {values(RankedTensorType::get({2, 3}, f32), {1, -2, 3, 0.5, 0.25, -4}),
                      values(RankedTensorType::get({3}, f32), {2, 1, -1})});
  double u = 0x1p-24, gamma = 3 * u / (1 - 3 * u);
  for (auto [row, magnitude, y] : {std::tuple{0, 2.0 + 2 + 3, -3.0}, std::tuple{1, 1 + 0.25 + 4, 5.25}}) {
    double expected = 2 * gamma * magnitude;
    expected += 2 * (u * std::abs(y) + u * expected + 0x1p-126);
    CHECK(out[0].value.getDouble(row) == y);
    CHECK(bound(out[0], row) == Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("an elementwise function moves its operand's bound by its slope", "[interpreter][bound]") {
  auto module = parse(R"mlir(
func.func @f(%x: tensor<1000xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %s = jx.reduce_sum %x, axes = [0] : tensor<1000xf32> -> tensor<f32>
  %e = jx.exp %s : tensor<f32>
  %n = jx.neg %s : tensor<f32>
  return %s, %e, %n : tensor<f32>, tensor<f32>, tensor<f32>
}
)mlir");
  auto type = RankedTensorType::get({1000}, Float32Type::get(&context()));
  auto out = bounded(*module, "f", {values(type, std::vector<double>(1000, 0.001))});
  double ds = bound(out[0]), s = out[0].value.getDouble(0);
  REQUIRE(ds > 0);
  // exp over [s - ds, s + ds]: its larger end, plus exp's rounding (2 ulp:
  // 5 u) for both evaluations.
  double spread = std::exp(s + ds) - std::exp(s);
  double y = out[1].value.getDouble(0);
  double expected = spread + 2 * (5 * 0x1p-24 * (std::abs(y) + spread) + 0x1p-126);
  CHECK(bound(out[1]) == Approx(expected).epsilon(1e-9));
  // neg is exact: the bound passes through.
  CHECK(bound(out[2]) == Approx(ds).epsilon(1e-8));
}

TEST_CASE("a comparison the rounding may flip makes a select take either case", "[interpreter][bound]") {
  auto module = parse(R"mlir(
func.func @f(%x: tensor<1000xf32>, %t: tensor<f32>, %a: tensor<f32>, %b: tensor<f32>) -> (tensor<i1>, tensor<f32>, tensor<i1>, tensor<f32>) {
  %s = jx.reduce_sum %x, axes = [0] : tensor<1000xf32> -> tensor<f32>
  %near = jx.gt %s, %t : tensor<f32>
  %pick = jx.select_n %near, %a, %b : tensor<i1>, tensor<f32>, tensor<f32>
  %far = jx.gt %s, %a : tensor<f32>
  %sure = jx.select_n %far, %a, %b : tensor<i1>, tensor<f32>, tensor<f32>
  return %near, %pick, %far, %sure : tensor<i1>, tensor<f32>, tensor<i1>, tensor<f32>
}
)mlir");
  auto f32 = Float32Type::get(&context());
  auto scalar = RankedTensorType::get({}, f32);
  auto out = bounded(*module, "f",
                     {values(RankedTensorType::get({1000}, f32), std::vector<double>(1000, 0.1)),
                      values(scalar, {100.0}), values(scalar, {-7}), values(scalar, {5})});
  // The sum is 100 within its bound: `near` may come out either way.
  CHECK(bound(out[0]) == 1);
  CHECK(bound(out[1]) == 12); // |5 - (-7)|: the other case
  // -7 is far below it: decided, and the select exact.
  CHECK(bound(out[2]) == 0);
  CHECK(bound(out[3]) == 0);
}

TEST_CASE("control flow: an unsure branch takes every branch, an unsure loop is unbounded",
          "[interpreter][bound]") {
  auto module = parse(R"mlir(
func.func @branch(%x: tensor<1000xf32>, %t: tensor<f32>) -> tensor<f32> {
  %s = jx.reduce_sum %x, axes = [0] : tensor<1000xf32> -> tensor<f32>
  %p = jx.gt %s, %t : tensor<f32>
  %r = jx.cond %p (%s) : tensor<i1>, (tensor<f32>) -> tensor<f32> {
  ^bb0(%a: tensor<f32>):
    %n = jx.neg %a : tensor<f32>
    jx.yield %n : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>):
    jx.yield %a : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @loop(%x: tensor<1000xf32>, %t: tensor<f32>) -> tensor<f32> {
  %s = jx.reduce_sum %x, axes = [0] : tensor<1000xf32> -> tensor<f32>
  %r, %q = jx.while (%s, %t) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) cond {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = jx.gt %a, %b : tensor<f32>
    jx.yield %p : tensor<i1>
  } do {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %h = jx.constant dense<0.5> : tensor<f32>
    %n = jx.mul %a, %h : tensor<f32>
    jx.yield %n, %b : tensor<f32>, tensor<f32>
  }
  return %r : tensor<f32>
}
)mlir");
  auto f32 = Float32Type::get(&context());
  auto scalar = RankedTensorType::get({}, f32);
  auto x = values(RankedTensorType::get({1000}, f32), std::vector<double>(1000, 0.1));
  auto sure = bounded(*module, "branch", {x, values(scalar, {-1})});
  CHECK(bound(sure[0]) < 1e-3 * std::abs(sure[0].value.getDouble(0)));
  auto unsure = bounded(*module, "branch", {x, values(scalar, {100})});
  // The result is s or -s: 2 s apart, plus the sum's own bound.
  CHECK(bound(unsure[0]) >= 2 * std::abs(unsure[0].value.getDouble(0)));
  CHECK(std::isfinite(bound(unsure[0])));

  // Halving a sum of about 100 until it is below 1: no test is close.
  auto halved = bounded(*module, "loop", {x, values(scalar, {1})});
  CHECK(bound(halved[0]) < 1e-3 * std::abs(halved[0].value.getDouble(0)));
  // The first test compares that sum with 100 itself: the trip count is open.
  CHECK(std::isinf(bound(bounded(*module, "loop", {x, values(scalar, {100})})[0])));
}

TEST_CASE("a scan carries its bound through every trip", "[interpreter][bound]") {
  auto module = parse(R"mlir(
func.func @scan(%w: tensor<4x4xf32>, %h0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  %c, %ys = jx.scan (%w, %h0, %xs) length = 6, consts = 1, carry = 1
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {
  ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.add %0, %x : tensor<4xf32>
    %2 = jx.tanh %1 : tensor<4xf32>
    jx.yield %2, %2 : tensor<4xf32>, tensor<4xf32>
  }
  return %c, %ys : tensor<4xf32>, tensor<6x4xf32>
}
)mlir");
  auto fn = module->lookupSymbol<func::FuncOp>("scan");
  auto out = bounded(*module, "scan", randomArgs(fn, 3));
  // Each trip's ys row bounds at least the one before it (the carry feeds
  // it), and the last row is the carry.
  for (int64_t k = 0; k < 4; ++k) {
    CHECK(bound(out[1], k) > 0);
    CHECK(bound(out[1], 5 * 4 + k) == bound(out[0], k));
  }
  double first = 0, last = 0;
  for (int64_t k = 0; k < 4; ++k) {
    first += bound(out[1], k);
    last += bound(out[1], 5 * 4 + k);
  }
  CHECK(last > first);
}

TEST_CASE("the same program in f64 is within the bound of the f32 reference", "[interpreter][bound]") {
  auto single = parse(kMlpGrad);
  auto twice = parse(inDouble(kMlpGrad));
  auto fn32 = single->lookupSymbol<func::FuncOp>("mlp");
  auto fn64 = twice->lookupSymbol<func::FuncOp>("mlp");
  for (unsigned seed : {1u, 2u, 3u}) {
    std::vector<Tensor> args32 = randomArgs(fn32, seed), args64;
    for (const Tensor &a : args32)
      args64.push_back(convertElementTypeOp(a, Float64Type::get(&context())));
    auto want = runWithErrorBounds(fn32, args32);
    auto other = run(fn64, args64);
    REQUIRE(succeeded(want));
    REQUIRE(succeeded(other));
    for (size_t r = 0; r < want->size(); ++r) {
      INFO("seed " << seed << ", result " << r);
      // The f64 values rounded to f32: another evaluation of the program.
      Tensor got = convertElementTypeOp((*other)[r], Float32Type::get(&context()));
      std::optional<std::string> outside = outsideBound(got, (*want)[r]);
      INFO(outside.value_or(""));
      CHECK(!outside);
      // Not vacuous: each bound is small against the values' scale (worst
      // cases over every summation order are about 1e-4 of it here).
      double scale = 0, widest = 0;
      for (int64_t i = 0; i < got.getNumElements(); ++i) {
        scale = std::max(scale, std::abs((*want)[r].value.getDouble(i)));
        widest = std::max(widest, bound((*want)[r], i));
      }
      CHECK(widest < 1e-3 * scale);
    }
  }
}

TEST_CASE("a result moved past its bound is named, with where and by how much", "[interpreter][bound]") {
  auto module = parse(kMlpGrad);
  auto fn = module->lookupSymbol<func::FuncOp>("mlp");
  auto want = runWithErrorBounds(fn, randomArgs(fn, 5));
  REQUIRE(succeeded(want));
  const BoundedTensor &dw1 = (*want)[1];
  Tensor got = dw1.value.clone();
  CHECK_FALSE(outsideBound(got, dw1));
  got.setDouble(7, got.getDouble(7) + 4 * bound(dw1, 7) + 1e-6 * std::abs(got.getDouble(7)));
  std::optional<std::string> outside = outsideBound(got, dw1);
  REQUIRE(outside);
  CHECK_THAT(*outside, Catch::StartsWith("element 7: "));
  CHECK_THAT(*outside, Catch::Contains("> bound"));
  // NaN where the reference is a number is outside any finite bound.
  got = dw1.value.clone();
  got.setDouble(0, std::nan(""));
  CHECK(outsideBound(got, dw1));
}
