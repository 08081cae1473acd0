//===- ShapePatterns.cpp - jx shape ops to tensor and linalg ops ----------===//
//
// Reshapes (reshape, squeeze, expand_dims) become collapse/expand_shape
// (views after bufferization); transpose becomes `linalg.transpose`;
// broadcast_in_dim and iota a `linalg.generic` (fusable with their
// consumers); slices, dynamic slices and their updates, concatenate and pad
// become `tensor.extract_slice` / `tensor.insert_slice` on filled or empty
// tensors, with run-time starts clamped into bounds as in JAX; constants
// become `arith.constant`.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::cotangent::lowering;

namespace {

/// Reshape, squeeze and expand_dims: the same elements in a new shape.
template <typename OpTy>
struct ReshapeLikePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(), adaptor.getOperand(),
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct TransposePattern : OpConversionPattern<jx::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value init = emptyTensor(rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()));
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(), adaptor.getOperand(),
                                                       init, op.getPermutation())
                               .getResult()[0]);
    return success();
  }
};

struct BroadcastInDimPattern : OpConversionPattern<jx::BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::BroadcastInDimOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getOperand().getType());
    int64_t rank = resultType.getRank();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(op.getBroadcastDimensions())) {
      bool stretched = inType.getDimSize(i) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(stretched ? rewriter.getAffineConstantExpr(0) : rewriter.getAffineDimExpr(d));
    }
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, exprs, rewriter.getContext()),
                                rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, op.getLoc(), resultType);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{resultType}, ValueRange{adaptor.getOperand()},
        ValueRange{init}, maps, iterators, [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct IotaPattern : OpConversionPattern<jx::IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::IotaOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), dim = op.getDimension();
    Type elem = type.getElementType();
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, op.getLoc(), type);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)}, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, dim);
          i = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
          linalg::YieldOp::create(b, l, convertScalar(b, l, i, elem));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct ConstantPattern : OpConversionPattern<jx::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> r;
  for (int64_t v : values)
    r.push_back(b.getIndexAttr(v));
  return r;
}

struct SlicePattern : OpConversionPattern<jx::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getOperand(), indexAttrs(rewriter, op.getStartIndices()),
        indexAttrs(rewriter, type.getShape()), indexAttrs(rewriter, op.getStrides()));
    return success();
  }
};

/// Run-time starts, each clamped into [0, dim - size].
SmallVector<OpFoldResult> clampedStarts(OpBuilder &b, Location loc, ValueRange starts,
                                        ArrayRef<int64_t> dims, ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> r;
  Value zero = intConstant(b, loc, b.getIndexType(), 0);
  for (auto [start, dim, size] : llvm::zip(starts, dims, sizes)) {
    Value i = extractIndex(b, loc, start);
    i = arith::MaxSIOp::create(b, loc, i, zero);
    i = arith::MinSIOp::create(b, loc, i, intConstant(b, loc, b.getIndexType(), dim - size));
    r.push_back(i);
  }
  return r;
}

struct DynamicSlicePattern : OpConversionPattern<jx::DynamicSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::DynamicSliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getOperand().getType());
    SmallVector<OpFoldResult> offsets = clampedStarts(
        rewriter, op.getLoc(), adaptor.getStartIndices(), inType.getShape(), type.getShape());
    SmallVector<int64_t> ones(type.getRank(), 1);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, type, adaptor.getOperand(), offsets,
                                                        indexAttrs(rewriter, type.getShape()),
                                                        indexAttrs(rewriter, ones));
    return success();
  }
};

struct DynamicUpdateSlicePattern : OpConversionPattern<jx::DynamicUpdateSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::DynamicUpdateSliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto updateType = cast<RankedTensorType>(op.getUpdate().getType());
    SmallVector<OpFoldResult> offsets =
        clampedStarts(rewriter, op.getLoc(), adaptor.getStartIndices(), type.getShape(),
                      updateType.getShape());
    SmallVector<int64_t> ones(type.getRank(), 1);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getUpdate(), adaptor.getOperand(), offsets,
        indexAttrs(rewriter, updateType.getShape()), indexAttrs(rewriter, ones));
    return success();
  }
};

struct ConcatenatePattern : OpConversionPattern<jx::ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::ConcatenateOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t dim = op.getDimension(), offset = 0;
    Value result = emptyTensor(rewriter, op.getLoc(), type);
    SmallVector<int64_t> ones(type.getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      auto inType = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> offsets(type.getRank(), 0);
      offsets[dim] = offset;
      result = tensor::InsertSliceOp::create(rewriter, op.getLoc(), input, result,
                                             indexAttrs(rewriter, offsets),
                                             indexAttrs(rewriter, inType.getShape()),
                                             indexAttrs(rewriter, ones));
      offset += inType.getDimSize(dim);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// XLA's pad: fill a tensor large enough for the non-negative padding, write
/// the operand at stride interior + 1, then crop what negative padding removes.
struct PadPattern : OpConversionPattern<jx::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getOperand().getType());
    int64_t rank = type.getRank();
    SmallVector<int64_t> fullShape, insertAt, strides, cropAt;
    bool crop = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t n = inType.getDimSize(d), lo = op.getLow()[d], hi = op.getHigh()[d];
      int64_t interior = op.getInterior()[d];
      int64_t body = n == 0 ? 0 : n + (n - 1) * interior;
      fullShape.push_back(std::max<int64_t>(lo, 0) + body + std::max<int64_t>(hi, 0));
      insertAt.push_back(std::max<int64_t>(lo, 0));
      strides.push_back(interior + 1);
      cropAt.push_back(std::max<int64_t>(-lo, 0));
      crop |= lo < 0 || hi < 0;
    }
    Value padValue = tensor::ExtractOp::create(rewriter, loc, adaptor.getPaddingValue(), ValueRange{});
    auto fullType = RankedTensorType::get(fullShape, type.getElementType());
    Value result = filledTensor(rewriter, loc, fullType, padValue);
    if (inType.getNumElements() > 0)
      result = tensor::InsertSliceOp::create(rewriter, loc, adaptor.getOperand(), result,
                                             indexAttrs(rewriter, insertAt),
                                             indexAttrs(rewriter, inType.getShape()),
                                             indexAttrs(rewriter, strides));
    if (crop) {
      SmallVector<int64_t> ones(rank, 1);
      result = tensor::ExtractSliceOp::create(rewriter, loc, type, result,
                                              indexAttrs(rewriter, cropAt),
                                              indexAttrs(rewriter, type.getShape()),
                                              indexAttrs(rewriter, ones));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::cotangent::lowering::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeLikePattern<jx::ReshapeOp>, ReshapeLikePattern<jx::SqueezeOp>,
               ReshapeLikePattern<jx::ExpandDimsOp>, TransposePattern, BroadcastInDimPattern,
               IotaPattern, ConstantPattern, SlicePattern, DynamicSlicePattern,
               DynamicUpdateSlicePattern, ConcatenatePattern, PadPattern>(
      patterns.getContext());
}
