//===- InlineIntoCInterface.cpp - public functions inside their wrappers --===//
//
// See JxInlineIntoCInterfacePass in LoweringPasses.td.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXINLINEINTOCINTERFACEPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

class JxInlineIntoCInterfacePass
    : public cotangent::impl::JxInlineIntoCInterfacePassBase<JxInlineIntoCInterfacePass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto wrapper : module.getOps<LLVM::LLVMFuncOp>()) {
      StringRef name = wrapper.getSymName();
      if (!name.starts_with(kCInterfacePrefix) || wrapper.isExternal())
        continue;
      auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(name.drop_front(kCInterfacePrefix.size()));
      if (!callee || callee.isExternal())
        continue;
      callee.setLinkage(LLVM::Linkage::Internal);
      callee.setAlwaysInline(true);
      // After jx-outline-kernels the step is a straight line of allocations
      // and kernel calls: the code generator's fast path (optnone) loses
      // nothing there and takes a third less time. The runtimes' optimizer
      // still folds its descriptors (runtime/host/LlvmOptimizer.h).
      wrapper.setNoInline(true);
      wrapper.setOptimizeNone(true);
    }
  }
};

} // namespace
