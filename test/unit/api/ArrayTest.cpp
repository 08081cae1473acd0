// tracer/Array.h: host arrays made, viewed, saved and loaded without MLIR
// names, and used by jit as they are; misuse is a named TraceError.
#include "tracer/Array.h"
#include "tracer/Jit.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

using namespace cotangent;

TEST_CASE("arrays from host values, typed views, and jit on them", "[api][array]") {
  interp::Tensor x = array::from(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(array::str(x) == "f32[2,3]");
  CHECK(array::dtype(x) == DType::F32);
  CHECK(array::shape(x) == Shape{2, 3});
  std::span<const float> xs = array::view<float>(x);
  CHECK(std::vector<float>(xs.begin(), xs.end()) == std::vector<float>{1, 2, 3, 4, 5, 6});

  interp::Tensor w = array::full({3}, 0.5);
  array::mutable_view<float>(w)[2] = 2.0f;
  interp::Tensor y = jit([](Tensor a, Tensor b) { return np::dot(a, b); })(x, w);
  CHECK(array::str(y) == "f32[2]");
  CHECK(array::view<float>(y)[0] == 1 * 0.5f + 2 * 0.5f + 3 * 2.0f);

  CHECK(array::view<int32_t>(array::zeros({4}, DType::I32)).size() == 4);
  CHECK(array::view<bool>(array::from(std::vector<bool>{true, false}, {2}))[0]);
  CHECK(array::view<int64_t>(array::from(std::vector<int64_t>{7}, {}))[0] == 7);
  CHECK(array::view<double>(array::full({}, 2.5, DType::F64))[0] == 2.5);
  interp::Tensor ramp = array::from_function<int32_t>({2, 3}, [](int64_t i) { return 10 * i; });
  CHECK(array::str(ramp) == "i32[2,3]");
  CHECK(array::view<int32_t>(ramp)[5] == 50);
}

TEST_CASE("arrays round-trip through .npy files in every dtype", "[api][array]") {
  auto dir = std::filesystem::temp_directory_path() / "cotangent-array-test";
  std::filesystem::create_directories(dir);
  std::vector<interp::Tensor> arrays = {
      array::from(std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f}, {2, 2}),
      array::from(std::vector<double>{1e-300, 2.0}, {2}),
      array::from(std::vector<int32_t>{-7, 8, 9}, {3, 1}),
      array::from(std::vector<int64_t>{1ll << 40}, {}),
      array::from(std::vector<bool>{true, false, true}, {3}),
      array::full({2, 2}, 0.375, DType::BF16),
      array::full({3}, -1.5, DType::F16),
  };
  for (size_t i = 0; i < arrays.size(); ++i) {
    INFO(array::str(arrays[i]));
    std::string path = (dir / ("a" + std::to_string(i) + ".npy")).string();
    array::save(path, arrays[i]);
    interp::Tensor back = array::load(path);
    REQUIRE(array::str(back) == array::str(arrays[i]));
    CHECK(std::memcmp(back.data(), arrays[i].data(), static_cast<size_t>(back.getByteSize())) == 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("bad array use names what is wrong", "[api][array][errors]") {
  CHECK_THROWS_WITH(array::from(std::vector<float>{1, 2, 3}, {2, 2}),
                    "array::from: 3 values for f32[2,2], which holds 4");
  CHECK_THROWS_WITH(array::view<int32_t>(array::zeros({2})),
                    "array::view: the array is f32[2], not i32");
  CHECK_THROWS_WITH(array::zeros({2, -1}), Catch::Contains("negative dimension in f32[2,-1]"));
  CHECK_THROWS_WITH(array::load("/nonexistent/x.npy"),
                    Catch::StartsWith("array::load: /nonexistent/x.npy: ") &&
                        Catch::Contains("No such file"));
  auto path = (std::filesystem::temp_directory_path() / "cotangent-not-npy.npy").string();
  {
    std::FILE *f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fputs("not a numpy file", f);
    std::fclose(f);
  }
  CHECK_THROWS_WITH(array::load(path), Catch::StartsWith("array::load: " + path + ": "));
  std::filesystem::remove(path);
  // A full disk while saving is reported, not a crash (/dev/full: ENOSPC).
  if (std::filesystem::exists("/dev/full"))
    CHECK_THROWS_WITH(array::save("/dev/full", array::zeros({1024})),
                      Catch::StartsWith("array::save: /dev/full: ") &&
                          Catch::Contains("No space left on device"));
}
