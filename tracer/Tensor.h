//===- Tensor.h - the traced tensor handle and its operators ----*- C++ -*-===//
//
// `Tensor` is a cheap handle to an SSA value of the trace it was created in.
// It caches its shape and dtype, so that error messages can describe it even
// after its trace finished. Arithmetic operators broadcast and promote as
// NumPy/JAX do; C++ scalars mix in as weakly typed constants. Operators take
// `Operand`s, whose implicit constructors capture the caller's source
// location (operators cannot have default arguments of their own).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_TENSOR_H
#define COTANGENT_TRACER_TENSOR_H

#include "tracer/DType.h"
#include "tracer/Errors.h"

#include "mlir/IR/Value.h"

#include <concepts>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

namespace cotangent {

using Shape = std::vector<int64_t>;
using SrcLoc = std::source_location;

/// The abstract value of a function argument: a shape and a dtype (JAX's
/// ShapeDtypeStruct).
struct Spec {
  Shape shape;
  DType dtype = DType::F32;
};

inline Spec f32(Shape shape) { return {std::move(shape), DType::F32}; }
inline Spec f64(Shape shape) { return {std::move(shape), DType::F64}; }
inline Spec i32(Shape shape) { return {std::move(shape), DType::I32}; }
inline Spec i64(Shape shape) { return {std::move(shape), DType::I64}; }
inline Spec boolean(Shape shape) { return {std::move(shape), DType::Bool}; }

/// The empty tree (JAX's None): e.g. the `y` of a scan body that stacks nothing.
struct None {
  bool operator==(const None &) const = default;
};

/// A handle to a value of an active trace.
class Tensor {
public:
  Tensor() = default;

  const Shape &shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size() const; ///< number of elements
  /// True for constants made from C++ scalars: they adopt the other operand's dtype.
  bool weak() const { return weak_; }
  bool valid() const { return traceId_ != 0; }
  /// "f32[5,4]".
  std::string str() const { return shapeString(dtype_, shape_); }

  /// The underlying SSA value. Only meaningful while its trace is active.
  mlir::Value value() const { return value_; }
  uint64_t traceId() const { return traceId_; }

  /// An index with the caller's location (operator[] has no default arguments).
  struct Index {
    int64_t i;
    SrcLoc loc;
    template <std::integral I>
    Index(I i, SrcLoc loc = SrcLoc::current()) : i(static_cast<int64_t>(i)), loc(loc) {}
  };
  /// Slices index `i` of the leading axis away (x[i] in NumPy).
  Tensor operator[](Index i) const;

  /// Internal: wraps a value of trace `traceId`.
  static Tensor fromValue(uint64_t traceId, mlir::Value value, bool weak = false);

private:
  uint64_t traceId_ = 0;
  mlir::Value value_;
  Shape shape_;
  DType dtype_ = DType::F32;
  bool weak_ = false;
};

/// An operand of an operator: a tensor or a C++ scalar, with the caller's
/// source location.
struct Operand {
  enum class Kind { Tensor, Int, Float };
  Kind kind;
  Tensor tensor;
  double floatValue = 0;
  int64_t intValue = 0;
  SrcLoc loc;

  Operand(const Tensor &t, SrcLoc loc = SrcLoc::current())
      : kind(Kind::Tensor), tensor(t), loc(loc) {}
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  Operand(I v, SrcLoc loc = SrcLoc::current()) : kind(Kind::Int), intValue(v), loc(loc) {}
  template <std::floating_point F>
  Operand(F v, SrcLoc loc = SrcLoc::current())
      : kind(Kind::Float), floatValue(static_cast<double>(v)), loc(loc) {}
};

Tensor operator+(const Operand &a, const Operand &b);
Tensor operator-(const Operand &a, const Operand &b);
Tensor operator*(const Operand &a, const Operand &b);
Tensor operator/(const Operand &a, const Operand &b);
Tensor operator-(const Operand &a);
Tensor operator<(const Operand &a, const Operand &b);
Tensor operator<=(const Operand &a, const Operand &b);
Tensor operator>(const Operand &a, const Operand &b);
Tensor operator>=(const Operand &a, const Operand &b);
Tensor operator==(const Operand &a, const Operand &b);
Tensor operator!=(const Operand &a, const Operand &b);
Tensor operator&(const Operand &a, const Operand &b); ///< logical/bitwise and
Tensor operator|(const Operand &a, const Operand &b); ///< logical/bitwise or
Tensor operator~(const Operand &a);                   ///< logical/bitwise not

Tensor &operator+=(Tensor &a, const Operand &b);
Tensor &operator-=(Tensor &a, const Operand &b);
Tensor &operator*=(Tensor &a, const Operand &b);
Tensor &operator/=(Tensor &a, const Operand &b);

} // namespace cotangent

#endif // COTANGENT_TRACER_TENSOR_H
