//===- JxToLinalg.cpp - the jx-to-linalg pass -----------------------------===//
//
// Runs the patterns of the other files of this directory as one partial
// conversion in which the jx dialect is illegal, and marks public functions
// with `llvm.emit_c_interface` so that runtimes can call them with memref
// descriptors.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxCollectiveOps.h"
#include "dialects/jx/JxSplit.h"
#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXTOLINALGPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

class JxToLinalgPass : public cotangent::impl::JxToLinalgPassBase<JxToLinalgPass> {
public:
  using JxToLinalgPassBase::JxToLinalgPassBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    JxToLinalgPassBase::getDependentDialects(registry);
    cotangent::registerCollectiveBufferization(registry);
    cotangent::registerAttentionBufferization(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Collectives stay: bufferization makes them runtime calls
    // (CollectiveBufferization.cpp). Where they are not compiled, say so
    // rather than "failed to legalize".
    if (!collectives) {
      WalkResult refused = module.walk([](Operation *op) {
        if (!jx::isCollective(op))
          return WalkResult::advance();
        op->emitError() << op->getName()
                        << " is not compiled for this target yet: collectives run on the CPU "
                           "(MPI) and on the reference interpreter's simulated ranks";
        return WalkResult::interrupt();
      });
      if (refused.wasInterrupted())
        return signalPassFailure();
    }
    ConversionTarget target(*ctx);
    // So do the fused attention ops jx-expand-composites kept: bufferization
    // makes them calls of the runtime's kernels (AttentionBufferization.cpp).
    target.addDynamicallyLegalDialect<jx::JxDialect>([](Operation *op) {
      return jx::isCollective(op) ||
             isa<jx::DotProductAttentionOp, jx::DotProductAttentionGradOp>(op);
    });
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    target.addLegalOp<ModuleOp>();

    RewritePatternSet patterns(ctx);
    cotangent::lowering::populateElementwisePatterns(patterns);
    cotangent::lowering::populateContractionPatterns(patterns, lowFloatMatmulOperands);
    cotangent::lowering::populateShapePatterns(patterns);
    cotangent::lowering::populateGatherPatterns(patterns);
    cotangent::lowering::populateThreefryPatterns(patterns);
    cotangent::lowering::populateControlFlowPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    UnitAttr unit = UnitAttr::get(ctx);
    // The split contract and the names are jx-level facts (runtimes read them
    // before lowering): bufferization changes the types they are verified
    // against, and LLVM translation would warn about them. Donations stay:
    // the lowering writes results over donated buffers
    // (jx-donate-arguments, jx-alias-argument-results, which drops them).
    for (auto fn : module.getOps<func::FuncOp>()) {
      SmallVector<std::optional<unsigned>> donatedTo;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        donatedTo.push_back(jx::getDonatedTo(fn, i));
      jx::stripJxAttributes(fn);
      for (auto [i, result] : llvm::enumerate(donatedTo))
        if (result)
          jx::setDonatedTo(fn, i, *result);
    }
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isDeclaration()) {
        // Callers own the arguments: compiled code never writes into them.
        fn->setAttr("llvm.emit_c_interface", unit);
        for (unsigned i = 0; i < fn.getNumArguments(); ++i)
          fn.setArgAttr(i, "bufferization.writable", BoolAttr::get(ctx, false));
      }
  }
};

} // namespace
