//===- ContractionPatterns.cpp - dot_general and reductions to linalg ----===//
//
// jx.dot_general becomes a batched matmul: the lhs is transposed to
// (batch, free, contracting) and the rhs to (batch, contracting, free), both
// collapsed to rank 3, multiplied by `linalg.batch_matmul` into a zero-filled
// (B, M, N) tensor and expanded to JAX's result order (batch, lhs free, rhs
// free). Operands are first converted to the result's element type (f32 for
// f16/bf16, rounded once at the end), as the interpreter accumulates; with
// low-float operands (the GPU's option) bf16/f16 operands stay as they are,
// multiplied into the f32 product by a GEMM that reads them.
// Reductions become `linalg.reduce`, argmax a `linalg.generic` with a value
// and an index accumulator, cumsum an `scf.for` over slices of its axis.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::cotangent::lowering;

namespace {

/// `value` converted elementwise to element type `to` (no-op when equal).
Value convertTensor(OpBuilder &b, Location loc, Value value, Type to) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == to)
    return value;
  return buildElementwise(b, loc, type.clone(to), value,
                          [&](OpBuilder &nb, Location nl, ValueRange args) {
                            return convertScalar(nb, nl, args[0], to);
                          });
}

/// `value` transposed by `perm` (result dim i = operand dim perm[i]).
Value transposeTensor(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = emptyTensor(b, loc, RankedTensorType::get(shape, type.getElementType()));
  return linalg::TransposeOp::create(b, loc, value, init, perm).getResult()[0];
}

int64_t product(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= shape[d];
  return p;
}

SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(a, d) && !llvm::is_contained(b, d))
      free.push_back(d);
  return free;
}

struct DotGeneralPattern : OpConversionPattern<jx::DotGeneralOp> {
  DotGeneralPattern(MLIRContext *ctx, bool lowFloatOperands)
      : OpConversionPattern(ctx), lowFloatOperands(lowFloatOperands) {}
  /// Multiply bf16/f16 operands as they are into the f32 product.
  bool lowFloatOperands;

  LogicalResult matchAndRewrite(jx::DotGeneralOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    ArrayRef<int64_t> lb = op.getLhsBatchDimensions(), rb = op.getRhsBatchDimensions();
    ArrayRef<int64_t> lc = op.getLhsContractingDimensions(),
                      rc = op.getRhsContractingDimensions();
    SmallVector<int64_t> lf = freeDims(lhsType.getRank(), lb, lc);
    SmallVector<int64_t> rf = freeDims(rhsType.getRank(), rb, rc);

    Type outElem = resultType.getElementType();
    Type computeElem = isLowFloat(outElem) ? rewriter.getF32Type() : outElem;
    // The operands' element type in the product: the product's, or, for a
    // GEMM that reads low floats, theirs as they are.
    Type operandElem = lowFloatOperands && isLowFloat(outElem) &&
                               lhsType.getElementType() == outElem &&
                               rhsType.getElementType() == outElem
                           ? outElem
                           : computeElem;
    int64_t batch = product(lhsType.getShape(), lb);
    int64_t m = product(lhsType.getShape(), lf);
    int64_t k = product(lhsType.getShape(), lc);
    int64_t n = product(rhsType.getShape(), rf);

    // The lhs is wanted as (batch, m, k), the rhs as (batch, k, n). An operand
    // already laid out as the transpose of that, (batch, k, m) or (batch, n,
    // k), is read transposed by the matmul's indexing map (a BLAS transpose
    // flag once jx-matmul-to-blas runs), not copied: the weight gradient
    // x^T g and the input gradient g W^T of a dense layer among them.
    auto concat = [](ArrayRef<int64_t> a, ArrayRef<int64_t> b, ArrayRef<int64_t> c) {
      SmallVector<int64_t> all(a);
      llvm::append_range(all, b);
      llvm::append_range(all, c);
      return all;
    };
    auto isIdentity = [](ArrayRef<int64_t> perm) {
      return llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
    };
    SmallVector<int64_t> lperm = concat(lb, lf, lc), rperm = concat(rb, rc, rf);
    bool lhsTransposed = !isIdentity(lperm) && isIdentity(concat(lb, lc, lf));
    bool rhsTransposed = !isIdentity(rperm) && isIdentity(concat(rb, rf, rc));
    Value lhs = convertTensor(rewriter, loc, adaptor.getLhs(), operandElem);
    Value rhs = convertTensor(rewriter, loc, adaptor.getRhs(), operandElem);
    lhs = lhsTransposed
              ? reshapeTensor(rewriter, loc, lhs, RankedTensorType::get({batch, k, m}, operandElem))
              : reshapeTensor(rewriter, loc, transposeTensor(rewriter, loc, lhs, lperm),
                              RankedTensorType::get({batch, m, k}, operandElem));
    rhs = rhsTransposed
              ? reshapeTensor(rewriter, loc, rhs, RankedTensorType::get({batch, n, k}, operandElem))
              : reshapeTensor(rewriter, loc, transposeTensor(rewriter, loc, rhs, rperm),
                              RankedTensorType::get({batch, k, n}, operandElem));
    auto productType = RankedTensorType::get({batch, m, n}, computeElem);
    Value init = filledTensor(rewriter, loc, productType,
                              scalarConstant(rewriter, loc, computeElem, 0));
    SmallVector<NamedAttribute> attrs;
    if (lhsTransposed || rhsTransposed) {
      // Loops (b, m, n, k).
      MLIRContext *ctx = rewriter.getContext();
      AffineExpr b = getAffineDimExpr(0, ctx), mm = getAffineDimExpr(1, ctx),
                 nn = getAffineDimExpr(2, ctx), kk = getAffineDimExpr(3, ctx);
      auto map = [&](ArrayRef<AffineExpr> results) {
        return AffineMapAttr::get(AffineMap::get(4, 0, results, ctx));
      };
      attrs.push_back(rewriter.getNamedAttr(
          "indexing_maps",
          rewriter.getArrayAttr({lhsTransposed ? map({b, kk, mm}) : map({b, mm, kk}),
                                 rhsTransposed ? map({b, nn, kk}) : map({b, kk, nn}),
                                 map({b, mm, nn})})));
    }
    Value product = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{productType},
                                                  ValueRange{lhs, rhs}, ValueRange{init}, attrs)
                        .getResult(0);
    product = convertTensor(rewriter, loc, product, outElem);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, product, resultType));
    return success();
  }
};

enum class ReduceKind { Sum, Max, Min, Prod };

template <typename OpTy, ReduceKind kind>
struct ReducePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elem = resultType.getElementType();
    Type compute = isLowFloat(elem) ? rewriter.getF32Type() : elem;
    Value input = convertTensor(rewriter, loc, adaptor.getOperand(), compute);
    if (op.getAxes().empty()) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    bool fl = isa<FloatType>(compute);
    Value initValue;
    switch (kind) {
    case ReduceKind::Sum:
      initValue = scalarConstant(rewriter, loc, compute, 0);
      break;
    case ReduceKind::Prod:
      initValue = scalarConstant(rewriter, loc, compute, 1);
      break;
    case ReduceKind::Max:
    case ReduceKind::Min: {
      bool isMax = kind == ReduceKind::Max;
      if (fl) {
        double inf = std::numeric_limits<double>::infinity();
        initValue = scalarConstant(rewriter, loc, compute, isMax ? -inf : inf);
      } else {
        unsigned w = compute.getIntOrFloatBitWidth();
        int64_t maxValue = static_cast<int64_t>((uint64_t(1) << (w - 1)) - 1);
        initValue = intConstant(rewriter, loc, compute, isMax ? -maxValue - 1 : maxValue);
      }
      break;
    }
    }
    Value init = filledTensor(rewriter, loc, resultType.clone(compute), initValue);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{input}, ValueRange{init}, op.getAxes(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], acc = args[1], r;
          switch (kind) {
          case ReduceKind::Sum:
            // A sum may be reassociated (as XLA's may): LLVM then vectorizes it
            // into many partial sums, five times faster than one chain of adds,
            // and 25 times closer to the exact sum of 2^21 floats.
            r = fl ? Value(arith::AddFOp::create(b, l, acc, x, arith::FastMathFlags::reassoc))
                   : Value(arith::AddIOp::create(b, l, acc, x));
            break;
          case ReduceKind::Prod:
            r = fl ? Value(arith::MulFOp::create(b, l, acc, x))
                   : Value(arith::MulIOp::create(b, l, acc, x));
            break;
          case ReduceKind::Max:
            r = fl ? Value(arith::MaximumFOp::create(b, l, acc, x))
                   : Value(arith::MaxSIOp::create(b, l, acc, x));
            break;
          case ReduceKind::Min:
            r = fl ? Value(arith::MinimumFOp::create(b, l, acc, x))
                   : Value(arith::MinSIOp::create(b, l, acc, x));
            break;
          }
          linalg::YieldOp::create(b, l, r);
        });
    rewriter.replaceOp(op, convertTensor(rewriter, loc, reduce.getResult(0), elem));
    return success();
  }
};

/// Index of the maximum along one axis: first on ties, NaN counts as the maximum.
struct ArgmaxPattern : OpConversionPattern<jx::ArgmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::ArgmaxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getOperand().getType());
    Type compute = isLowFloat(inType.getElementType()) ? rewriter.getF32Type()
                                                        : inType.getElementType();
    Value input = convertTensor(rewriter, loc, adaptor.getOperand(), compute);
    bool fl = isa<FloatType>(compute);
    int64_t axis = op.getAxis(), rank = inType.getRank();
    Value lowest;
    if (fl) {
      lowest = scalarConstant(rewriter, loc, compute, -std::numeric_limits<double>::infinity());
    } else {
      unsigned w = compute.getIntOrFloatBitWidth();
      lowest = intConstant(rewriter, loc, compute, static_cast<int64_t>(uint64_t(1) << (w - 1)));
    }
    Type indexElem = resultType.getElementType();
    Value values = filledTensor(rewriter, loc, resultType.clone(compute), lowest);
    Value indices = filledTensor(rewriter, loc, resultType, intConstant(rewriter, loc, indexElem, 0));

    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      iterators.push_back(d == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (d != axis)
        outExprs.push_back(rewriter.getAffineDimExpr(d));
    }
    AffineMap outMap = AffineMap::get(rank, 0, outExprs, rewriter.getContext());
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), outMap, outMap};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values.getType(), resultType}, ValueRange{input},
        ValueRange{values, indices}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          Value take;
          if (fl) {
            Value greater = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, best);
            Value xNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
            Value bestNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, best, best);
            Value bestNotNan = arith::XOrIOp::create(b, l, bestNan, intConstant(b, l, b.getI1Type(), 1));
            take = arith::OrIOp::create(b, l, greater, arith::AndIOp::create(b, l, xNan, bestNotNan));
          } else {
            take = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, x, best);
          }
          Value i = linalg::IndexOp::create(b, l, axis);
          i = arith::IndexCastOp::create(b, l, indexElem, i);
          linalg::YieldOp::create(b, l,
                                  ValueRange{arith::SelectOp::create(b, l, take, x, best),
                                             arith::SelectOp::create(b, l, take, i, bestIndex)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// Inclusive cumulative sum: an scf.for over the axis that adds each slice to
/// a running total and writes it into the result.
struct CumsumPattern : OpConversionPattern<jx::CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::CumsumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType();
    Type compute = isLowFloat(elem) ? rewriter.getF32Type() : elem;
    int64_t axis = op.getAxis(), n = type.getDimSize(axis);
    bool reverse = op.getReverse();
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape.erase(sliceShape.begin() + axis);
    auto sliceType = RankedTensorType::get(sliceShape, elem);
    auto accType = sliceType.clone(compute);
    Value acc0 = filledTensor(rewriter, loc, accType, scalarConstant(rewriter, loc, compute, 0));
    Value result0 = emptyTensor(rewriter, loc, type);
    Value lb = intConstant(rewriter, loc, rewriter.getIndexType(), 0);
    Value ub = intConstant(rewriter, loc, rewriter.getIndexType(), n);
    Value step = intConstant(rewriter, loc, rewriter.getIndexType(), 1);
    Value input = adaptor.getOperand();
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{acc0, result0},
        [&](OpBuilder &b, Location l, Value iv, ValueRange iter) {
          Value k = iv;
          if (reverse)
            k = arith::SubIOp::create(b, l, intConstant(b, l, b.getIndexType(), n - 1), iv);
          SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
          SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
          for (int64_t d = 0; d < type.getRank(); ++d)
            sizes.push_back(b.getIndexAttr(d == axis ? 1 : type.getDimSize(d)));
          offsets[axis] = k;
          Value slice = tensor::ExtractSliceOp::create(b, l, sliceType, input, offsets, sizes,
                                                       strides);
          Value acc = buildElementwise(
              b, l, accType, ValueRange{iter[0], slice},
              [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                Value x = convertScalar(nb, nl, args[1], compute);
                if (isa<FloatType>(compute))
                  return arith::AddFOp::create(nb, nl, args[0], x);
                return arith::AddIOp::create(nb, nl, args[0], x);
              });
          Value out = acc;
          if (compute != elem)
            out = buildElementwise(b, l, sliceType, acc,
                                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                                     return convertScalar(nb, nl, args[0], elem);
                                   });
          Value result =
              tensor::InsertSliceOp::create(b, l, out, iter[1], offsets, sizes, strides);
          scf::YieldOp::create(b, l, ValueRange{acc, result});
        });
    rewriter.replaceOp(op, loop.getResult(1));
    return success();
  }
};

} // namespace

void mlir::cotangent::lowering::populateContractionPatterns(RewritePatternSet &patterns,
                                                           bool lowFloatMatmulOperands) {
  patterns.add<DotGeneralPattern>(patterns.getContext(), lowFloatMatmulOperands);
  patterns.add<ArgmaxPattern, CumsumPattern,
               ReducePattern<jx::ReduceSumOp, ReduceKind::Sum>,
               ReducePattern<jx::ReduceMaxOp, ReduceKind::Max>,
               ReducePattern<jx::ReduceMinOp, ReduceKind::Min>,
               ReducePattern<jx::ReduceProdOp, ReduceKind::Prod>>(patterns.getContext());
}
