// The np namespace: implicit broadcasting and promotion become explicit ops,
// NumPy's dot/matmul rules, reductions, shapes and slicing.
#include "TraceTestUtil.h"

using namespace cotangent;
using cotangent::test::allOpsLocated;
using cotangent::test::checkInOrder;
using cotangent::test::countOps;

namespace {
std::string resultType(const Traced &t, unsigned i = 0) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.func().getResultTypes()[i].print(os);
  return s;
}
} // namespace

TEST_CASE("broadcasting and weak scalars become explicit ops", "[trace][numpy]") {
  trace t([](Tensor a, Tensor b) { return a * b + 1.0; }, f32({5, 1}), f32({4}));
  CHECK(resultType(t) == "tensor<5x4xf32>");
  CHECK(countOps(t.module(), "jx.broadcast_in_dim") == 2);
  CHECK(countOps(t.module(), "jx.convert_element_type") == 0);
  CHECK(checkInOrder(t.mlir(), {"jx.broadcast_in_dim %arg0, dims = [0, 1] : tensor<5x1xf32> -> tensor<5x4xf32>",
                                "jx.broadcast_in_dim %arg1, dims = [1] : tensor<4xf32> -> tensor<5x4xf32>",
                                "jx.mul", "jx.constant dense<1.000000e+00> : tensor<5x4xf32>",
                                "jx.add"}));
  CHECK(checkInOrder(t.jaxpr(), {"mul", "add", "1.0:f32[5,4]"}));
  CHECK(t.func().getSymName() == "main");
  CHECK(allOpsLocated(t, {"main"}, __FILE__));
}

TEST_CASE("dtype promotion follows JAX's lattice", "[trace][numpy]") {
  CHECK(promoteTypes({{DType::I32}, {DType::F32}}) == DType::F32);
  CHECK(promoteTypes({{DType::BF16}, {DType::F16}}) == DType::F32);
  CHECK(promoteTypes({{DType::I64}, {DType::F16}}) == DType::F16);
  CHECK(promoteTypes({{DType::Bool}, {DType::I32}}) == DType::I32);
  CHECK(promoteTypes({{DType::F16}, {DType::F32, true}}) == DType::F16); // weak float
  CHECK(promoteTypes({{DType::I32}, {DType::F32, true}}) == DType::F32);
  CHECK(promoteTypes({{DType::Bool}, {DType::I32, true}}) == DType::I32);
  CHECK(promoteTypes({{DType::F32}, {DType::F64}}) == DType::F64);

  trace t([](Tensor i, Tensor h) { return std::pair{i + h, i * 2}; }, i32({3}), Spec{{3}, DType::F16});
  CHECK(resultType(t, 0) == "tensor<3xf16>");
  CHECK(resultType(t, 1) == "tensor<3xi32>"); // a weak int keeps i32
  CHECK(checkInOrder(t.mlir(), {"jx.convert_element_type %arg0 : tensor<3xi32> -> tensor<3xf16>",
                                "jx.add"}));
  trace d([](Tensor i) { return i / 2; }, i32({3})); // true division
  CHECK(resultType(d) == "tensor<3xf32>");
  trace s([](Tensor i) { return np::sin(i); }, i32({3}));
  CHECK(resultType(s) == "tensor<3xf32>");
}

TEST_CASE("comparisons, where, logical ops", "[trace][numpy]") {
  trace t(
      [](Tensor x, Tensor y) {
        Tensor m = (x < y) & (x >= 0.0);
        return np::where(m, x, y * -1.0) + (x == y) * 1.0 + (x != y) + (x <= y) + (x > y);
      },
      f32({4}), f32({4}));
  for (const char *op : {"jx.lt", "jx.ge", "jx.eq", "jx.ne", "jx.le", "jx.gt", "jx.and",
                         "jx.select_n"})
    CHECK(countOps(t.module(), op) == 1);
  CHECK(resultType(t) == "tensor<4xf32>");
  CHECK(allOpsLocated(t, {"main"}, __FILE__));
}

TEST_CASE("every unary function emits its primitive", "[trace][numpy]") {
  trace t(
      [](Tensor x) {
        Tensor y = np::sin(x) + np::cos(x) + np::tan(x) + np::exp(x) + np::log(x) +
                   np::log1p(x) + np::expm1(x) + np::erf(x) + np::erfc(x) + np::tanh(x) + np::logistic(x) + np::sqrt(x) +
                   np::rsqrt(x) + np::abs(x) + np::sign(x) + np::floor(x) + np::ceil(x) +
                   np::relu(x) + np::power(x, 3) + np::power(x, x) + np::stop_gradient(x);
        return -y;
      },
      f32({2}));
  for (const char *op : {"jx.sin", "jx.cos", "jx.tan", "jx.exp", "jx.log", "jx.log1p",
                         "jx.expm1", "jx.erf", "jx.erfc", "jx.tanh", "jx.logistic", "jx.sqrt", "jx.rsqrt", "jx.abs",
                         "jx.sign", "jx.floor", "jx.ceil", "jx.max", "jx.integer_pow", "jx.pow",
                         "jx.stop_gradient", "jx.neg"})
    CHECK(countOps(t.module(), op) == 1);
  CHECK(allOpsLocated(t, {"main"}, __FILE__));
}

TEST_CASE("dot and matmul follow NumPy's rules", "[trace][numpy]") {
  trace vv([](Tensor a, Tensor b) { return np::dot(a, b); }, f32({4}), f32({4}));
  CHECK(resultType(vv) == "tensor<f32>");
  trace mv([](Tensor a, Tensor b) { return np::dot(a, b); }, f32({4}), f32({4, 3}));
  CHECK(resultType(mv) == "tensor<3xf32>");
  trace nd([](Tensor a, Tensor b) { return np::dot(a, b); }, f32({2, 5, 4}), f32({3, 4, 6}));
  CHECK(resultType(nd) == "tensor<2x5x3x6xf32>");
  trace bmm([](Tensor a, Tensor b) { return np::matmul(a, b); }, f32({8, 1, 5, 4}), f32({3, 4, 6}));
  CHECK(resultType(bmm) == "tensor<8x3x5x6xf32>");
  CHECK(checkInOrder(bmm.mlir(), {"jx.broadcast_in_dim", "jx.broadcast_in_dim", "jx.dot_general",
                                  "contracting_dims = [3] x [2], batch_dims = [0, 1] x [0, 1]"}));
  CHECK(checkInOrder(bmm.jaxpr(), {"dot_general[dimension_numbers=(([3], [2]), ([0, 1], [0, 1]))]"}));
}

TEST_CASE("reductions with axes and keepdims", "[trace][numpy]") {
  trace t(
      [](Tensor x) {
        return std::tuple{np::sum(x), np::mean(x, 1), np::max(x, {0, 2}, true), np::min(x, -1),
                          np::prod(x, 0), np::argmax(x, 1), np::argmax(x), np::cumsum(x, 2, true)};
      },
      f32({2, 3, 4}));
  CHECK(resultType(t, 0) == "tensor<f32>");
  CHECK(resultType(t, 1) == "tensor<2x4xf32>");
  CHECK(resultType(t, 2) == "tensor<1x3x1xf32>");
  CHECK(resultType(t, 3) == "tensor<2x3xf32>");
  CHECK(resultType(t, 4) == "tensor<3x4xf32>");
  CHECK(resultType(t, 5) == "tensor<2x4xi32>");
  CHECK(resultType(t, 6) == "tensor<i32>");
  CHECK(resultType(t, 7) == "tensor<2x3x4xf32>");
  CHECK(checkInOrder(t.mlir(), {"jx.reduce_sum %arg0, axes = [0, 1, 2]", "jx.reduce_sum",
                                "jx.div", "jx.reduce_max", "jx.expand_dims", "jx.reduce_min",
                                "jx.reduce_prod", "jx.argmax", "jx.reshape", "jx.argmax",
                                "jx.cumsum", "axis = 2 reverse"}));
}

TEST_CASE("shape functions, creation and slicing", "[trace][numpy]") {
  trace t(
      [](Tensor x, Tensor i) {
        Tensor r = np::reshape(x, {-1, 2});             // [6, 2]
        Tensor tr = np::transpose(x);                   // [4, 3]
        Tensor e = np::squeeze(np::expand_dims(x, 0));  // [3, 4]
        Tensor c = np::concatenate({x, np::zeros({1, 4})}, 0);  // [4, 4]
        Tensor s = np::stack({x, x}, 1);                // [3, 2, 4]
        Tensor b = np::broadcast_to(np::arange(4), {3, 4});
        Tensor f = np::astype(b, DType::F32) + np::ones({3, 4}) + np::full({4}, 0.5);
        Tensor sl = np::slice_in_dim(x, 1, 3, 1, 0) + x[0];  // [2, 4]
        Tensor d = np::dynamic_index_in_dim(x, i);      // [4]
        return std::tuple{r, tr, e, c, s, f, sl, d};
      },
      f32({3, 4}), i32({}));
  CHECK(resultType(t, 0) == "tensor<6x2xf32>");
  CHECK(resultType(t, 1) == "tensor<4x3xf32>");
  CHECK(resultType(t, 2) == "tensor<3x4xf32>");
  CHECK(resultType(t, 3) == "tensor<4x4xf32>");
  CHECK(resultType(t, 4) == "tensor<3x2x4xf32>");
  CHECK(resultType(t, 5) == "tensor<3x4xf32>");
  CHECK(resultType(t, 6) == "tensor<2x4xf32>");
  CHECK(resultType(t, 7) == "tensor<4xf32>");
  for (const char *op : {"jx.reshape", "jx.transpose", "jx.iota", "jx.concatenate", "jx.slice",
                         "jx.dynamic_slice", "jx.convert_element_type"})
    CHECK(countOps(t.module(), op) >= 1);
  CHECK(allOpsLocated(t, {"main"}, __FILE__));
}

TEST_CASE("the jaxpr printer works on any func.func and names variables as JAX", "[trace][numpy]") {
  trace t(
      [](Tensor x) {
        for (int i = 0; i < 30; ++i)
          x = np::sin(x);
        return x;
      },
      f32({}));
  std::string j = t.jaxpr();
  CHECK(checkInOrder(j, {"{ lambda ; a:f32[]. let", "\n    b:f32[] = sin a", "z:f32[] = sin y",
                         "ba:f32[] = sin z", "bb:f32[] = sin ba", "in (be,) }"}));
  std::string s;
  llvm::raw_string_ostream os(s);
  mlir::cotangent::printJaxpr(t.func(), os);
  CHECK(s == j);
}
