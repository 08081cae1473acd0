//===- JxToLinalg.cpp - the jx-to-linalg pass -----------------------------===//
//
// Runs the patterns of the other files of this directory as one partial
// conversion in which the jx dialect is illegal, and marks public functions
// with `llvm.emit_c_interface` so that runtimes can call them with memref
// descriptors.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
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

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<jx::JxDialect>();
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect>();
    target.addLegalOp<ModuleOp>();

    RewritePatternSet patterns(ctx);
    cotangent::lowering::populateElementwisePatterns(patterns);
    cotangent::lowering::populateContractionPatterns(patterns);
    cotangent::lowering::populateShapePatterns(patterns);
    cotangent::lowering::populateControlFlowPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    UnitAttr unit = UnitAttr::get(ctx);
    // jx.* argument/result attributes (offload memory kinds) are informative
    // for runtimes; LLVM translation would warn about them.
    auto strip = [](DictionaryAttr attrs) {
      SmallVector<NamedAttribute> kept;
      if (!attrs)
        return kept;
      for (NamedAttribute a : attrs)
        if (!a.getName().strref().starts_with("jx."))
          kept.push_back(a);
      return kept;
    };
    for (auto fn : module.getOps<func::FuncOp>()) {
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        fn.setArgAttrs(i, strip(fn.getArgAttrDict(i)));
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        fn.setResultAttrs(i, strip(fn.getResultAttrDict(i)));
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
