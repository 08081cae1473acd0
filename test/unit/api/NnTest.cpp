// tracer/Nn.h: jax.nn's functions (and np::erf, erfc), each through
// OpCheck.h's value, gradient (f64 and f32) and compiled-vs-interpreter checks.
#include "tracer/Layers.h"
#include "tracer/Nn.h"

#include "OpCheck.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

using namespace cotangent;
using namespace cotangent::test;

namespace {

std::vector<double> elementwise(const std::vector<double> &x, double (*f)(double)) {
  std::vector<double> out(x.size());
  std::transform(x.begin(), x.end(), out.begin(), f);
  return out;
}

/// Applies `row(values of one row)` to each row of a rows x cols matrix.
std::vector<double> byRow(const std::vector<double> &x, int64_t rows, int64_t cols,
                          const std::function<std::vector<double>(std::vector<double>)> &row) {
  std::vector<double> out;
  for (int64_t r = 0; r < rows; ++r) {
    auto y = row(std::vector<double>(x.begin() + r * cols, x.begin() + (r + 1) * cols));
    out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

double logSumExp(const std::vector<double> &v) {
  double m = *std::max_element(v.begin(), v.end()), s = 0;
  for (double e : v)
    s += std::exp(e - m);
  return m + std::log(s);
}

} // namespace

TEST_CASE("nn::sigmoid, softplus, silu, relu, gelu", "[api][nn][numerics]") {
  SECTION("sigmoid") {
    check([](Tensor x) { return nn::sigmoid(x); }, [](auto &x, int64_t, int64_t) {
      return elementwise(x, [](double v) { return 1 / (1 + std::exp(-v)); });
    });
  }
  SECTION("softplus, stable far from 0") {
    check([](Tensor x) { return nn::softplus(x); },
          [](auto &x, int64_t, int64_t) {
            return elementwise(x, [](double v) { return std::log1p(std::exp(v)); });
          },
          20.0);
  }
  SECTION("silu") {
    check([](Tensor x) { return nn::silu(x); }, [](auto &x, int64_t, int64_t) {
      return elementwise(x, [](double v) { return v / (1 + std::exp(-v)); });
    });
  }
  SECTION("relu (inputs away from its kink)") {
    // No draw of seed 11 lies within the finite-difference step of 0.
    check([](Tensor x) { return nn::relu(x); }, [](auto &x, int64_t, int64_t) {
      return elementwise(x, [](double v) { return v > 0 ? v : 0.0; });
    });
  }
  SECTION("gelu (exact, erfc)") {
    check([](Tensor x) { return nn::gelu(x, /*approximate=*/false); },
          [](auto &x, int64_t, int64_t) {
            return elementwise(x, [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); });
          });
  }
  SECTION("gelu (tanh)") {
    check([](Tensor x) { return nn::gelu(x); }, [](auto &x, int64_t, int64_t) {
      return elementwise(x, [](double v) {
        return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
      });
    });
  }
}

TEST_CASE("np::erf and erfc", "[api][nn][numerics]") {
  SECTION("erf") {
    check([](Tensor x) { return np::erf(x); },
          [](auto &x, int64_t, int64_t) { return elementwise(x, [](double v) { return std::erf(v); }); });
  }
  SECTION("erfc, into its tail") {
    check([](Tensor x) { return np::erfc(x); },
          [](auto &x, int64_t, int64_t) { return elementwise(x, [](double v) { return std::erfc(v); }); },
          4.0);
  }
}

TEST_CASE("nn::softmax, log_softmax, logsumexp", "[api][nn][numerics]") {
  auto softmaxRow = [](std::vector<double> v) {
    double l = logSumExp(v);
    for (double &e : v)
      e = std::exp(e - l);
    return v;
  };
  SECTION("softmax over the last axis") {
    check([](Tensor x) { return nn::softmax(x); },
          [&](auto &x, int64_t rows, int64_t cols) { return byRow(x, rows, cols, softmaxRow); },
          30.0);
  }
  SECTION("softmax over axis 0 is softmax of the transpose") {
    check([](Tensor x) { return np::transpose(nn::softmax(x, 0)); },
          [&](auto &x, int64_t rows, int64_t cols) {
            std::vector<double> t(x.size());
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t c = 0; c < cols; ++c)
                t[c * rows + r] = x[r * cols + c];
            return byRow(t, cols, rows, softmaxRow);
          });
  }
  SECTION("log_softmax") {
    check([](Tensor x) { return nn::log_softmax(x); },
          [](auto &x, int64_t rows, int64_t cols) {
            return byRow(x, rows, cols, [](std::vector<double> v) {
              double l = logSumExp(v);
              for (double &e : v)
                e -= l;
              return v;
            });
          },
          30.0);
  }
  SECTION("logsumexp over the rows, and over everything") {
    check([](Tensor x) { return nn::logsumexp(x, 1); },
          [](auto &x, int64_t rows, int64_t cols) {
            return byRow(x, rows, cols, [](std::vector<double> v) {
              return std::vector<double>{logSumExp(v)};
            });
          });
    check([](Tensor x) { return nn::logsumexp(x, {}, /*keepdims=*/true); },
          [](auto &x, int64_t, int64_t) { return std::vector<double>{logSumExp(x)}; });
  }
}

TEST_CASE("nn::layer_norm, rms_norm, np::var, clip, exp2", "[api][nn][numerics]") {
  auto mean = [](const std::vector<double> &v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  };
  SECTION("layer_norm with a scale and bias") {
    check(
        [](Tensor x) {
          return nn::layer_norm(x, np::full({5}, 1.5, DType::F64) + np::arange(5),
                                np::full({5}, -0.25, DType::F64));
        },
        [&](auto &x, int64_t rows, int64_t cols) {
          return byRow(x, rows, cols, [&](std::vector<double> v) {
            double m = mean(v), var = 0;
            for (double e : v)
              var += (e - m) * (e - m) / v.size();
            for (size_t i = 0; i < v.size(); ++i)
              v[i] = (v[i] - m) / std::sqrt(var + 1e-6) * (1.5 + i) - 0.25;
            return v;
          });
        });
  }
  SECTION("rms_norm") {
    check([](Tensor x) { return nn::rms_norm(x, np::full({5}, 2.0, DType::F64)); },
          [&](auto &x, int64_t rows, int64_t cols) {
            return byRow(x, rows, cols, [&](std::vector<double> v) {
              double ms = 0;
              for (double e : v)
                ms += e * e / v.size();
              for (double &e : v)
                e = e / std::sqrt(ms + 1e-6) * 2.0;
              return v;
            });
          });
  }
  SECTION("var over the rows") {
    check([](Tensor x) { return np::var(x, 1); },
          [&](auto &x, int64_t rows, int64_t cols) {
            return byRow(x, rows, cols, [&](std::vector<double> v) {
              double m = mean(v), s = 0;
              for (double e : v)
                s += (e - m) * (e - m);
              return std::vector<double>{s / v.size()};
            });
          });
  }
  SECTION("clip (inputs away from the bounds)") {
    check([](Tensor x) { return np::clip(x, -0.5, 0.75); }, [](auto &x, int64_t, int64_t) {
      return elementwise(x, [](double v) { return std::min(std::max(v, -0.5), 0.75); });
    });
  }
  SECTION("exp2") {
    check([](Tensor x) { return np::exp2(x); }, [](auto &x, int64_t, int64_t) {
      return elementwise(x, [](double v) { return std::exp2(v); });
    });
  }
}

TEST_CASE("nn::Dropout applies its host-drawn keep mask", "[api][nn][numerics]") {
  // The mask as Flax draws it for a [3, 5] input (FlaxParityTest checks the
  // bits); the step multiplies by it, so its gradient is the same mask.
  mlir::MLIRContext ctx;
  nn::Scope scope(ctx, random::PRNGKey(7));
  nn::Dropout dropout{0.3};
  interp::Tensor keep = dropout.mask(scope, {3, 5});
  check([&](Tensor x) { return dropout(x, np::asarray(keep)); },
        [&](auto &x, int64_t, int64_t) {
          std::vector<double> out(x.size());
          for (size_t i = 0; i < x.size(); ++i)
            out[i] = keep.getInt(static_cast<int64_t>(i)) ? x[i] / (1 - 0.3) : 0.0;
          return out;
        });
}

TEST_CASE("nn::one_hot and np::isfinite", "[api][nn][numerics]") {
  mlir::MLIRContext ctx;
  auto i32 = mlir::RankedTensorType::get({4}, mlir::IntegerType::get(&ctx, 32));
  interp::Tensor labels = interp::Tensor::fromInts(i32, {2, 0, 3, 7}); // 7: out of range
  auto encode = [](Tensor t) { return nn::one_hot(t, 4); };
  interp::Tensor out = jit(encode)(labels);
  CHECK(out.getShape().vec() == std::vector<int64_t>{4, 4});
  const std::vector<double> want = {0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  for (size_t i = 0; i < want.size(); ++i)
    CHECK(out.getDouble(i) == want[i]);
  CHECK_THROWS_WITH(jit([](Tensor t) { return nn::one_hot(t, 0); })(labels),
                    Catch::Contains("one_hot") && Catch::Contains("num_classes >= 1, got 0"));

  auto f32 = mlir::RankedTensorType::get({5}, mlir::Float32Type::get(&ctx));
  const double inf = std::numeric_limits<double>::infinity();
  interp::Tensor x = interp::Tensor::fromDoubles(
      f32, {1.5, std::numeric_limits<double>::quiet_NaN(), inf, -inf, -0.0});
  interp::Tensor finite = jit([](Tensor t) { return np::isfinite(t); })(x);
  const std::vector<int64_t> expect = {1, 0, 0, 0, 1};
  for (size_t i = 0; i < expect.size(); ++i)
    CHECK(finite.getInt(i) == expect[i]);
}
