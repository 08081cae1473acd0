//===- MergeKernels.cpp - one kernel per structure ------------------------===//
//
// gpu-kernel-outlining makes one gpu.module per launch. A model repeats
// itself: every block of a transformer launches the same kernels, and the
// split's step functions (@f_vjp, @f_value_and_grad) launch what @f_fwd and
// @f_bwd launch. Each module is compiled to PTX and cubins once per chip and
// loaded at run time, so the repeats cost compile time, binary size and
// load time for nothing. Here modules whose kernels are the same but for
// their names (conversion/llvm/KernelStructure.h, as the CPU's
// jx-outline-kernels compares its kernels) become one: the first stays,
// every launch of the others launches it.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/KernelStructure.h"
#include "conversion/nvvm/GpuPasses.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUMERGEKERNELSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;

namespace {

/// The kernel's attributes but its name: what it is launched with
/// (known block and grid sizes) must match too.
DictionaryAttr launchAttributes(gpu::GPUFuncOp fn) {
  NamedAttrList attrs(fn->getAttrDictionary());
  attrs.erase(SymbolTable::getSymbolAttrName());
  return attrs.getDictionary(fn.getContext());
}

/// The one kernel function of `module`, or null.
gpu::GPUFuncOp onlyKernel(gpu::GPUModuleOp module) {
  gpu::GPUFuncOp only;
  for (Operation &op : module.getBody()->getOperations()) {
    auto fn = dyn_cast<gpu::GPUFuncOp>(op);
    if (!fn || only)
      return nullptr;
    only = fn;
  }
  return only;
}

class JxGpuMergeKernelsPass
    : public cotangent::impl::JxGpuMergeKernelsPassBase<JxGpuMergeKernelsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<size_t, SmallVector<gpu::GPUFuncOp>> buckets;
    llvm::DenseMap<StringAttr, gpu::GPUFuncOp> replacement; // by module name
    for (auto kernels : llvm::to_vector(module.getOps<gpu::GPUModuleOp>())) {
      gpu::GPUFuncOp fn = onlyKernel(kernels);
      if (!fn)
        continue;
      DictionaryAttr attrs = launchAttributes(fn);
      auto hash = static_cast<size_t>(llvm::hash_combine(structuralHash(fn), attrs));
      SmallVector<gpu::GPUFuncOp> &bucket = buckets[hash];
      auto same = llvm::find_if(bucket, [&](gpu::GPUFuncOp kept) {
        return launchAttributes(kept) == attrs && sameStructure(kept, fn);
      });
      if (same == bucket.end())
        bucket.push_back(fn);
      else
        replacement[kernels.getNameAttr()] = *same;
    }
    if (replacement.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kept = replacement.find(launch.getKernelModuleName());
      if (kept == replacement.end())
        return;
      auto keptModule = kept->second->getParentOfType<gpu::GPUModuleOp>();
      launch.setKernelAttr(SymbolRefAttr::get(
          keptModule.getNameAttr(), {FlatSymbolRefAttr::get(kept->second.getNameAttr())}));
    });
    for (auto &entry : replacement)
      SymbolTable::lookupNearestSymbolFrom<gpu::GPUModuleOp>(module, entry.first)->erase();
  }
};

} // namespace
