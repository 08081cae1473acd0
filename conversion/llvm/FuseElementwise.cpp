//===- FuseElementwise.cpp - elementwise fusion that keeps matmuls --------===//
//
// Upstream's elementwise fusion patterns with the same single-use control
// as linalg-fuse-elementwise-ops, minus the reshape-by-expansion patterns
// (see the pass description in LoweringPasses.td for why).
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXFUSEELEMENTWISEPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

class JxFuseElementwisePass
    : public cotangent::impl::JxFuseElementwisePassBase<JxFuseElementwisePass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
