//===- ApproximateMath.cpp - f32 math by polynomial approximation ---------===//
//
// JxApproximateMathPass: the f32 transcendental functions of the CPU pipeline
// become MLIR's polynomial approximations (arithmetic, no calls), which LLVM
// vectorizes with the loop around them. Which functions are approximated is
// decided here, once, from their measured accuracy (MathAccuracyTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXAPPROXIMATEMATHPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// The math ops approximated in f32 (their accuracy is in docs/lowering.md).
bool isApproximated(StringRef opName) {
  // Not sin and cos: their approximations lose all relative accuracy near
  // their zeros (48061 ulp at pi) and every bit a few thousand radians out
  // (their range reduction); they stay libm calls.
  return llvm::is_contained(
      {math::TanhOp::getOperationName(), math::ExpOp::getOperationName(),
       math::ExpM1Op::getOperationName(), math::LogOp::getOperationName(),
       math::Log1pOp::getOperationName(), math::Atan2Op::getOperationName(),
       math::ErfOp::getOperationName(), math::ErfcOp::getOperationName()},
      opName);
}

/// The approximations' fused multiply-adds as LLVM's intrinsic, which the
/// loop vectorizer widens; convert-math-to-libm would make them fmaf calls.
struct FmaToIntrinsic : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op, PatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(), op.getC());
    return success();
  }
};

class JxApproximateMathPass
    : public cotangent::impl::JxApproximateMathPassBase<JxApproximateMathPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    RewritePatternSet fma(&getContext());
    fma.add<FmaToIntrinsic>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(fma))))
      return signalPassFailure();
  }
};

} // namespace
