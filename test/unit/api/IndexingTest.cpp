// np::take, np::take_along_axis, np::scatter_add and np::asarray (tracer/NumpyIndexing.cpp): values
// against a direct evaluation (negative indices from the end, out-of-range
// ones clamped, repeated ones accumulating), gradients (f64 and f32) and
// compiled against interpreted (OpCheck.h), and the errors of bad input.
#include "tracer/Numpy.h"

#include "Interpret.h"
#include "OpCheck.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace cotangent;
using namespace cotangent::test;

namespace {

interp::Tensor ints(mlir::MLIRContext &ctx, std::vector<int64_t> shape,
                    std::vector<int64_t> values, unsigned bits = 32) {
  auto type = mlir::RankedTensorType::get(shape, mlir::IntegerType::get(&ctx, bits));
  return interp::Tensor::fromInts(type, values);
}

/// NumPy's index normalization and XLA's clamp, for an axis of size n.
int64_t effective(int64_t i, int64_t n) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n - 1); }

} // namespace

TEST_CASE("np::take and np::scatter_add", "[api][indexing]") {
  mlir::MLIRContext host;
  // Rows of the 3 x 5 input: -1 is row 2, 7 is clamped to row 2, 1 repeats.
  const std::vector<int64_t> rowIds = {1, -1, 0, 1, 7};
  interp::Tensor rows = ints(host, {5}, rowIds);
  // Columns, as a 2 x 2 array of int64: -2 is column 3, 9 is clamped to 4.
  const std::vector<int64_t> colIds = {4, 0, -2, 9};
  interp::Tensor cols = ints(host, {2, 2}, colIds, 64);

  SECTION("take rows") {
    check([&](Tensor x) { return np::take(x, np::asarray(rows), 0); },
          [&](auto &x, int64_t, int64_t c) {
            std::vector<double> out;
            for (int64_t i : rowIds)
              for (int64_t j = 0; j < c; ++j)
                out.push_back(x[effective(i, 3) * c + j]);
            return out;
          });
  }
  SECTION("take columns with 2-D indices: the axis becomes the indices' shape") {
    check([&](Tensor x) { return np::take(x, np::asarray(cols), 1); },
          [&](auto &x, int64_t r, int64_t c) {
            std::vector<double> out;
            for (int64_t i = 0; i < r; ++i)
              for (int64_t j : colIds)
                out.push_back(x[i * c + effective(j, 5)]);
            return out;
          });
  }
  SECTION("scatter_add of the taken rows' sines back into the input") {
    check(
        [&](Tensor x) {
          Tensor idx = np::asarray(rows);
          return np::scatter_add(x, idx, np::sin(np::take(x, idx, 0)), 0);
        },
        [&](auto &x, int64_t, int64_t c) {
          std::vector<double> out = x;
          for (int64_t i : rowIds)
            for (int64_t j = 0; j < c; ++j)
              out[effective(i, 3) * c + j] += std::sin(x[effective(i, 3) * c + j]);
          return out;
        });
  }
}

TEST_CASE("np::take_along_axis", "[api][indexing]") {
  mlir::MLIRContext host;
  // Per row of the 3 x 5 input, two columns: -1 is column 4, 9 is clamped.
  const std::vector<int64_t> perRow = {0, 4, -1, 2, 9, 1};
  // Per column, two rows (int64): -3 is row 0, 5 is clamped to row 2.
  const std::vector<int64_t> perColumn = {2, 0, 1, -3, 5, 1, 1, 2, 0, 0};
  SECTION("along the last axis (optax's label logits)") {
    check([&](Tensor x) { return np::take_along_axis(x, np::asarray(ints(host, {3, 2}, perRow)), 1); },
          [&](auto &x, int64_t r, int64_t c) {
            std::vector<double> out;
            for (int64_t i = 0; i < r; ++i)
              for (int64_t j = 0; j < 2; ++j)
                out.push_back(x[i * c + effective(perRow[i * 2 + j], c)]);
            return out;
          });
  }
  SECTION("along the first axis, int64 indices") {
    check([&](Tensor x) {
            return np::take_along_axis(x, np::asarray(ints(host, {2, 5}, perColumn, 64)), 0);
          },
          [&](auto &x, int64_t r, int64_t c) {
            std::vector<double> out;
            for (int64_t i = 0; i < 2; ++i)
              for (int64_t j = 0; j < c; ++j)
                out.push_back(x[effective(perColumn[i * c + j], r) * c + j]);
            return out;
          });
  }
  SECTION("indices broadcast over the rows") {
    check([&](Tensor x) {
            return np::take_along_axis(x, np::asarray(ints(host, {1, 2}, {3, -5})), 1);
          },
          [&](auto &x, int64_t r, int64_t c) {
            std::vector<double> out;
            for (int64_t i = 0; i < r; ++i)
              for (int64_t j : {3, 0})
                out.push_back(x[i * c + j]);
            return out;
          });
  }
}

TEST_CASE("np::asarray embeds host values of every dtype", "[api][indexing]") {
  mlir::MLIRContext ctx;
  interp::Tensor i64 = ints(ctx, {2, 2}, {-3, 0, 1LL << 40, 7}, 64);
  interp::Tensor f32 = interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get({3}, mlir::Float32Type::get(&ctx)), {0.5, -1.25, 3e30});
  auto out = interpret(ctx, [&](Tensor) { return std::tuple{np::asarray(i64), np::asarray(f32)}; },
                       f32);
  REQUIRE(out.size() == 2);
  CHECK(out[0].getType() == i64.getType());
  for (int64_t k = 0; k < 4; ++k)
    CHECK(out[0].getInt(k) == i64.getInt(k));
  for (int64_t k = 0; k < 3; ++k)
    CHECK(out[1].getDouble(k) == f32.getDouble(k));
}

TEST_CASE("bad take and scatter_add arguments are named in the error", "[api][indexing][errors]") {
  mlir::MLIRContext ctx;
  interp::Tensor x = randomTensor(ctx, {3, 5}, 1);
  interp::Tensor idx = ints(ctx, {4}, {0, 1, 2, 0});
  CHECK_THROWS_WITH(interpret(ctx, [](Tensor a) { return np::take(a, a, 0); }, x),
                    Catch::Contains("take: indices must be int32 or int64, got f64[3,5]"));
  CHECK_THROWS_WITH(interpret(ctx, [](Tensor a, Tensor i) { return np::take(a, i, 2); }, x, idx),
                    Catch::Contains("take") && Catch::Contains("axis 2") &&
                        Catch::Contains("f64[3,5]"));
  CHECK_THROWS_WITH(
      interpret(ctx, [](Tensor a, Tensor i) { return np::scatter_add(a, i, a, 0); }, x, idx),
      Catch::Contains("scatter_add: updates must be f64[4,5] (x's shape with axis 0 replaced by "
                      "the indices' shape), got f64[3,5]"));
  CHECK_THROWS_WITH(
      interpret(ctx, [](Tensor a, Tensor i) { return np::take_along_axis(a, i, 1); }, x, idx),
      Catch::Contains("take_along_axis: indices must be integers of x's rank"));
  interp::Tensor wide = ints(ctx, {2, 2}, {0, 1, 2, 3});
  CHECK_THROWS_WITH(
      interpret(ctx, [](Tensor a, Tensor i) { return np::take_along_axis(a, i, 1); }, x, wide),
      Catch::Contains("x and indices must broadcast on every axis but 1"));
}
