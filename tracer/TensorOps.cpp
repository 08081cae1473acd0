//===- TensorOps.cpp - Tensor members and arithmetic operators ------------===//
//
// The operators forward to the np namespace with the location their operands
// captured, so `a + b` and `np::add(a, b)` emit the same ops.
//
//===----------------------------------------------------------------------===//

#include "tracer/Numpy.h"
#include "tracer/TraceState.h"

#include <functional>
#include <numeric>

namespace cotangent {

Tensor Tensor::fromValue(uint64_t traceId, mlir::Value value, bool weak) {
  Tensor t;
  t.traceId_ = traceId;
  t.value_ = value;
  auto type = mlir::cast<mlir::RankedTensorType>(value.getType());
  t.shape_.assign(type.getShape().begin(), type.getShape().end());
  t.dtype_ = fromMlirType(type.getElementType());
  t.weak_ = weak;
  return t;
}

int64_t Tensor::size() const {
  return std::accumulate(shape_.begin(), shape_.end(), int64_t{1}, std::multiplies<>());
}

Tensor Tensor::operator[](Index i) const {
  return np::index_in_dim(*this, i.i, 0, i.loc);
}

Tensor operator+(const Operand &a, const Operand &b) { return np::add(a, b, a.loc); }
Tensor operator-(const Operand &a, const Operand &b) { return np::subtract(a, b, a.loc); }
Tensor operator*(const Operand &a, const Operand &b) { return np::multiply(a, b, a.loc); }
Tensor operator/(const Operand &a, const Operand &b) { return np::divide(a, b, a.loc); }
Tensor operator<(const Operand &a, const Operand &b) { return np::less(a, b, a.loc); }
Tensor operator<=(const Operand &a, const Operand &b) { return np::less_equal(a, b, a.loc); }
Tensor operator>(const Operand &a, const Operand &b) { return np::greater(a, b, a.loc); }
Tensor operator>=(const Operand &a, const Operand &b) { return np::greater_equal(a, b, a.loc); }
Tensor operator==(const Operand &a, const Operand &b) { return np::equal(a, b, a.loc); }
Tensor operator!=(const Operand &a, const Operand &b) { return np::not_equal(a, b, a.loc); }
Tensor operator&(const Operand &a, const Operand &b) { return np::logical_and(a, b, a.loc); }
Tensor operator|(const Operand &a, const Operand &b) { return np::logical_or(a, b, a.loc); }

Tensor operator-(const Operand &a) {
  if (a.kind != Operand::Kind::Tensor)
    throwTraceError("neg", "expects a Tensor operand", {}, a.loc);
  return np::negative(a.tensor, a.loc);
}

Tensor operator~(const Operand &a) {
  if (a.kind != Operand::Kind::Tensor)
    throwTraceError("not", "expects a Tensor operand", {}, a.loc);
  return np::logical_not(a.tensor, a.loc);
}

Tensor &operator+=(Tensor &a, const Operand &b) { return a = np::add(a, b, b.loc); }
Tensor &operator-=(Tensor &a, const Operand &b) { return a = np::subtract(a, b, b.loc); }
Tensor &operator*=(Tensor &a, const Operand &b) { return a = np::multiply(a, b, b.loc); }
Tensor &operator/=(Tensor &a, const Operand &b) { return a = np::divide(a, b, b.loc); }

} // namespace cotangent
