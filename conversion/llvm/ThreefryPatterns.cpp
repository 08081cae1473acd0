//===- ThreefryPatterns.cpp - jx.threefry2x32 to a linalg.generic ---------===//
//
// One elementwise linalg.generic with two outputs whose body is the 20
// rounds of dialects/jx/Threefry.h as i32 arith ops (additions wrap,
// rotations are two shifts and an or), so random bits are computed where
// they are used, vectorized on the CPU and one thread per element on the GPU.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "dialects/jx/Threefry.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::cotangent::lowering;

namespace {

struct Threefry2x32Pattern : OpConversionPattern<jx::Threefry2x32Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::Threefry2x32Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getY0().getType());
    int64_t rank = type.getRank();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps(6, identity);
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    Value init0 = emptyTensor(rewriter, loc, type), init1 = emptyTensor(rewriter, loc, type);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, type}, adaptor.getOperands(), ValueRange{init0, init1},
        maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Type i32 = b.getI32Type();
          auto c = [&](uint32_t v) { return intConstant(b, l, i32, static_cast<int32_t>(v)); };
          auto add = [&](Value x, Value y) { return Value(arith::AddIOp::create(b, l, x, y)); };
          auto rotl = [&](Value v, int d) {
            Value left = arith::ShLIOp::create(b, l, v, c(d));
            Value right = arith::ShRUIOp::create(b, l, v, c(32 - d));
            return Value(arith::OrIOp::create(b, l, left, right));
          };
          Value ks[3] = {args[0], args[1],
                         arith::XOrIOp::create(
                             b, l, arith::XOrIOp::create(b, l, args[0], args[1]),
                             c(jx::threefry::kParity))};
          Value x0 = add(args[2], ks[0]), x1 = add(args[3], ks[1]);
          for (int group = 0; group < jx::threefry::kGroups; ++group) {
            for (int r : jx::threefry::kRotations[group % 2]) {
              x0 = add(x0, x1);
              x1 = arith::XOrIOp::create(b, l, rotl(x1, r), x0);
            }
            x0 = add(x0, ks[(group + 1) % 3]);
            x1 = add(x1, add(ks[(group + 2) % 3], c(static_cast<uint32_t>(group + 1))));
          }
          linalg::YieldOp::create(b, l, ValueRange{x0, x1});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mlir::cotangent::lowering::populateThreefryPatterns(RewritePatternSet &patterns) {
  patterns.add<Threefry2x32Pattern>(patterns.getContext());
}
