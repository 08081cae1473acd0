//===- StepArraysTest.cpp - cotangent-step's .npy files and comparisons ---===//
//
// bf16 arrays travel as NumPy writes ml_dtypes' bfloat16 (`<V2`), f16 as
// `<f2`; `--expect` compares 16-bit float results no closer than two units
// in their last place, f32 and f64 results at the tolerance given.
//
//===----------------------------------------------------------------------===//

#include "tools/cotangent-step/ArrayDifference.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace cotangent::step;

namespace {

Array makeArray(DType dtype, std::vector<double> values) {
  Array a{TensorType{dtype, {static_cast<int64_t>(values.size())}}, {}};
  a.data.resize(a.type.bytes());
  for (size_t i = 0; i < values.size(); ++i)
    a.set(static_cast<int64_t>(i), values[i]);
  return a;
}

std::string tempPath(const std::string &name) {
  return (std::filesystem::temp_directory_path() / ("cotangent-step-arrays-" + name)).string();
}

std::string fileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// `a` with element `i` moved by `ulps` units in the last place of bf16.
Array bf16Moved(Array a, int64_t i, int ulps) {
  uint16_t bits;
  std::memcpy(&bits, a.data.data() + 2 * i, 2);
  bits = static_cast<uint16_t>(bits + ulps);
  std::memcpy(a.data.data() + 2 * i, &bits, 2);
  return a;
}

} // namespace

TEST_CASE("bf16 arrays are written as <V2 and read back bit for bit", "[step][npy]") {
  Array a = makeArray(DType::BF16, {1.0, -2.5, 0.15625, 3.0e38, -0.0});
  std::string path = tempPath("bf16.npy"), error;
  REQUIRE(writeNpy(path, a, error));
  CHECK(fileBytes(path).find("'descr': '<V2'") != std::string::npos);
  Array b;
  REQUIRE(readNpy(path, b, error));
  CHECK(b.type.dtype == DType::BF16);
  CHECK(b.type.shape == a.type.shape);
  CHECK(b.data == a.data);
  CHECK(b.at(1) == -2.5);
  CHECK(b.at(2) == 0.15625);

  // NumPy also writes the void type without a byte order.
  std::string bytes = fileBytes(path);
  bytes.replace(bytes.find("<V2"), 3, "|V2");
  std::ofstream(path, std::ios::binary) << bytes;
  Array c;
  REQUIRE(readNpy(path, c, error));
  CHECK(c.type.dtype == DType::BF16);
  CHECK(c.data == a.data);
  std::filesystem::remove(path);
}

TEST_CASE("f16 arrays are written as <f2", "[step][npy]") {
  Array a = makeArray(DType::F16, {1.0, -0.5, 65504.0, 6.103515625e-05});
  std::string path = tempPath("f16.npy"), error;
  REQUIRE(writeNpy(path, a, error));
  CHECK(fileBytes(path).find("'descr': '<f2'") != std::string::npos);
  Array b;
  REQUIRE(readNpy(path, b, error));
  CHECK(b.type.dtype == DType::F16);
  CHECK(b.at(2) == 65504.0);
  CHECK(b.at(3) == 6.103515625e-05);
  std::filesystem::remove(path);
}

TEST_CASE("a void type of another width is not bf16", "[step][npy]") {
  Array a = makeArray(DType::F32, {1.0, 2.0});
  std::string path = tempPath("v4.npy"), error;
  REQUIRE(writeNpy(path, a, error));
  std::string bytes = fileBytes(path);
  bytes.replace(bytes.find("<f4"), 3, "<V4");
  std::ofstream(path, std::ios::binary) << bytes;
  Array b;
  CHECK_FALSE(readNpy(path, b, error));
  CHECK(error.find("unsupported dtype '<V4'") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("bf16 results are compared no closer than two units in the last place",
          "[step][compare]") {
  // The largest element is 2.0: one unit in its last place is 2^-6, 2^-7 of it.
  Array want = makeArray(DType::BF16, {2.0, -1.25, 0.5, 0.001});
  for (int64_t i = 0; i < 4; ++i) {
    for (int ulps : {-2, -1, 1, 2}) {
      auto d = difference(bf16Moved(want, i, ulps), want);
      REQUIRE(d);
      INFO("element " << i << " moved by " << ulps << " ulps");
      CHECK(d->within(1e-5, 0));
    }
  }
  auto d3 = difference(bf16Moved(want, 0, 3), want);
  REQUIRE(d3);
  CHECK(d3->floor == std::ldexp(1.0, -6));
  CHECK_FALSE(d3->within(1e-5, 0));
  CHECK(d3->within(3e-2, 0)); // a tolerance above the floor counts (3 ulps: 2.3e-2)
}

TEST_CASE("f32 results are compared at the tolerance given", "[step][compare]") {
  Array want = makeArray(DType::F32, {2.0, -1.0, 0.5});
  Array close = makeArray(DType::F32, {2.0, -1.0 + 1e-6, 0.5});
  Array far = makeArray(DType::F32, {2.0, -1.0 + 1e-4, 0.5});
  CHECK(difference(close, want)->floor == 0);
  CHECK(difference(close, want)->within(1e-5, 0));
  CHECK_FALSE(difference(far, want)->within(1e-5, 0));
  CHECK(difference(far, want)->within(1e-5, 1e-3));
  CHECK(difference(far, want)->relative() == Approx(5e-5).epsilon(1e-2));
}

TEST_CASE("a NaN where the reference has none, or another shape, never matches",
          "[step][compare]") {
  Array want = makeArray(DType::BF16, {1.0, 2.0});
  Array nan = makeArray(DType::BF16, {1.0, NAN});
  CHECK(std::isinf(difference(nan, want)->abs));
  CHECK_FALSE(difference(nan, want)->within(1.0, 1.0));
  CHECK_FALSE(difference(makeArray(DType::BF16, {1.0}), want));
  CHECK_FALSE(difference(makeArray(DType::F32, {1.0, 2.0}), want));
}
