//===- GatherPatterns.cpp - jx.take and jx.scatter_add to linalg and scf --===//
//
// take is a `linalg.generic` over its result whose body reads the operand
// with `tensor.extract` at the clamped index (the indices are an input
// indexed by the axis' loop), so it stays one parallel loop nest that
// fuses with its consumers. scatter_add is an scf.for over the indices that
// adds each update slice into the running result: repeated indices must
// accumulate in order, which a parallel loop could not promise.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::cotangent::lowering;

namespace {

/// The integer index `raw` as an `index`, clamped into [0, n - 1].
Value clampedIndex(OpBuilder &b, Location loc, Value raw, int64_t n) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  i = arith::MaxSIOp::create(b, loc, i, intConstant(b, loc, b.getIndexType(), 0));
  return arith::MinSIOp::create(b, loc, i, intConstant(b, loc, b.getIndexType(), n - 1));
}

struct TakePattern : OpConversionPattern<jx::TakeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::TakeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getOperand().getType());
    int64_t rank = type.getRank(), axis = op.getAxis(), n = inType.getDimSize(axis);
    if (n == 0) { // nothing to take from: zeros, as the interpreter gives
      Value zero = scalarConstant(rewriter, loc, type.getElementType(), 0);
      rewriter.replaceOp(op, filledTensor(rewriter, loc, type, zero));
      return success();
    }
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, getAffineDimExpr(axis, ctx), ctx),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Value operand = adaptor.getOperand();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getIndices()},
        ValueRange{emptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(d == axis ? clampedIndex(b, l, args[0], n)
                                       : Value(linalg::IndexOp::create(b, l, d)));
          linalg::YieldOp::create(b, l, Value(tensor::ExtractOp::create(b, l, operand, coords)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// What scatter_add starts from: a splat constant (the zeros every VJP of
/// take starts from) becomes a filled new tensor, which bufferizes to an
/// allocation and a fill; as a constant it would be a read-only global of
/// the whole tensor (GPT-2's flat logits: 823 MB in the object), copied.
Value startingTensor(OpBuilder &b, Location loc, jx::ScatterAddOp op, Value converted) {
  DenseElementsAttr attr;
  if (!matchPattern(op.getOperand(), m_Constant(&attr)) || !attr.isSplat())
    return converted;
  Value scalar = arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr.getSplatValue<Attribute>()));
  return filledTensor(b, loc, cast<RankedTensorType>(converted.getType()), scalar);
}

struct ScatterAddPattern : OpConversionPattern<jx::ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::ScatterAddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), axis = op.getAxis(), n = type.getDimSize(axis);
    int64_t count = cast<RankedTensorType>(op.getIndices().getType()).getDimSize(0);
    if (n == 0 || count == 0) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    Type elem = type.getElementType();
    Type compute = isLowFloat(elem) ? rewriter.getF32Type() : elem;
    SmallVector<int64_t> sliceShape(type.getShape());
    sliceShape.erase(sliceShape.begin() + axis);
    auto sliceType = RankedTensorType::get(sliceShape, elem);
    SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(rewriter.getIndexAttr(d == axis ? 1 : type.getDimSize(d)));
    Value indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    Value lb = intConstant(rewriter, loc, rewriter.getIndexType(), 0);
    Value ub = intConstant(rewriter, loc, rewriter.getIndexType(), count);
    Value step = intConstant(rewriter, loc, rewriter.getIndexType(), 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step,
        ValueRange{startingTensor(rewriter, loc, op, adaptor.getOperand())},
        [&](OpBuilder &b, Location l, Value k, ValueRange iter) {
          Value row = clampedIndex(b, l, tensor::ExtractOp::create(b, l, indices, k), n);
          SmallVector<OpFoldResult> from(rank, b.getIndexAttr(0)), to(rank, b.getIndexAttr(0));
          from[axis] = k;
          to[axis] = row;
          Value update =
              tensor::ExtractSliceOp::create(b, l, sliceType, updates, from, sizes, strides);
          Value current =
              tensor::ExtractSliceOp::create(b, l, sliceType, iter[0], to, sizes, strides);
          // The sum is written over the slice it reads (outs = current), so
          // each iteration bufferizes to one in-place loop on the result's
          // row, no temporary and copy: the form jx-gpu-parallel-scatters
          // turns inside out on the GPU.
          const int64_t sliceRank = sliceType.getRank();
          SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(sliceRank));
          SmallVector<utils::IteratorType> iterators(sliceRank, utils::IteratorType::parallel);
          Value sum =
              linalg::GenericOp::create(
                  b, l, TypeRange{sliceType}, ValueRange{update}, ValueRange{current}, maps,
                  iterators,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    Value x = convertScalar(nb, nl, args[1], compute);
                    Value y = convertScalar(nb, nl, args[0], compute);
                    Value s = isa<FloatType>(compute) ? Value(arith::AddFOp::create(nb, nl, x, y))
                                                      : Value(arith::AddIOp::create(nb, nl, x, y));
                    linalg::YieldOp::create(nb, nl, convertScalar(nb, nl, s, elem));
                  })
                  .getResult(0);
          Value result = tensor::InsertSliceOp::create(b, l, sum, iter[0], to, sizes, strides);
          scf::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void mlir::cotangent::lowering::populateGatherPatterns(RewritePatternSet &patterns) {
  patterns.add<TakePattern, ScatterAddPattern>(patterns.getContext());
}
