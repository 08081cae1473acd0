// The op functions of Ops.h called directly on Tensors, against values
// computed by hand, one section per op family.
#include "runtime/interpreter/Ops.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace cotangent::interp;
using namespace mlir;

namespace {

struct Fixture {
  MLIRContext ctx;
  Builder b{&ctx};
  Tensor f32(ArrayRef<int64_t> shape, ArrayRef<double> v) {
    return Tensor::fromDoubles(RankedTensorType::get(shape, b.getF32Type()), v);
  }
  Tensor f16(ArrayRef<int64_t> shape, ArrayRef<double> v) {
    return Tensor::fromDoubles(RankedTensorType::get(shape, b.getF16Type()), v);
  }
  Tensor i32(ArrayRef<int64_t> shape, ArrayRef<int64_t> v) {
    return Tensor::fromInts(RankedTensorType::get(shape, b.getI32Type()), v);
  }
};

std::vector<double> doubles(const Tensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    out.push_back(t.getDouble(i));
  return out;
}

std::vector<int64_t> ints(const Tensor &t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    out.push_back(t.getInt(i));
  return out;
}

std::vector<int64_t> shape(const Tensor &t) { return {t.getShape().begin(), t.getShape().end()}; }

using D = std::vector<double>;
using I = std::vector<int64_t>;

} // namespace

TEST_CASE_METHOD(Fixture, "unary and binary elementwise ops", "[interpreter][ops]") {
  Tensor x = f32({4}, {0.0, 4.0, -2.5, 0.25});
  CHECK(doubles(logisticOp(f32({1}, {0.0}))) == D{0.5});
  CHECK(doubles(sqrtOp(x))[1] == 2.0);
  CHECK(doubles(rsqrtOp(x))[3] == 2.0);
  CHECK(doubles(absOp(x)) == D{0.0, 4.0, 2.5, 0.25});
  CHECK(doubles(floorOp(x)) == D{0.0, 4.0, -3.0, 0.0});
  CHECK(doubles(ceilOp(x)) == D{0.0, 4.0, -2.0, 1.0});
  CHECK(doubles(signOp(x)) == D{0.0, 1.0, -1.0, 1.0});
  CHECK(doubles(integerPowOp(x, 2)) == D{0.0, 16.0, 6.25, 0.0625});
  CHECK(doubles(integerPowOp(f32({1}, {2.0}), -3)) == D{0.125});
  CHECK(doubles(expOp(f32({1}, {1.0})))[0] == static_cast<double>(std::exp(1.0f)));
  CHECK(doubles(atan2Op(f32({2}, {1.0, -1.0}), f32({2}, {0.0, 0.0}))) ==
        D{static_cast<double>(static_cast<float>(M_PI_2)), -static_cast<double>(static_cast<float>(M_PI_2))});

  double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor withNaN = maxOp(f32({2}, {nan, 1.0}), f32({2}, {0.0, 3.0}));
  CHECK(std::isnan(withNaN.getDouble(0)));
  CHECK(withNaN.getDouble(1) == 3.0);
  CHECK(std::isnan(minOp(f32({1}, {1.0}), f32({1}, {nan})).getDouble(0)));
  CHECK(doubles(remOp(f32({2}, {-7.0, 7.0}), f32({2}, {2.0, -2.0}))) == D{-1.0, 1.0});
}

TEST_CASE_METHOD(Fixture, "integer ops wrap and follow XLA at the edges", "[interpreter][ops]") {
  int64_t min = std::numeric_limits<int32_t>::min(), max = std::numeric_limits<int32_t>::max();
  Tensor a = i32({4}, {max, min, 7, -7}), b = i32({4}, {1, -1, 0, 2});
  CHECK(ints(addOp(a, b)) == I{min, max, 7, -5});
  CHECK(ints(divOp(a, b)) == I{max, min, -1, -3});
  CHECK(ints(remOp(a, b)) == I{0, 0, 7, -1});
  CHECK(ints(negOp(a)) == I{-max, min, -7, 7});
  CHECK(ints(integerPowOp(i32({2}, {3, 65536}), 2)) == I{9, 0}); // 2^32 wraps to 0
  CHECK(ints(notOp(i32({2}, {0, -1}))) == I{-1, 0});
}

TEST_CASE_METHOD(Fixture, "f16 arithmetic runs in float and rounds back", "[interpreter][ops]") {
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: rounds to even, 1.
  CHECK(doubles(addOp(f16({2}, {1.0, 1.0}), f16({2}, {0x1p-11, 0x1.8p-10}))) == D{1.0, 1.001953125});
  // 2048 + 1 = 2049 ties to 2048 in f16; the float sum was exact.
  CHECK(doubles(addOp(f16({1}, {2048.0}), f16({1}, {1.0}))) == D{2048.0});
  Tensor converted = convertElementTypeOp(f32({2}, {2049.0, 2051.0}), b.getF16Type());
  CHECK(doubles(converted) == D{2048.0, 2052.0});
}

TEST_CASE_METHOD(Fixture, "comparisons and select_n", "[interpreter][ops]") {
  Tensor a = f32({3}, {1.0, 2.0, 3.0}), c = f32({3}, {2.0, 2.0, 2.0});
  CHECK(ints(ltOp(a, c)) == I{1, 0, 0});
  CHECK(ints(geOp(a, c)) == I{0, 1, 1});
  CHECK(ints(neOp(a, c)) == I{1, 0, 1});
  Tensor which = i32({3}, {-5, 1, 9});
  CHECK(doubles(selectNOp(which, {a, c})) == D{1.0, 2.0, 2.0});
  Tensor scalar = Tensor::fromInts(RankedTensorType::get({}, b.getI1Type()), {1});
  CHECK(doubles(selectNOp(scalar, {a, c})) == D{2.0, 2.0, 2.0});
  CHECK(ints(convertElementTypeOp(f32({3}, {-1.9, 2.9, std::nan("")}), b.getI32Type())) == I{-1, 2, 0});
}

TEST_CASE_METHOD(Fixture, "dot_general with batch and contracting dimensions", "[interpreter][ops]") {
  // [2, 2, 3] x [2, 3, 1]: batch 0, contract lhs 2 with rhs 1.
  Tensor lhs = f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0});
  Tensor rhs = f32({2, 3, 1}, {1, 1, 1, 7, 8, 9});
  Tensor r = dotGeneralOp(lhs, rhs, {2}, {1}, {0}, {0});
  CHECK(shape(r) == I{2, 2, 1});
  CHECK(doubles(r) == D{6, 15, 7, 8});
  // Contracting the lhs's leading dimension, f64 result.
  Tensor m = f32({2, 2}, {1, 2, 3, 4}), v = f32({2}, {1, 10});
  Tensor t = dotGeneralOp(m, v, {0}, {0}, {}, {}, b.getF64Type());
  CHECK(t.getElementType().isF64());
  CHECK(doubles(t) == D{31, 42});
  // No contraction: an outer product.
  CHECK(doubles(dotGeneralOp(v, v, {}, {}, {}, {})) == D{1, 10, 10, 100});
}

TEST_CASE_METHOD(Fixture, "shape ops", "[interpreter][ops]") {
  Tensor x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor t = transposeOp(x, {1, 0});
  CHECK(shape(t) == I{3, 2});
  CHECK(ints(t) == I{1, 4, 2, 5, 3, 6});
  Tensor x3 = i32({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(ints(transposeOp(x3, {2, 0, 1})) == I{1, 4, 2, 5, 3, 6});
  CHECK(ints(broadcastInDimOp(i32({2}, {7, 8}), {2, 2}, {0})) == I{7, 7, 8, 8});
  CHECK(shape(expandDimsOp(x, {0, 3})) == I{1, 2, 3, 1});
  CHECK(shape(squeezeOp(x3, {0})) == I{2, 3});
  CHECK(reshapeOp(x, {6}).getBufferId() == x.getBufferId());
  CHECK(ints(concatenateOp({x, i32({2, 1}, {9, 10})}, 1)) == I{1, 2, 3, 9, 4, 5, 6, 10});
  CHECK(ints(sliceOp(x, {0, 0}, {2, 3}, {1, 2})) == I{1, 3, 4, 6});
  CHECK(ints(dynamicSliceOp(x, {1, 7}, {1, 2})) == I{5, 6}); // start 7 clamps to 1
  Tensor updated = dynamicUpdateSliceOp(x, i32({1, 2}, {0, 0}), {-3, 2});
  CHECK(ints(updated) == I{1, 0, 0, 4, 5, 6}); // starts clamp to (0, 1)
  CHECK(ints(x) == I{1, 2, 3, 4, 5, 6});       // the operand is unchanged
  Tensor pad = Tensor::fromInts(RankedTensorType::get({}, b.getI32Type()), {0});
  // low -1 crops the first element; interior 1 puts a 0 between elements.
  CHECK(ints(padOp(i32({3}, {1, 2, 3}), pad, {-1}, {1}, {1})) == I{0, 2, 0, 3, 0});
  CHECK(ints(iotaOp(RankedTensorType::get({2, 2}, b.getI64Type()), 0)) == I{0, 0, 1, 1});
}

TEST_CASE_METHOD(Fixture, "reductions, argmax and cumsum", "[interpreter][ops]") {
  Tensor x = f32({2, 3}, {1, 5, 2, 7, 3, 7});
  CHECK(doubles(reduceSumOp(x, {0})) == D{8, 8, 9});
  CHECK(doubles(reduceProdOp(x, {0, 1})) == D{1470});
  CHECK(doubles(reduceMaxOp(x, {1})) == D{5, 7});
  CHECK(doubles(reduceMinOp(x, {1})) == D{1, 3});
  CHECK(ints(argmaxOp(x, 1, b.getI32Type())) == I{1, 0});
  double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor withNaN = f32({3}, {1.0, nan, 5.0});
  CHECK(std::isnan(reduceMaxOp(withNaN, {0}).getDouble(0)));
  CHECK(ints(argmaxOp(withNaN, 0, b.getI64Type())) == I{1});
  CHECK(doubles(cumsumOp(x, 1, false)) == D{1, 6, 8, 7, 10, 17});
  CHECK(doubles(cumsumOp(x, 0, true)) == D{8, 8, 9, 7, 3, 7});
  // An empty reduction gives the identity.
  Tensor empty = f32({0, 2}, {});
  CHECK(doubles(reduceSumOp(empty, {0})) == D{0, 0});
  CHECK(doubles(reduceMaxOp(empty, {0}))[0] == -std::numeric_limits<double>::infinity());
}

TEST_CASE_METHOD(Fixture, "scan and while drivers call their bodies", "[interpreter][ops]") {
  // carry += x; y = carry * const.
  Tensor k = f32({}, {10.0});
  Tensor xs = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto body = [&](std::vector<Tensor> args) -> llvm::FailureOr<std::vector<Tensor>> {
    Tensor carry = addOp(args[1], args[2]);
    Tensor y = mulOp(reduceSumOp(carry, {0}), args[0]);
    return std::vector<Tensor>{carry, y};
  };
  auto ysType = RankedTensorType::get({3}, b.getF32Type());
  auto forward = scanOp({k}, {f32({2}, {0, 0})}, {xs}, 3, false, {ysType}, body);
  REQUIRE(succeeded(forward));
  CHECK(doubles((*forward)[0]) == D{9, 12});
  CHECK(doubles((*forward)[1]) == D{30, 100, 210});
  auto backward = scanOp({k}, {f32({2}, {0, 0})}, {xs}, 3, true, {ysType}, body);
  REQUIRE(succeeded(backward));
  CHECK(doubles((*backward)[1]) == D{210, 180, 110});

  auto cond = [&](std::vector<Tensor> args) -> llvm::FailureOr<std::vector<Tensor>> {
    return std::vector<Tensor>{ltOp(args[0], i32({}, {100}))};
  };
  auto twice = [&](std::vector<Tensor> args) -> llvm::FailureOr<std::vector<Tensor>> {
    return std::vector<Tensor>{addOp(args[0], args[0])};
  };
  auto loop = whileOp({i32({}, {3})}, cond, twice);
  REQUIRE(succeeded(loop));
  CHECK(ints((*loop)[0]) == I{192});
  CHECK(condBranchIndex(i32({}, {-2}), 3) == 0);
  CHECK(condBranchIndex(i32({}, {7}), 3) == 2);
}
