//===- JxBuilder.h - terse emission of jx ops for rewrite rules -*- C++ -*-===//
//
// The VJP rules read like the math they implement: `b.mul(ct, b.cos(x))`.
// Arithmetic helpers treat a null Value as an exact zero (a cotangent that
// never arrived), so rules need not special-case missing cotangents.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_AUTODIFF_JXBUILDER_H
#define COTANGENT_PASSES_AUTODIFF_JXBUILDER_H

#include "dialects/jx/JxOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::cotangent {

class JxBuilder {
public:
  JxBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location getLoc() const { return loc; }

  /// A tensor of `type` filled with `value` (converted to its element type).
  Value splat(Type type, double value);
  Value zeros(Type type) { return splat(type, 0.0); }
  /// `value` itself, or zeros of `type` when `value` is null.
  Value orZeros(Value value, Type type) { return value ? value : zeros(type); }

  /// Null-aware: a null operand is zero.
  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value neg(Value x);
  Value div(Value x, Value y);

  template <typename OpT, typename... Args>
  Value create(Args &&...args) {
    return OpT::create(b, loc, std::forward<Args>(args)...).getResult();
  }

  Value reduceSum(Value x, ArrayRef<int64_t> axes);
  Value broadcastInDim(Value x, Type type, ArrayRef<int64_t> dims);
  Value reshape(Value x, Type type);
  Value transpose(Value x, ArrayRef<int64_t> perm);
  Value convert(Value x, Type type);
  Value select(Value which, ValueRange cases);

private:
  OpBuilder &b;
  Location loc;
};

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_AUTODIFF_JXBUILDER_H
