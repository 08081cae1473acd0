//===- ElementwisePatterns.cpp - jx elementwise ops to linalg.generic ----===//
//
// Every elementwise jx op (unary, binary, comparisons, select_n,
// integer_pow, convert_element_type) becomes one `linalg.generic` whose body
// is the scalar computation, so that linalg's elementwise fusion can merge
// chains of them. Scalar semantics follow the reference interpreter: f16 and
// bf16 compute in f32 and round each result; integers wrap; integer division
// and remainder by zero follow XLA; max/min propagate NaN; sign keeps -0,
// +0 and NaN.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::cotangent::lowering;

namespace {

using ScalarFn = Value (*)(OpBuilder &, Location, ValueRange);

bool isFloat(Value v) { return isa<FloatType>(v.getType()); }

/// Lowers an elementwise op through `fn`. With `widen`, f16/bf16 operands
/// are extended to f32 first and a float result is rounded back.
template <typename OpTy>
struct ElementwisePattern : OpConversionPattern<OpTy> {
  ElementwisePattern(MLIRContext *ctx, ScalarFn fn, bool widen = true)
      : OpConversionPattern<OpTy>(ctx), fn(fn), widen(widen) {}

  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    ScalarFn scalar = fn;
    bool widenLow = widen;
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          SmallVector<Value> operands(args.begin(), args.end());
          bool low = widenLow && !operands.empty() && isLowFloat(operands.back().getType());
          if (low)
            for (Value &v : operands)
              if (isLowFloat(v.getType()))
                v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
          Value r = scalar(b, loc, operands);
          if (low && isa<FloatType>(r.getType()))
            r = arith::TruncFOp::create(b, loc, resultType.getElementType(), r);
          return r;
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  ScalarFn fn;
  bool widen;
};

Value one(OpBuilder &b, Location loc, Type t) { return scalarConstant(b, loc, t, 1); }
Value zero(OpBuilder &b, Location loc, Type t) { return scalarConstant(b, loc, t, 0); }

Value negFn(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return arith::NegFOp::create(b, loc, a[0]);
  return arith::SubIOp::create(b, loc, zero(b, loc, a[0].getType()), a[0]);
}
Value logisticFn(OpBuilder &b, Location loc, ValueRange a) {
  Type t = a[0].getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
  return arith::DivFOp::create(b, loc, one(b, loc, t), arith::AddFOp::create(b, loc, one(b, loc, t), e));
}
Value rsqrtFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::DivFOp::create(b, loc, one(b, loc, a[0].getType()),
                               math::SqrtOp::create(b, loc, a[0]));
}
Value absFn(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return math::AbsFOp::create(b, loc, a[0]);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a[0],
                                    zero(b, loc, a[0].getType()));
  return arith::SelectOp::create(b, loc, neg, negFn(b, loc, a), a[0]);
}
Value signFn(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Type t = x.getType();
  if (isFloat(x)) {
    Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero(b, loc, t));
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero(b, loc, t));
    Value r = arith::SelectOp::create(b, loc, neg, scalarConstant(b, loc, t, -1), x);
    return arith::SelectOp::create(b, loc, pos, one(b, loc, t), r);
  }
  Value pos = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero(b, loc, t));
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero(b, loc, t));
  return arith::SubIOp::create(b, loc, arith::ExtUIOp::create(b, loc, t, pos),
                               arith::ExtUIOp::create(b, loc, t, neg));
}
Value notFn(OpBuilder &b, Location loc, ValueRange a) {
  return arith::XOrIOp::create(b, loc, a[0], intConstant(b, loc, a[0].getType(), -1));
}

template <typename FOp, typename IOp>
Value arithFn(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return FOp::create(b, loc, a[0], a[1]);
  return IOp::create(b, loc, a[0], a[1]);
}
template <typename FOp>
Value floatFn(OpBuilder &b, Location loc, ValueRange a) {
  return FOp::create(b, loc, a[0]);
}
template <typename FOp>
Value floatFn2(OpBuilder &b, Location loc, ValueRange a) {
  return FOp::create(b, loc, a[0], a[1]);
}

/// XLA's logical right shift: 0 for a shift outside [0, width) (arith's
/// would be poison); a negative shift is a huge unsigned one.
Value shiftRightLogicalFn(OpBuilder &b, Location loc, ValueRange a) {
  Type t = a[0].getType();
  Value width = intConstant(b, loc, t, t.getIntOrFloatBitWidth());
  Value tooFar = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, a[1], width);
  Value shifted = arith::ShRUIOp::create(b, loc, a[0], a[1]);
  return arith::SelectOp::create(b, loc, tooFar, zero(b, loc, t), shifted);
}

/// Integer division as XLA: x / 0 = -1, INT_MIN / -1 = INT_MIN.
Value divFn(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return arith::DivFOp::create(b, loc, a[0], a[1]);
  Value x = a[0], y = a[1];
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  Value minusOne = intConstant(b, loc, t, -1);
  Value intMin = intConstant(b, loc, t, static_cast<int64_t>(uint64_t(1) << (width - 1)));
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero(b, loc, t));
  Value overflow = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, intMin),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne));
  Value bad = arith::OrIOp::create(b, loc, byZero, overflow);
  Value safe = arith::SelectOp::create(b, loc, bad, one(b, loc, t), y);
  Value q = arith::DivSIOp::create(b, loc, x, safe);
  q = arith::SelectOp::create(b, loc, overflow, intMin, q);
  return arith::SelectOp::create(b, loc, byZero, minusOne, q);
}

/// Remainder with the dividend's sign; integer x % 0 = x (XLA).
Value remFn(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return arith::RemFOp::create(b, loc, a[0], a[1]);
  Value x = a[0], y = a[1];
  Type t = x.getType();
  Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero(b, loc, t));
  Value byMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                           intConstant(b, loc, t, -1));
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, byZero, byMinusOne), one(b, loc, t), y);
  Value r = arith::RemSIOp::create(b, loc, x, safe);
  return arith::SelectOp::create(b, loc, byZero, x, r);
}

template <arith::CmpFPredicate F, arith::CmpIPredicate S, arith::CmpIPredicate U>
Value compareFn(OpBuilder &b, Location loc, ValueRange a) {
  if (isFloat(a[0]))
    return arith::CmpFOp::create(b, loc, F, a[0], a[1]);
  return arith::CmpIOp::create(b, loc, a[0].getType().isInteger(1) ? U : S, a[0], a[1]);
}

struct IntegerPowPattern : OpConversionPattern<jx::IntegerPowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::IntegerPowOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t y = op.getY();
    auto type = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getOperand(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value base = args[0];
          bool low = isLowFloat(base.getType());
          if (low)
            base = arith::ExtFOp::create(b, loc, b.getF32Type(), base);
          bool fl = isFloat(base);
          auto mul = [&](Value l, Value r) -> Value {
            return fl ? Value(arith::MulFOp::create(b, loc, l, r))
                      : Value(arith::MulIOp::create(b, loc, l, r));
          };
          // Repeated squaring, in the interpreter's order.
          Value acc = one(b, loc, base.getType());
          for (uint64_t n = y < 0 ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y); n;) {
            if (n & 1)
              acc = mul(acc, base);
            n >>= 1;
            if (n)
              base = mul(base, base);
          }
          if (fl && y < 0)
            acc = arith::DivFOp::create(b, loc, one(b, loc, acc.getType()), acc);
          if (low)
            acc = arith::TruncFOp::create(b, loc, type.getElementType(), acc);
          return acc;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SelectNPattern : OpConversionPattern<jx::SelectNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::SelectNOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> inputs{adaptor.getWhich()};
    llvm::append_range(inputs, adaptor.getCases());
    Value result = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()), inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value which = args[0];
          ValueRange cases = args.drop_front();
          if (which.getType().isInteger(1))
            return arith::SelectOp::create(b, loc, which, cases.back(), cases.front());
          // i32: clamp into range, then pick; case k wins when which >= k.
          Value r = cases.front();
          for (size_t k = 1; k < cases.size(); ++k) {
            Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, which,
                                             intConstant(b, loc, which.getType(), k));
            r = arith::SelectOp::create(b, loc, ge, cases[k], r);
          }
          return r;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value bitcastScalar(OpBuilder &b, Location loc, Value v, Type to) {
  return arith::BitcastOp::create(b, loc, to, v);
}

/// convert_element_type and bitcast_convert_type: each element through
/// `convert` to the result's element type.
template <typename OpTy, Value (*convert)(OpBuilder &, Location, Value, Type)>
struct ConvertPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getOperand(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return convert(b, loc, args[0], type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::cotangent::lowering::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  using P = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  patterns.add<ElementwisePattern<jx::NegOp>>(ctx, negFn);
  patterns.add<ElementwisePattern<jx::SinOp>>(ctx, floatFn<math::SinOp>);
  patterns.add<ElementwisePattern<jx::CosOp>>(ctx, floatFn<math::CosOp>);
  patterns.add<ElementwisePattern<jx::TanOp>>(ctx, floatFn<math::TanOp>);
  patterns.add<ElementwisePattern<jx::ExpOp>>(ctx, floatFn<math::ExpOp>);
  patterns.add<ElementwisePattern<jx::LogOp>>(ctx, floatFn<math::LogOp>);
  patterns.add<ElementwisePattern<jx::Log1pOp>>(ctx, floatFn<math::Log1pOp>);
  patterns.add<ElementwisePattern<jx::Expm1Op>>(ctx, floatFn<math::ExpM1Op>);
  patterns.add<ElementwisePattern<jx::ErfOp>>(ctx, floatFn<math::ErfOp>);
  patterns.add<ElementwisePattern<jx::ErfcOp>>(ctx, floatFn<math::ErfcOp>);
  patterns.add<ElementwisePattern<jx::TanhOp>>(ctx, floatFn<math::TanhOp>);
  patterns.add<ElementwisePattern<jx::LogisticOp>>(ctx, logisticFn);
  patterns.add<ElementwisePattern<jx::SqrtOp>>(ctx, floatFn<math::SqrtOp>);
  patterns.add<ElementwisePattern<jx::RsqrtOp>>(ctx, rsqrtFn);
  patterns.add<ElementwisePattern<jx::AbsOp>>(ctx, absFn);
  patterns.add<ElementwisePattern<jx::SignOp>>(ctx, signFn);
  patterns.add<ElementwisePattern<jx::FloorOp>>(ctx, floatFn<math::FloorOp>);
  patterns.add<ElementwisePattern<jx::CeilOp>>(ctx, floatFn<math::CeilOp>);
  patterns.add<ElementwisePattern<jx::NotOp>>(ctx, notFn, false);
  patterns.add<ElementwisePattern<jx::AddOp>>(ctx, arithFn<arith::AddFOp, arith::AddIOp>);
  patterns.add<ElementwisePattern<jx::SubOp>>(ctx, arithFn<arith::SubFOp, arith::SubIOp>);
  patterns.add<ElementwisePattern<jx::MulOp>>(ctx, arithFn<arith::MulFOp, arith::MulIOp>);
  patterns.add<ElementwisePattern<jx::DivOp>>(ctx, divFn);
  patterns.add<ElementwisePattern<jx::MaxOp>>(ctx, arithFn<arith::MaximumFOp, arith::MaxSIOp>);
  patterns.add<ElementwisePattern<jx::MinOp>>(ctx, arithFn<arith::MinimumFOp, arith::MinSIOp>);
  patterns.add<ElementwisePattern<jx::PowOp>>(ctx, floatFn2<math::PowFOp>);
  patterns.add<ElementwisePattern<jx::Atan2Op>>(ctx, floatFn2<math::Atan2Op>);
  patterns.add<ElementwisePattern<jx::RemOp>>(ctx, remFn);
  patterns.add<ElementwisePattern<jx::AndOp>>(ctx, arithFn<arith::AndIOp, arith::AndIOp>, false);
  patterns.add<ElementwisePattern<jx::OrOp>>(ctx, arithFn<arith::OrIOp, arith::OrIOp>, false);
  patterns.add<ElementwisePattern<jx::XorOp>>(ctx, arithFn<arith::XOrIOp, arith::XOrIOp>, false);
  patterns.add<ElementwisePattern<jx::ShiftRightLogicalOp>>(ctx, shiftRightLogicalFn, false);
  patterns.add<ConvertPattern<jx::BitcastConvertTypeOp, bitcastScalar>>(ctx);
  patterns.add<ElementwisePattern<jx::EqOp>>(ctx, compareFn<P::OEQ, I::eq, I::eq>, false);
  patterns.add<ElementwisePattern<jx::NeOp>>(ctx, compareFn<P::UNE, I::ne, I::ne>, false);
  patterns.add<ElementwisePattern<jx::LtOp>>(ctx, compareFn<P::OLT, I::slt, I::ult>, false);
  patterns.add<ElementwisePattern<jx::LeOp>>(ctx, compareFn<P::OLE, I::sle, I::ule>, false);
  patterns.add<ElementwisePattern<jx::GtOp>>(ctx, compareFn<P::OGT, I::sgt, I::ugt>, false);
  patterns.add<ElementwisePattern<jx::GeOp>>(ctx, compareFn<P::OGE, I::sge, I::uge>, false);
  patterns.add<IntegerPowPattern, SelectNPattern,
               ConvertPattern<jx::ConvertElementTypeOp, convertScalar>>(ctx);
}
