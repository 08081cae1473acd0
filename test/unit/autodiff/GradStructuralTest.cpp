// Finite-difference checks (f64, step 1e-6, tolerance 1e-6 * (1 + |vjp|)) of
// the VJP rules of contractions, shape ops, reductions and the remat
// structure ops. Each program is small enough to perturb every coordinate.
#include "AutodiffUtil.h"

#include <catch2/catch.hpp>

using namespace autodiff;

namespace {

/// Gradient-checks every program of `programs` (name, source), random inputs.
void checkAll(const std::vector<std::pair<std::string, std::string>> &programs) {
  uint64_t seed = 100;
  for (auto &[name, src] : programs) {
    DYNAMIC_SECTION(name) {
      GradCheck options;
      options.seed = seed;
      checkGradients(src, options);
    }
    ++seed;
  }
}

} // namespace

TEST_CASE("vjp of dot_general", "[autodiff][grad]") {
  checkAll({
      {"matrix-vector", R"(func.func @f(%W: tensor<5x4xf64>, %x: tensor<4xf64>) -> tensor<5xf64> {
  %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf64>, tensor<4xf64> -> tensor<5xf64>
  return %0 : tensor<5xf64>
})"},
      {"vector-matrix", R"(func.func @f(%x: tensor<5xf64>, %W: tensor<5x3xf64>) -> tensor<3xf64> {
  %0 = jx.dot_general %x, %W, contracting_dims = [0] x [0], batch_dims = [] x [] : tensor<5xf64>, tensor<5x3xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
})"},
      {"inner product to a scalar", R"(func.func @f(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<f64> {
  %0 = jx.dot_general %x, %y, contracting_dims = [0] x [0], batch_dims = [] x [] : tensor<4xf64>, tensor<4xf64> -> tensor<f64>
  return %0 : tensor<f64>
})"},
      {"outer product", R"(func.func @f(%x: tensor<3xf64>, %y: tensor<2xf64>) -> tensor<3x2xf64> {
  %0 = jx.dot_general %x, %y, contracting_dims = [] x [], batch_dims = [] x [] : tensor<3xf64>, tensor<2xf64> -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
})"},
      {"matrix-matrix", R"(func.func @f(%a: tensor<3x4xf64>, %b: tensor<4x2xf64>) -> tensor<3x2xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x4xf64>, tensor<4x2xf64> -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
})"},
      {"matrix-matrix transposed operands", R"(func.func @f(%a: tensor<4x3xf64>, %b: tensor<2x4xf64>) -> tensor<3x2xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [0] x [1], batch_dims = [] x [] : tensor<4x3xf64>, tensor<2x4xf64> -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
})"},
      {"batched", R"(func.func @f(%a: tensor<2x3x4xf64>, %b: tensor<2x4x2xf64>) -> tensor<2x3x2xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [1], batch_dims = [0] x [0] : tensor<2x3x4xf64>, tensor<2x4x2xf64> -> tensor<2x3x2xf64>
  return %0 : tensor<2x3x2xf64>
})"},
      {"two contracting dims in different orders", R"(func.func @f(%a: tensor<3x4x2xf64>, %b: tensor<2x4x3xf64>) -> tensor<3x3xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [1, 2] x [1, 0], batch_dims = [] x [] : tensor<3x4x2xf64>, tensor<2x4x3xf64> -> tensor<3x3xf64>
  return %0 : tensor<3x3xf64>
})"},
      {"non-adjacent batch and contracting dims", R"(func.func @f(%a: tensor<3x2x4xf64>, %b: tensor<4x5x2xf64>) -> tensor<2x3x5xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [0], batch_dims = [1] x [2] : tensor<3x2x4xf64>, tensor<4x5x2xf64> -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
})"},
      {"two batch dims in swapped order", R"(func.func @f(%a: tensor<2x3x4xf64>, %b: tensor<3x4x2xf64>) -> tensor<2x3xf64> {
  %0 = jx.dot_general %a, %b, contracting_dims = [2] x [1], batch_dims = [0, 1] x [2, 0] : tensor<2x3x4xf64>, tensor<3x4x2xf64> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})"},
      {"same operand twice", R"(func.func @f(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %0 = jx.dot_general %a, %a, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x3xf64>, tensor<3x3xf64> -> tensor<3x3xf64>
  return %0 : tensor<3x3xf64>
})"},
      {"one active operand", R"(func.func @f(%x: tensor<3xf64>) -> tensor<2xf64> {
  %W = jx.constant dense<[[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]> : tensor<2x3xf64>
  %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<2x3xf64>, tensor<3xf64> -> tensor<2xf64>
  return %0 : tensor<2xf64>
})"},
  });
}

TEST_CASE("vjp of dot_general with preferred_element_type", "[autodiff][grad]") {
  // f32 operands accumulated into an f64 result. Inputs and the step are
  // multiples of 1/64, exact in f32; the function is bilinear, so the
  // central difference is exact; the backward contracts in f32.
  std::vector<double> a = {0.25, -1.5, 0.5, 1.0, -0.75, 2.0};
  std::vector<double> b = {1.25, -0.5, 0.125, -2.0, 0.75, 1.5};
  GradCheck options;
  options.inputs = {values("tensor<2x3xf64>", a), values("tensor<3x2xf64>", b)};
  options.step = 1.0 / 64;
  options.tolerance = 1e-6;
  VjpResult r = checkGradients(R"(func.func @f(%a: tensor<2x3xf64>, %b: tensor<3x2xf64>) -> tensor<2x2xf64> {
  %a32 = jx.convert_element_type %a : tensor<2x3xf64> -> tensor<2x3xf32>
  %b32 = jx.convert_element_type %b : tensor<3x2xf64> -> tensor<3x2xf32>
  %0 = jx.dot_general %a32, %b32, contracting_dims = [1] x [0], batch_dims = [] x [] {preferred_element_type = f64} : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
})",
                               options);
  CHECK(r.outputs[0].getElementType().isF64());
}

TEST_CASE("vjp of broadcast_in_dim", "[autodiff][grad]") {
  checkAll({
      {"scalar to matrix", R"(func.func @f(%x: tensor<f64>) -> tensor<2x3xf64> {
  %0 = jx.broadcast_in_dim %x, dims = [] : tensor<f64> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})"},
      {"vector along rows", R"(func.func @f(%x: tensor<3xf64>) -> tensor<4x3xf64> {
  %0 = jx.broadcast_in_dim %x, dims = [1] : tensor<3xf64> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
})"},
      {"vector along columns", R"(func.func @f(%x: tensor<4xf64>) -> tensor<4x3xf64> {
  %0 = jx.broadcast_in_dim %x, dims = [0] : tensor<4xf64> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
})"},
      {"size-1 dims broadcast", R"(func.func @f(%x: tensor<3x1xf64>) -> tensor<2x3x4xf64> {
  %0 = jx.broadcast_in_dim %x, dims = [1, 2] : tensor<3x1xf64> -> tensor<2x3x4xf64>
  return %0 : tensor<2x3x4xf64>
})"},
      {"size-1 dims kept", R"(func.func @f(%x: tensor<1x3xf64>) -> tensor<1x3x2xf64> {
  %0 = jx.broadcast_in_dim %x, dims = [0, 1] : tensor<1x3xf64> -> tensor<1x3x2xf64>
  return %0 : tensor<1x3x2xf64>
})"},
      {"all size-1", R"(func.func @f(%x: tensor<1x1xf64>) -> tensor<2x3xf64> {
  %0 = jx.broadcast_in_dim %x, dims = [0, 1] : tensor<1x1xf64> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})"},
  });
}

TEST_CASE("vjp of reshape, transpose, squeeze, expand_dims", "[autodiff][grad]") {
  checkAll({
      {"reshape", R"(func.func @f(%x: tensor<2x6xf64>) -> tensor<3x4xf64> {
  %0 = jx.reshape %x : tensor<2x6xf64> -> tensor<3x4xf64>
  %1 = jx.sin %0 : tensor<3x4xf64>
  return %1 : tensor<3x4xf64>
})"},
      {"reshape to a scalar", R"(func.func @f(%x: tensor<1x1xf64>) -> tensor<f64> {
  %0 = jx.reshape %x : tensor<1x1xf64> -> tensor<f64>
  return %0 : tensor<f64>
})"},
      {"transpose 2-d", R"(func.func @f(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %0 = jx.transpose %x, perm = [1, 0] : tensor<2x3xf64> -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
})"},
      {"transpose 3-d cyclic", R"(func.func @f(%x: tensor<2x3x4xf64>) -> tensor<4x2x3xf64> {
  %0 = jx.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  %1 = jx.mul %0, %0 : tensor<4x2x3xf64>
  return %1 : tensor<4x2x3xf64>
})"},
      {"squeeze", R"(func.func @f(%x: tensor<1x3x1xf64>) -> tensor<3xf64> {
  %0 = jx.squeeze %x, dims = [0, 2] : tensor<1x3x1xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
})"},
      {"expand_dims", R"(func.func @f(%x: tensor<3xf64>) -> tensor<1x3x1xf64> {
  %0 = jx.expand_dims %x, dims = [0, 2] : tensor<3xf64> -> tensor<1x3x1xf64>
  %1 = jx.tanh %0 : tensor<1x3x1xf64>
  return %1 : tensor<1x3x1xf64>
})"},
  });
}

TEST_CASE("vjp of concatenate", "[autodiff][grad]") {
  checkAll({
      {"three inputs along dim 1", R"(func.func @f(%a: tensor<2x1xf64>, %b: tensor<2x3xf64>, %c: tensor<2x2xf64>) -> tensor<2x6xf64> {
  %0 = jx.concatenate(%a, %b, %c) dim = 1 : tensor<2x1xf64>, tensor<2x3xf64>, tensor<2x2xf64> -> tensor<2x6xf64>
  return %0 : tensor<2x6xf64>
})"},
      {"an input twice along dim 0", R"(func.func @f(%a: tensor<2xf64>, %b: tensor<3xf64>) -> tensor<7xf64> {
  %0 = jx.concatenate(%a, %b, %a) dim = 0 : tensor<2xf64>, tensor<3xf64>, tensor<2xf64> -> tensor<7xf64>
  %1 = jx.sin %0 : tensor<7xf64>
  return %1 : tensor<7xf64>
})"},
  });
}

TEST_CASE("vjp of slice", "[autodiff][grad]") {
  checkAll({
      {"contiguous", R"(func.func @f(%x: tensor<6xf64>) -> tensor<3xf64> {
  %0 = jx.slice %x, start = [1], limit = [4], strides = [1] : tensor<6xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
})"},
      {"strided", R"(func.func @f(%x: tensor<7xf64>) -> tensor<3xf64> {
  %0 = jx.slice %x, start = [1], limit = [7], strides = [2] : tensor<7xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
})"},
      {"strided 2-d, limit not on a stride", R"(func.func @f(%x: tensor<5x6xf64>) -> tensor<2x2xf64> {
  %0 = jx.slice %x, start = [0, 1], limit = [4, 6], strides = [3, 4] : tensor<5x6xf64> -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
})"},
      {"whole", R"(func.func @f(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = jx.slice %x, start = [0, 0], limit = [2, 3], strides = [1, 1] : tensor<2x3xf64> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})"},
  });
}

TEST_CASE("vjp of dynamic_slice and dynamic_update_slice", "[autodiff][grad]") {
  for (int start : {0, 2, 5, -3}) { // 5 and -3 are clamped into range
    DYNAMIC_SECTION("dynamic_slice at " << start) {
      GradCheck options;
      options.inputs = {values("tensor<6x3xf64>", std::vector<double>(18, 0.0)),
                        values("tensor<i32>", {static_cast<double>(start)})};
      std::mt19937_64 rng(start + 50);
      options.inputs[0] = random("tensor<6x3xf64>", rng);
      VjpResult r = checkGradients(R"(func.func @f(%x: tensor<6x3xf64>, %i: tensor<i32>) -> tensor<2x2xf64> {
  %j = jx.constant dense<1> : tensor<i32>
  %0 = jx.dynamic_slice %x[%i, %j], sizes = [2, 2] : tensor<6x3xf64>, tensor<i32>, tensor<i32> -> tensor<2x2xf64>
  %1 = jx.sin %0 : tensor<2x2xf64>
  return %1 : tensor<2x2xf64>
})",
                                   options);
      CHECK(allZero(r.gradients[1]));
    }
    DYNAMIC_SECTION("dynamic_update_slice at " << start) {
      std::mt19937_64 rng(start + 70);
      GradCheck options;
      options.inputs = {random("tensor<5x4xf64>", rng), random("tensor<2x3xf64>", rng),
                        values("tensor<i32>", {static_cast<double>(start)}),
                        values("tensor<i32>", {static_cast<double>(start / 2)})};
      VjpResult r = checkGradients(R"(func.func @f(%x: tensor<5x4xf64>, %u: tensor<2x3xf64>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<5x4xf64> {
  %0 = jx.dynamic_update_slice %x, %u[%i, %j] : tensor<5x4xf64>, tensor<2x3xf64>, tensor<i32>, tensor<i32>
  %1 = jx.mul %0, %0 : tensor<5x4xf64>
  return %1 : tensor<5x4xf64>
})",
                                   options);
      CHECK(allZero(r.gradients[2]));
      CHECK(allZero(r.gradients[3]));
    }
  }
}

TEST_CASE("vjp of take and scatter_add", "[autodiff][grad]") {
  // Indices repeat (their cotangents accumulate), and 7 and -2 are clamped.
  const std::vector<double> rows = {1, 4, 1, 7, -2, 0}, cols = {2, 0, 2};
  SECTION("take along axis 0") {
    std::mt19937_64 rng(81);
    GradCheck options;
    options.inputs = {random("tensor<5x3xf64>", rng), values("tensor<6xi32>", rows)};
    VjpResult r = checkGradients(R"(func.func @f(%x: tensor<5x3xf64>, %i: tensor<6xi32>) -> tensor<6x3xf64> {
  %0 = jx.take %x[%i], axis = 0 : tensor<5x3xf64>, tensor<6xi32> -> tensor<6x3xf64>
  %1 = jx.sin %0 : tensor<6x3xf64>
  return %1 : tensor<6x3xf64>
})",
                                 options);
    CHECK(allZero(r.gradients[1]));
  }
  SECTION("take along axis 1, its result used twice") {
    std::mt19937_64 rng(82);
    GradCheck options;
    options.inputs = {random("tensor<2x4xf64>", rng), values("tensor<3xi64>", cols)};
    checkGradients(R"(func.func @f(%x: tensor<2x4xf64>, %i: tensor<3xi64>) -> tensor<2x3xf64> {
  %0 = jx.take %x[%i], axis = 1 : tensor<2x4xf64>, tensor<3xi64> -> tensor<2x3xf64>
  %1 = jx.mul %0, %0 : tensor<2x3xf64>
  %2 = jx.add %1, %0 : tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
})",
                   options);
  }
  SECTION("scatter_add, operand and updates active") {
    std::mt19937_64 rng(83);
    GradCheck options;
    options.inputs = {random("tensor<5x3xf64>", rng), values("tensor<6xi32>", rows),
                      random("tensor<6x3xf64>", rng)};
    VjpResult r = checkGradients(R"(func.func @f(%x: tensor<5x3xf64>, %i: tensor<6xi32>, %u: tensor<6x3xf64>) -> tensor<5x3xf64> {
  %0 = jx.scatter_add %x[%i], %u, axis = 0 : tensor<5x3xf64>, tensor<6xi32>, tensor<6x3xf64>
  %1 = jx.mul %0, %0 : tensor<5x3xf64>
  return %1 : tensor<5x3xf64>
})",
                                 options);
    CHECK(allZero(r.gradients[1]));
  }
}

TEST_CASE("vjp of pad", "[autodiff][grad]") {
  checkAll({
      {"low, high, interior", R"(func.func @f(%x: tensor<3xf64>, %p: tensor<f64>) -> tensor<8xf64> {
  %0 = jx.pad %x, %p, low = [1], high = [2], interior = [1] : tensor<3xf64>, tensor<f64> -> tensor<8xf64>
  %1 = jx.sin %0 : tensor<8xf64>
  return %1 : tensor<8xf64>
})"},
      {"negative low and high", R"(func.func @f(%x: tensor<6xf64>, %p: tensor<f64>) -> tensor<3xf64> {
  %0 = jx.pad %x, %p, low = [-2], high = [-1], interior = [0] : tensor<6xf64>, tensor<f64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
})"},
      {"negative low into interior padding", R"(func.func @f(%x: tensor<4xf64>, %p: tensor<f64>) -> tensor<7xf64> {
  %0 = jx.pad %x, %p, low = [-1], high = [1], interior = [2] : tensor<4xf64>, tensor<f64> -> tensor<10xf64>
  %1 = jx.slice %0, start = [0], limit = [7], strides = [1] : tensor<10xf64> -> tensor<7xf64>
  return %1 : tensor<7xf64>
})"},
      {"2-d mixed", R"(func.func @f(%x: tensor<3x4xf64>, %p: tensor<f64>) -> tensor<6x5xf64> {
  %0 = jx.pad %x, %p, low = [1, -1], high = [0, 0], interior = [1, 1] : tensor<3x4xf64>, tensor<f64> -> tensor<6x6xf64>
  %1 = jx.slice %0, start = [0, 0], limit = [6, 5], strides = [1, 1] : tensor<6x6xf64> -> tensor<6x5xf64>
  %2 = jx.mul %1, %1 : tensor<6x5xf64>
  return %2 : tensor<6x5xf64>
})"},
  });
}

TEST_CASE("vjp of reduce_sum", "[autodiff][grad]") {
  checkAll({
      {"vector to scalar", R"(func.func @f(%x: tensor<5xf64>) -> tensor<f64> {
  %0 = jx.reduce_sum %x, axes = [0] : tensor<5xf64> -> tensor<f64>
  return %0 : tensor<f64>
})"},
      {"middle axis", R"(func.func @f(%x: tensor<2x3x4xf64>) -> tensor<2x4xf64> {
  %0 = jx.reduce_sum %x, axes = [1] : tensor<2x3x4xf64> -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
})"},
      {"outer axes", R"(func.func @f(%x: tensor<2x3x4xf64>) -> tensor<3xf64> {
  %0 = jx.sin %x : tensor<2x3x4xf64>
  %1 = jx.reduce_sum %0, axes = [0, 2] : tensor<2x3x4xf64> -> tensor<3xf64>
  return %1 : tensor<3xf64>
})"},
      {"no axes", R"(func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = jx.reduce_sum %x, axes = [] : tensor<3xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
})"},
  });
}

TEST_CASE("vjp of reduce_max and reduce_min", "[autodiff][grad]") {
  for (std::string op : {"reduce_max", "reduce_min"}) {
    checkAll({
        {op + " all", subst(R"(func.func @f(%x: tensor<2x3xf64>) -> tensor<f64> {
  %0 = jx.$OP %x, axes = [0, 1] : tensor<2x3xf64> -> tensor<f64>
  return %0 : tensor<f64>
})",
                            {{"OP", op}})},
        {op + " axis 1", subst(R"(func.func @f(%x: tensor<3x4xf64>) -> tensor<3xf64> {
  %0 = jx.$OP %x, axes = [1] : tensor<3x4xf64> -> tensor<3xf64>
  return %0 : tensor<3xf64>
})",
                               {{"OP", op}})},
        {op + " axis 0 of 3-d", subst(R"(func.func @f(%x: tensor<3x2x2xf64>) -> tensor<2x2xf64> {
  %0 = jx.$OP %x, axes = [0] : tensor<3x2x2xf64> -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
})",
                                      {{"OP", op}})},
    });
    DYNAMIC_SECTION(op << " splits the cotangent evenly among ties") {
      auto module = parse(subst(R"(func.func @f(%x: tensor<2x4xf64>) -> tensor<2xf64> {
  %0 = jx.$OP %x, axes = [1] : tensor<2x4xf64> -> tensor<2xf64>
  return %0 : tensor<2xf64>
})",
                                {{"OP", op}}));
      differentiate(*module, false);
      double e = op == "reduce_max" ? 3.0 : -3.0;
      // Row 0: the extreme appears three times; row 1: once.
      Tensor x = values("tensor<2x4xf64>", {e, 0.5, e, e, 0.25, e, 1.0, -1.0});
      VjpResult r = runVjp(*module, {x}, {values("tensor<2xf64>", {1.5, -2.0})});
      std::vector<double> expected = {0.5, 0.0, 0.5, 0.5, 0.0, -2.0, 0.0, 0.0};
      for (int k = 0; k < 8; ++k)
        CHECK(r.gradients[0].getDouble(k) == expected[k]);
    }
  }
}

TEST_CASE("vjp of reduce_prod", "[autodiff][grad]") {
  std::mt19937_64 rng(31);
  for (auto [axes, out] : {std::pair{"[0, 1]", "tensor<f64>"}, std::pair{"[1]", "tensor<2xf64>"},
                           std::pair{"[0]", "tensor<3xf64>"}}) {
    DYNAMIC_SECTION("axes " << axes) {
      GradCheck options;
      options.inputs = {random("tensor<2x3xf64>", rng, -2, 2, 0.2)}; // no zeros
      checkGradients(subst(R"(func.func @f(%x: tensor<2x3xf64>) -> $R {
  %0 = jx.reduce_prod %x, axes = $A : tensor<2x3xf64> -> $R
  return %0 : $R
})",
                           {{"A", axes}, {"R", out}}),
                     options);
    }
  }
}

TEST_CASE("vjp of reduce_prod with zeros in the operand", "[autodiff][grad]") {
  // The product of the others, not prod / x (which is 0 / 0 at a zero).
  const std::string src = R"(func.func @f(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %0 = jx.reduce_prod %x, axes = [1] : tensor<2x3xf64> -> tensor<2xf64>
  return %0 : tensor<2xf64>
})";
  GradCheck options;
  // Row 0 has one zero, row 1 two.
  options.inputs = {values("tensor<2x3xf64>", {1.5, 0.0, -2.0, 0.0, 3.0, 0.0})};
  VjpResult r = checkGradients(src, options);
  double ct0 = r.cotangents[0].getDouble(0);
  CHECK(r.gradients[0].getDouble(0) == 0.0);
  CHECK(r.gradients[0].getDouble(1) == ct0 * 1.5 * -2.0);
  CHECK(r.gradients[0].getDouble(2) == 0.0);
  for (int k = 3; k < 6; ++k)
    CHECK(r.gradients[0].getDouble(k) == 0.0);
  // A zero among several reduced axes.
  options.inputs = {values("tensor<2x2xf64>", {0.5, 0.0, 2.0, -3.0})};
  checkGradients(R"(func.func @f(%x: tensor<2x2xf64>) -> tensor<f64> {
  %0 = jx.reduce_prod %x, axes = [0, 1] : tensor<2x2xf64> -> tensor<f64>
  return %0 : tensor<f64>
})",
                 options);
}

TEST_CASE("vjp of cumsum", "[autodiff][grad]") {
  checkAll({
      {"forward", R"(func.func @f(%x: tensor<5xf64>) -> tensor<5xf64> {
  %0 = jx.cumsum %x, axis = 0 : tensor<5xf64>
  return %0 : tensor<5xf64>
})"},
      {"reverse", R"(func.func @f(%x: tensor<5xf64>) -> tensor<5xf64> {
  %0 = jx.cumsum %x, axis = 0 reverse : tensor<5xf64>
  return %0 : tensor<5xf64>
})"},
      {"axis 1 of 2-d", R"(func.func @f(%x: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %0 = jx.cumsum %x, axis = 1 : tensor<2x4xf64>
  %1 = jx.sin %0 : tensor<2x4xf64>
  return %1 : tensor<2x4xf64>
})"},
      {"reverse axis 0 of 2-d", R"(func.func @f(%x: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %0 = jx.cumsum %x, axis = 0 reverse : tensor<3x2xf64>
  %1 = jx.mul %0, %x : tensor<3x2xf64>
  return %1 : tensor<3x2xf64>
})"},
  });
}

TEST_CASE("vjp of checkpoint_name and optimization_barrier", "[autodiff][grad]") {
  checkAll({
      {"checkpoint_name", R"(func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = jx.sin %x : tensor<3xf64>
  %1 = jx.checkpoint_name %0, "a" : tensor<3xf64>
  %2 = jx.mul %1, %x : tensor<3xf64>
  return %2 : tensor<3xf64>
})"},
      {"checkpoint_name on a scalar", R"(func.func @f(%x: tensor<f64>) -> tensor<f64> {
  %1 = jx.checkpoint_name %x, "s" : tensor<f64>
  %2 = jx.exp %1 : tensor<f64>
  return %2 : tensor<f64>
})"},
      {"optimization_barrier of two values", R"(func.func @f(%x: tensor<3xf64>, %y: tensor<2xf64>) -> (tensor<3xf64>, tensor<2xf64>) {
  %a, %b = jx.optimization_barrier %x, %y : tensor<3xf64>, tensor<2xf64>
  %0 = jx.sin %a : tensor<3xf64>
  %1 = jx.mul %b, %y : tensor<2xf64>
  return %0, %1 : tensor<3xf64>, tensor<2xf64>
})"},
      {"optimization_barrier, one result unused", R"(func.func @f(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %a, %b = jx.optimization_barrier %x, %y : tensor<3xf64>, tensor<3xf64>
  %0 = jx.cos %a : tensor<3xf64>
  return %0 : tensor<3xf64>
})"},
  });
}

TEST_CASE("vjp of a remat region without --jx-remat and with it", "[autodiff][grad]") {
  const std::string src = R"(func.func @f(%W: tensor<3x4xf64>, %x: tensor<4xf64>) -> tensor<3xf64> {
  %r = jx.remat(%W, %x) : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3xf64> policy = #jx.policy<nothing_saveable> {
  ^bb0(%w: tensor<3x4xf64>, %h: tensor<4xf64>):
    %0 = jx.dot_general %w, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<3x4xf64>, tensor<4xf64> -> tensor<3xf64>
    %1 = jx.tanh %0 : tensor<3xf64>
    jx.yield %1 : tensor<3xf64>
  }
  %2 = jx.mul %r, %r : tensor<3xf64>
  return %2 : tensor<3xf64>
})";
  for (bool remat : {false, true}) {
    DYNAMIC_SECTION("remat " << remat) {
      GradCheck options;
      options.remat = remat;
      checkGradients(src, options);
    }
  }
}
