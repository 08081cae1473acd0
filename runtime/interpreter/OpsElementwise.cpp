//===- OpsElementwise.cpp - Elementwise jx ops on host tensors ------------===//
//
// Implements the unary, binary, comparison, select_n, integer_pow and
// convert_element_type ops of Ops.h. Each op maps a generic lambda over the
// elements in the compute type of the element type (see Kernels.h); XLA's
// integer corner cases (division by zero, INT_MIN / -1) are spelled out.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Kernels.h"
#include "runtime/interpreter/Ops.h"
#include "dialects/jx/Threefry.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace cotangent::interp;
using namespace cotangent::interp::detail;

namespace {

template <typename T>
constexpr bool isInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// result[i] = f(x[i]) in x's compute type.
template <typename F>
Tensor mapUnary(const Tensor &x, F f) {
  Tensor result(x.getType());
  dispatchCompute(x.getElementKind(), [&]<typename T>() {
    for (int64_t i = 0, e = x.getNumElements(); i < e; ++i)
      write<T>(result, i, static_cast<T>(f(read<T>(x, i))));
  });
  return result;
}

/// result[i] = f(lhs[i], rhs[i]) in the operands' compute type.
template <typename F>
Tensor mapBinary(const Tensor &lhs, const Tensor &rhs, F f) {
  Tensor result(lhs.getType());
  dispatchCompute(lhs.getElementKind(), [&]<typename T>() {
    for (int64_t i = 0, e = lhs.getNumElements(); i < e; ++i)
      write<T>(result, i, static_cast<T>(f(read<T>(lhs, i), read<T>(rhs, i))));
  });
  return result;
}

/// result[i] = f(lhs[i], rhs[i]) as an i1 tensor of the operands' shape.
template <typename F>
Tensor mapCompare(const Tensor &lhs, const Tensor &rhs, F f) {
  auto i1 = mlir::IntegerType::get(lhs.getType().getContext(), 1);
  Tensor result(mlir::RankedTensorType::get(lhs.getShape(), i1));
  dispatchCompute(lhs.getElementKind(), [&]<typename T>() {
    for (int64_t i = 0, e = lhs.getNumElements(); i < e; ++i)
      result.setInt(i, f(read<T>(lhs, i), read<T>(rhs, i)) ? 1 : 0);
  });
  return result;
}

template <typename T>
T floatOrNaN(T a, T b, bool takeA) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
  }
  return takeA ? a : b;
}

} // namespace

Tensor cotangent::interp::negOp(const Tensor &x) {
  return mapUnary(x, []<typename T>(T v) { return wrapSub(T(0), v); });
}
Tensor cotangent::interp::sinOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::sin(v); });
}
Tensor cotangent::interp::cosOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::cos(v); });
}
Tensor cotangent::interp::tanOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::tan(v); });
}
Tensor cotangent::interp::expOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::exp(v); });
}
Tensor cotangent::interp::logOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::log(v); });
}
Tensor cotangent::interp::log1pOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::log1p(v); });
}
Tensor cotangent::interp::expm1Op(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::expm1(v); });
}
Tensor cotangent::interp::erfOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::erf(v); });
}
Tensor cotangent::interp::erfcOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::erfc(v); });
}
Tensor cotangent::interp::tanhOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::tanh(v); });
}
Tensor cotangent::interp::logisticOp(const Tensor &x) {
  return mapUnary(x, []<typename T>(T v) { return T(1) / (T(1) + std::exp(-v)); });
}
Tensor cotangent::interp::sqrtOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::sqrt(v); });
}
Tensor cotangent::interp::rsqrtOp(const Tensor &x) {
  return mapUnary(x, []<typename T>(T v) { return T(1) / std::sqrt(v); });
}
Tensor cotangent::interp::absOp(const Tensor &x) {
  return mapUnary(x, []<typename T>(T v) -> T {
    if constexpr (std::is_floating_point_v<T>)
      return std::fabs(v);
    else
      return v < T(0) ? wrapSub(T(0), v) : v;
  });
}
Tensor cotangent::interp::signOp(const Tensor &x) {
  return mapUnary(x, []<typename T>(T v) -> T {
    if (v > T(0))
      return T(1);
    if (v < T(0))
      return wrapSub(T(0), T(1));
    return v; // +0, -0, NaN
  });
}
Tensor cotangent::interp::floorOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::floor(v); });
}
Tensor cotangent::interp::ceilOp(const Tensor &x) {
  return mapUnary(x, [](auto v) { return std::ceil(v); });
}
Tensor cotangent::interp::notOp(const Tensor &x) {
  return mapUnary(x, []<typename T>(T v) -> T {
    if constexpr (std::is_same_v<T, bool>)
      return !v;
    else if constexpr (isInt<T>)
      return static_cast<T>(~v);
    else
      return v;
  });
}
Tensor cotangent::interp::stopGradientOp(const Tensor &x) { return x; }

Tensor cotangent::interp::integerPowOp(const Tensor &x, int64_t y) {
  return mapUnary(x, [y]<typename T>(T base) -> T {
    T acc = T(1);
    for (uint64_t n = y < 0 ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y); n;) {
      if (n & 1)
        acc = wrapMul(acc, base);
      n >>= 1;
      if (n)
        base = wrapMul(base, base);
    }
    if constexpr (std::is_floating_point_v<T>)
      if (y < 0)
        return T(1) / acc;
    return acc;
  });
}

Tensor cotangent::interp::addOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, [](auto a, auto b) { return wrapAdd(a, b); });
}
Tensor cotangent::interp::subOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, [](auto a, auto b) { return wrapSub(a, b); });
}
Tensor cotangent::interp::mulOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, [](auto a, auto b) { return wrapMul(a, b); });
}
Tensor cotangent::interp::divOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, []<typename T>(T a, T b) -> T {
    if constexpr (isInt<T>) {
      if (b == 0)
        return T(-1);
      if (a == std::numeric_limits<T>::min() && b == T(-1))
        return a;
      return a / b;
    } else if constexpr (std::is_same_v<T, bool>) {
      return b ? a : true;
    } else {
      return a / b;
    }
  });
}
Tensor cotangent::interp::remOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, []<typename T>(T a, T b) -> T {
    if constexpr (isInt<T>) {
      if (b == 0)
        return a;
      if (a == std::numeric_limits<T>::min() && b == T(-1))
        return T(0);
      return a % b;
    } else if constexpr (std::is_same_v<T, bool>) {
      return b ? false : a;
    } else {
      return std::fmod(a, b);
    }
  });
}
Tensor cotangent::interp::maxOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, [](auto a, auto b) { return floatOrNaN(a, b, a > b); });
}
Tensor cotangent::interp::minOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, [](auto a, auto b) { return floatOrNaN(a, b, a < b); });
}
Tensor cotangent::interp::powOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, [](auto a, auto b) { return std::pow(a, b); });
}
Tensor cotangent::interp::atan2Op(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, [](auto a, auto b) { return std::atan2(a, b); });
}
Tensor cotangent::interp::andOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, []<typename T>(T a, T b) -> T {
    if constexpr (std::is_same_v<T, bool>)
      return a && b;
    else if constexpr (isInt<T>)
      return a & b;
    else
      return a;
  });
}
Tensor cotangent::interp::orOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, []<typename T>(T a, T b) -> T {
    if constexpr (std::is_same_v<T, bool>)
      return a || b;
    else if constexpr (isInt<T>)
      return a | b;
    else
      return a;
  });
}

Tensor cotangent::interp::xorOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, []<typename T>(T a, T b) -> T {
    if constexpr (std::is_same_v<T, bool>)
      return a != b;
    else if constexpr (isInt<T>)
      return a ^ b;
    else
      return a;
  });
}
Tensor cotangent::interp::shiftRightLogicalOp(const Tensor &lhs, const Tensor &rhs) {
  return mapBinary(lhs, rhs, []<typename T>(T a, T b) -> T {
    if constexpr (isInt<T>) {
      using U = std::make_unsigned_t<T>;
      if (b < 0 || b >= static_cast<T>(8 * sizeof(T)))
        return T(0);
      return static_cast<T>(static_cast<U>(a) >> b);
    } else {
      return a;
    }
  });
}
std::vector<Tensor> cotangent::interp::threefry2x32Op(const Tensor &k0, const Tensor &k1,
                                                      const Tensor &x0, const Tensor &x1) {
  Tensor y0(x0.getType()), y1(x0.getType());
  auto word = [](const Tensor &t, int64_t i) { return static_cast<uint32_t>(t.getInt(i)); };
  for (int64_t i = 0, e = x0.getNumElements(); i < e; ++i) {
    auto [a, b] = mlir::jx::threefry::encipher(word(k0, i), word(k1, i), word(x0, i), word(x1, i));
    y0.setInt(i, static_cast<int32_t>(a));
    y1.setInt(i, static_cast<int32_t>(b));
  }
  return {y0, y1};
}

Tensor cotangent::interp::eqOp(const Tensor &lhs, const Tensor &rhs) {
  return mapCompare(lhs, rhs, [](auto a, auto b) { return a == b; });
}
Tensor cotangent::interp::neOp(const Tensor &lhs, const Tensor &rhs) {
  return mapCompare(lhs, rhs, [](auto a, auto b) { return a != b; });
}
Tensor cotangent::interp::ltOp(const Tensor &lhs, const Tensor &rhs) {
  return mapCompare(lhs, rhs, [](auto a, auto b) { return a < b; });
}
Tensor cotangent::interp::leOp(const Tensor &lhs, const Tensor &rhs) {
  return mapCompare(lhs, rhs, [](auto a, auto b) { return a <= b; });
}
Tensor cotangent::interp::gtOp(const Tensor &lhs, const Tensor &rhs) {
  return mapCompare(lhs, rhs, [](auto a, auto b) { return a > b; });
}
Tensor cotangent::interp::geOp(const Tensor &lhs, const Tensor &rhs) {
  return mapCompare(lhs, rhs, [](auto a, auto b) { return a >= b; });
}

Tensor cotangent::interp::selectNOp(const Tensor &which, llvm::ArrayRef<Tensor> cases) {
  Tensor result(cases.front().getType());
  int64_t last = static_cast<int64_t>(cases.size()) - 1;
  bool scalar = which.getRank() == 0;
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i) {
    int64_t k = std::clamp<int64_t>(which.getInt(scalar ? 0 : i), 0, last);
    result.copyElement(i, cases[k], i);
  }
  return result;
}

Tensor cotangent::interp::bitcastConvertTypeOp(const Tensor &x, mlir::Type elementType) {
  Tensor result(mlir::RankedTensorType::get(x.getShape(), elementType));
  std::memcpy(result.data(), x.data(), static_cast<size_t>(x.getByteSize()));
  return result;
}

Tensor cotangent::interp::convertElementTypeOp(const Tensor &x, mlir::Type elementType) {
  Tensor result(mlir::RankedTensorType::get(x.getShape(), elementType));
  for (int64_t i = 0, e = x.getNumElements(); i < e; ++i) {
    if (x.isFloat())
      result.setDouble(i, x.getDouble(i));
    else
      result.setInt(i, x.getInt(i));
  }
  return result;
}
