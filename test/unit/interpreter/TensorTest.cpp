// Tensor: element conversions (f16 / bf16 round to nearest even, integers
// wrap or saturate), attribute round trips, shared buffers and byte counts.
#include "runtime/interpreter/Tensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace cotangent::interp;
using namespace mlir;

namespace {
struct Types {
  MLIRContext ctx;
  Builder b{&ctx};
  RankedTensorType of(Type element, ArrayRef<int64_t> shape) { return RankedTensorType::get(shape, element); }
};
} // namespace

TEST_CASE_METHOD(Types, "f16 rounds to nearest even", "[interpreter][tensor]") {
  Tensor t = Tensor::fromDoubles(of(b.getF16Type(), {5}), {2049.0, 2051.0, 65520.0, 1.0 / 3.0, -0.0});
  CHECK(t.getDouble(0) == 2048.0); // tie -> even mantissa
  CHECK(t.getDouble(1) == 2052.0); // tie -> even mantissa
  CHECK(std::isinf(t.getDouble(2))); // past the largest f16, 65504
  CHECK(t.getDouble(3) == 0.333251953125); // nearest f16 to 1/3
  CHECK(std::signbit(t.getDouble(4)));
  CHECK(t.getByteSize() == 10);
}

TEST_CASE_METHOD(Types, "bf16 rounds to nearest even", "[interpreter][tensor]") {
  Tensor t = Tensor::fromDoubles(of(b.getBF16Type(), {4}), {1.00390625, 1.01171875, 1.005, 65535.0});
  CHECK(t.getDouble(0) == 1.0);       // 1 + 2^-8: tie -> 1
  CHECK(t.getDouble(1) == 1.015625);  // 1 + 3 * 2^-8: tie -> 1 + 2^-6
  CHECK(t.getDouble(2) == 1.0078125); // above the tie -> up
  CHECK(t.getDouble(3) == 65536.0);     // 8 significant bits
}

TEST_CASE_METHOD(Types, "integers wrap on setInt and saturate from doubles", "[interpreter][tensor]") {
  Tensor t(of(b.getI32Type(), {4}));
  t.setInt(0, (int64_t{1} << 32) + 5);
  t.setInt(1, int64_t{std::numeric_limits<int32_t>::max()} + 1);
  t.setDouble(2, 3.0e9);
  t.setDouble(3, -1.7);
  CHECK(t.getInt(0) == 5);
  CHECK(t.getInt(1) == std::numeric_limits<int32_t>::min());
  CHECK(t.getInt(2) == std::numeric_limits<int32_t>::max());
  CHECK(t.getInt(3) == -1);
  Tensor p = Tensor::fromDoubles(of(b.getI1Type(), {3}), {0.0, 2.5, -1.0});
  CHECK(p.getInt(0) == 0);
  CHECK(p.getInt(1) == 1);
  CHECK(p.getInt(2) == 1);
  CHECK(p.getByteSize() == 3);
}

TEST_CASE_METHOD(Types, "tensors round-trip through dense attributes", "[interpreter][tensor]") {
  for (Type element : {Type(b.getF32Type()), Type(b.getF64Type()), Type(b.getF16Type()),
                       Type(b.getBF16Type()), Type(b.getI32Type()), Type(b.getI64Type())}) {
    Tensor t = Tensor::fromDoubles(of(element, {2, 2}), {1.5, -2.0, 0.25, 7.0});
    DenseElementsAttr attr = t.toAttr();
    CHECK(attr.getType() == t.getType());
    Tensor back = Tensor::fromAttr(attr);
    for (int64_t i = 0; i < 4; ++i)
      CHECK(back.getDouble(i) == t.getDouble(i));
  }
  auto bools = of(b.getI1Type(), {3});
  Tensor p = Tensor::fromAttr(DenseElementsAttr::get(bools, ArrayRef<bool>{true, false, true}));
  CHECK(p.getInt(0) == 1);
  CHECK(p.getInt(1) == 0);
  CHECK(p.toAttr() == DenseElementsAttr::get(bools, ArrayRef<bool>{true, false, true}));
  Tensor splat = Tensor::fromAttr(DenseElementsAttr::get(of(b.getF32Type(), {3}), 2.5f));
  CHECK(splat.getDouble(2) == 2.5);
}

TEST_CASE_METHOD(Types, "copies share a buffer until written", "[interpreter][tensor]") {
  Tensor a = Tensor::fromDoubles(of(b.getF32Type(), {2, 3}), {1, 2, 3, 4, 5, 6});
  Tensor view = a.withType(of(b.getF32Type(), {6}));
  CHECK(view.getBufferId() == a.getBufferId());
  CHECK(view.getDouble(4) == 5.0);
  Tensor copy = a;
  copy.setDouble(0, 9.0);
  CHECK(copy.getBufferId() != a.getBufferId());
  CHECK(a.getDouble(0) == 1.0);
  CHECK(a.clone().getBufferId() != a.getBufferId());
}

TEST_CASE_METHOD(Types, "a MemoryScope counts buffers while they live", "[interpreter][tensor]") {
  auto counter = std::make_shared<MemoryCounter>();
  {
    MemoryScope scope(counter);
    Tensor a(of(b.getF64Type(), {4}));
    {
      Tensor c(of(b.getF32Type(), {4}));
      Tensor shared = c; // no new buffer
      CHECK(counter->liveBytes == 48);
    }
    CHECK(counter->liveBytes == 32);
  }
  CHECK(counter->liveBytes == 0);
  CHECK(counter->peakBytes == 48);
}
