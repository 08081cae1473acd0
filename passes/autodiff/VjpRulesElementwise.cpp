//===- VjpRulesElementwise.cpp - VJP rules of elementwise jx ops ----------===//
//
// Unary ops multiply (or divide) the cotangent by a derivative factor that
// the forward computes and saves: the factor is the residual, as in JAX
// (sin saves cos(x), exp saves exp(x), log saves x). Binary ops save what
// each active operand's cotangent needs.
//
//===----------------------------------------------------------------------===//

#include "passes/autodiff/VjpRules.h"

#include <numbers>

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

namespace {

using Factor = std::function<Value(JxBuilder &b, Value x, Value y)>;

/// ct_x = ct * factor(x, y), or ct / factor(x, y) with `divide`.
template <typename OpT>
void unary(VjpRuleTable &t, Factor factor, bool divide = false) {
  t[TypeID::get<OpT>()] = VjpRule{
      [factor](JxBuilder &b, Operation *op, ArrayRef<bool>) {
        return SmallVector<Value>{factor(b, op->getOperand(0), op->getResult(0))};
      },
      [divide](JxBuilder &b, Operation *, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        return SmallVector<Value>{divide ? b.div(cts[0], res[0]) : b.mul(cts[0], res[0])};
      }};
}

/// Ops whose cotangent map is fixed (no residuals): `map(ct) -> operand cts`.
template <typename OpT>
void linear(VjpRuleTable &t,
            std::function<SmallVector<Value>(JxBuilder &, Operation *, Value)> map) {
  t[TypeID::get<OpT>()] = VjpRule{
      [](JxBuilder &, Operation *, ArrayRef<bool>) { return SmallVector<Value>(); },
      [map](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange, ArrayRef<Value> cts) {
        return cts[0] ? map(b, op, cts[0]) : SmallVector<Value>(op->getNumOperands());
      }};
}

/// Binary ops: `factors` computes, in the forward, one factor per active
/// operand; the operand's cotangent is ct * factor.
template <typename OpT>
void binary(VjpRuleTable &t,
            std::function<Value(JxBuilder &, Operation *, unsigned operand)> factor) {
  t[TypeID::get<OpT>()] = VjpRule{
      [factor](JxBuilder &b, Operation *op, ArrayRef<bool> active) {
        SmallVector<Value> res;
        for (unsigned i = 0; i < 2; ++i)
          if (active[i])
            res.push_back(factor(b, op, i));
        return res;
      },
      [](JxBuilder &b, Operation *, ArrayRef<bool> active, ValueRange res, ArrayRef<Value> cts) {
        SmallVector<Value> out(2);
        unsigned next = 0;
        for (unsigned i = 0; i < 2; ++i)
          if (active[i])
            out[i] = b.mul(cts[0], res[next++]);
        return out;
      }};
}

Value one(JxBuilder &b, Value like) { return b.splat(like.getType(), 1.0); }

/// 1 where `x` wins the comparison, 1/2 on ties, 0 otherwise (JAX splits ties evenly).
template <typename CmpOp>
Value chooserMask(JxBuilder &b, Value x, Value y) {
  Value half = b.splat(x.getType(), 0.5), zero = b.zeros(x.getType());
  Value tie = b.select(b.create<EqOp>(x, y), {zero, half});
  return b.select(b.create<CmpOp>(x, y), {tie, one(b, x)});
}

} // namespace

void mlir::cotangent::addElementwiseVjpRules(VjpRuleTable &t) {
  unary<SinOp>(t, [](JxBuilder &b, Value x, Value) { return b.create<CosOp>(x); });
  unary<CosOp>(t, [](JxBuilder &b, Value x, Value) { return b.neg(b.create<SinOp>(x)); });
  unary<TanOp>(t, [](JxBuilder &b, Value, Value y) { return b.add(one(b, y), b.mul(y, y)); });
  unary<ExpOp>(t, [](JxBuilder &, Value, Value y) { return y; });
  unary<LogOp>(t, [](JxBuilder &, Value x, Value) { return x; }, /*divide=*/true);
  unary<Log1pOp>(t, [](JxBuilder &b, Value x, Value) { return b.add(x, one(b, x)); },
                 /*divide=*/true);
  unary<Expm1Op>(t, [](JxBuilder &b, Value, Value y) { return b.add(y, one(b, y)); });
  // d erf(x)/dx = 2/sqrt(pi) exp(-x^2), saved as one factor (JAX's erf JVP).
  auto erfSlope = [](JxBuilder &b, Value x, double sign) {
    Value scale = b.splat(x.getType(), sign * 2.0 * std::numbers::inv_sqrtpi);
    return b.mul(scale, b.create<ExpOp>(b.neg(b.mul(x, x))));
  };
  unary<ErfOp>(t, [erfSlope](JxBuilder &b, Value x, Value) { return erfSlope(b, x, 1.0); });
  unary<ErfcOp>(t, [erfSlope](JxBuilder &b, Value x, Value) { return erfSlope(b, x, -1.0); });
  // tanh saves its output y and the backward forms 1 - y*y: y is what the
  // next layer's weight gradient reads anyway, so a dense tanh layer keeps
  // one activation, not two.
  t[TypeID::get<TanhOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool>) {
        return SmallVector<Value>{op->getResult(0)};
      },
      [](JxBuilder &b, Operation *, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        Value y = res[0];
        return SmallVector<Value>{b.mul(cts[0], b.sub(one(b, y), b.mul(y, y)))};
      }};
  unary<LogisticOp>(t,
                    [](JxBuilder &b, Value, Value y) { return b.mul(y, b.sub(one(b, y), y)); });
  unary<SqrtOp>(t, [](JxBuilder &b, Value, Value y) { return b.add(y, y); }, /*divide=*/true);
  unary<RsqrtOp>(t, [](JxBuilder &b, Value x, Value y) {
    return b.div(b.mul(b.splat(y.getType(), -0.5), y), x);
  });
  // JAX's abs_p JVP: select(x >= 0, g, -g), so the derivative at 0 is 1 (sign(x)
  // gave 0 there; the autodiff tests compare with JAX's convention). The
  // residual is the boolean x >= 0, a quarter of a float sign's bytes.
  t[TypeID::get<AbsOp>()] = VjpRule{
      [](JxBuilder &b, Operation *op, ArrayRef<bool>) {
        Value x = op->getOperand(0);
        return SmallVector<Value>{b.create<GeOp>(x, b.zeros(x.getType()))};
      },
      [](JxBuilder &b, Operation *, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        return SmallVector<Value>{b.select(res[0], {b.neg(cts[0]), cts[0]})};
      }};

  t[TypeID::get<IntegerPowOp>()] = VjpRule{
      [](JxBuilder &b, Operation *op, ArrayRef<bool>) {
        auto pow = cast<IntegerPowOp>(op);
        int64_t n = pow.getY();
        if (n == 0 || n == 1)
          return SmallVector<Value>();
        Value x = pow.getOperand();
        Value lower = n == 2 ? x : b.create<IntegerPowOp>(x, n - 1);
        return SmallVector<Value>{b.mul(b.splat(x.getType(), static_cast<double>(n)), lower)};
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        int64_t n = cast<IntegerPowOp>(op).getY();
        if (n == 0)
          return SmallVector<Value>(1);
        return SmallVector<Value>{n == 1 ? cts[0] : b.mul(cts[0], res[0])};
      }};

  linear<NegOp>(t, [](JxBuilder &b, Operation *, Value ct) { return SmallVector<Value>{b.neg(ct)}; });
  linear<AddOp>(t, [](JxBuilder &, Operation *, Value ct) { return SmallVector<Value>{ct, ct}; });
  linear<SubOp>(t,
                [](JxBuilder &b, Operation *, Value ct) { return SmallVector<Value>{ct, b.neg(ct)}; });
  linear<CheckpointNameOp>(t,
                           [](JxBuilder &, Operation *, Value ct) { return SmallVector<Value>{ct}; });
  linear<CumsumOp>(t, [](JxBuilder &b, Operation *op, Value ct) {
    auto cumsum = cast<CumsumOp>(op);
    return SmallVector<Value>{
        b.create<CumsumOp>(ct, cumsum.getAxis(), !cumsum.getReverse())};
  });
  linear<ConvertElementTypeOp>(t, [](JxBuilder &b, Operation *op, Value ct) {
    Value x = op->getOperand(0);
    bool isFloat = isa<FloatType>(getElementTypeOrSelf(x.getType()));
    return SmallVector<Value>{isFloat ? b.convert(ct, x.getType()) : Value()};
  });

  binary<MulOp>(t, [](JxBuilder &, Operation *op, unsigned i) { return op->getOperand(1 - i); });
  // z = x / y: ct_x = ct / y, ct_y = -(ct * z) / y. The residuals are the
  // divisor and the quotient, which the forward computes anyway, instead of
  // factors 1/y and -z/y at full size: a broadcast divisor (a softmax's sum)
  // is then saved at its own size (JAX saves y and y**-2).
  t[TypeID::get<DivOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool> active) {
        SmallVector<Value> res{op->getOperand(1)};
        if (active[1])
          res.push_back(op->getResult(0));
        return res;
      },
      [](JxBuilder &b, Operation *, ArrayRef<bool> active, ValueRange res, ArrayRef<Value> cts) {
        SmallVector<Value> out(2);
        if (active[0])
          out[0] = b.div(cts[0], res[0]);
        if (active[1])
          out[1] = b.neg(b.div(b.mul(cts[0], res[1]), res[0]));
        return out;
      }};
  binary<MaxOp>(t, [](JxBuilder &b, Operation *op, unsigned i) {
    Value x = op->getOperand(i), y = op->getOperand(1 - i);
    return chooserMask<GtOp>(b, x, y);
  });
  binary<MinOp>(t, [](JxBuilder &b, Operation *op, unsigned i) {
    Value x = op->getOperand(i), y = op->getOperand(1 - i);
    return chooserMask<LtOp>(b, x, y);
  });
  binary<PowOp>(t, [](JxBuilder &b, Operation *op, unsigned i) -> Value {
    Value x = op->getOperand(0), y = op->getOperand(1);
    if (i == 0) // y * x^(y-1)
      return b.mul(y, b.create<PowOp>(x, b.sub(y, one(b, y))));
    // log(x) * x^y, with log(0) read as 0 as in JAX.
    Value safe = b.select(b.create<EqOp>(x, b.zeros(x.getType())), {x, one(b, x)});
    return b.mul(b.create<LogOp>(safe), op->getResult(0));
  });
  binary<Atan2Op>(t, [](JxBuilder &b, Operation *op, unsigned i) {
    Value x = op->getOperand(0), y = op->getOperand(1);
    Value denom = b.add(b.mul(x, x), b.mul(y, y));
    return i == 0 ? b.div(y, denom) : b.neg(b.div(x, denom));
  });
  binary<RemOp>(t, [](JxBuilder &b, Operation *op, unsigned i) -> Value {
    Value x = op->getOperand(0), y = op->getOperand(1);
    if (i == 0)
      return one(b, x);
    Value q = b.div(x, y); // rem = x - trunc(x/y) * y
    return b.neg(b.mul(b.create<SignOp>(q), b.create<FloorOp>(b.create<AbsOp>(q))));
  });

  t[TypeID::get<SelectNOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool>) {
        return SmallVector<Value>{op->getOperand(0)};
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool> active, ValueRange res, ArrayRef<Value> cts) {
        SmallVector<Value> out(op->getNumOperands());
        if (!cts[0])
          return out;
        Value zero = b.zeros(cts[0].getType());
        unsigned numCases = op->getNumOperands() - 1;
        for (unsigned i = 0; i < numCases; ++i) {
          if (!active[i + 1])
            continue;
          SmallVector<Value> cases(numCases, zero);
          cases[i] = cts[0];
          out[i + 1] = numCases == 1 ? cts[0] : b.select(res[0], cases);
        }
        return out;
      }};

  for (TypeID id : {TypeID::get<SignOp>(), TypeID::get<FloorOp>(), TypeID::get<CeilOp>(),
                    TypeID::get<StopGradientOp>(), TypeID::get<NotOp>(), TypeID::get<AndOp>(),
                    TypeID::get<OrOp>(), TypeID::get<XorOp>(),
                    TypeID::get<ShiftRightLogicalOp>(), TypeID::get<Threefry2x32Op>(),
                    TypeID::get<BitcastConvertTypeOp>(), TypeID::get<EqOp>(), TypeID::get<NeOp>(),
                    TypeID::get<LtOp>(), TypeID::get<LeOp>(), TypeID::get<GtOp>(),
                    TypeID::get<GeOp>(), TypeID::get<IotaOp>(), TypeID::get<ArgmaxOp>(),
                    TypeID::get<ConstantOp>()})
    t[id] = zeroVjpRule();
}
