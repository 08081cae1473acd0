//===- HostBuffers.cpp - buffers only host code touches, on the stack -----===//
//
// On the GPU every memref.alloc is device memory. The deallocation
// pipeline's alias checks (bufferization.dealloc with several buffers)
// allocate small buffers of base addresses and ownership flags that only the
// host fills, loops over (in a helper function) and reads: left on the
// device, each store became a kernel and each read a wait for the device.
// They become stack buffers here; jx-gpu-kernelize-host-code leaves code on
// stack buffers on the host.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUHOSTBUFFERSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// Whether every use of `buffer` (through casts) loads or stores an
/// element, frees it, or passes it to a function that only does the first
/// two with it.
bool onlyHostUses(Value buffer, ModuleOp module, int depth = 0) {
  if (depth > 4) // a callee passing it on, and on: not what the pipeline makes
    return false;
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::LoadOp, memref::DeallocOp, memref::DimOp>(user))
      continue;
    if (auto store = dyn_cast<memref::StoreOp>(user); store && store.getMemRef() == buffer)
      continue;
    if (auto cast = dyn_cast<memref::CastOp>(user)) {
      if (!onlyHostUses(cast.getResult(), module, depth))
        return false;
      continue;
    }
    auto call = dyn_cast<func::CallOp>(user);
    auto callee = call ? module.lookupSymbol<func::FuncOp>(call.getCallee()) : func::FuncOp();
    if (!callee || callee.isExternal() || callee.isPublic() ||
        !onlyHostUses(callee.getArgument(use.getOperandNumber()), module, depth + 1))
      return false;
  }
  return true;
}

class JxGpuHostBuffersPass
    : public cotangent::impl::JxGpuHostBuffersPassBase<JxGpuHostBuffersPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::AllocOp> hostOnly;
    module.walk([&](memref::AllocOp alloc) {
      if (alloc.getType().hasStaticShape() && alloc.getType().getMemorySpace() == nullptr &&
          alloc->getParentOfType<func::FuncOp>() && onlyHostUses(alloc, module))
        hostOnly.push_back(alloc);
    });
    for (memref::AllocOp alloc : hostOnly) {
      auto fn = alloc->getParentOfType<func::FuncOp>();
      OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
      auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType(),
                                             alloc.getAlignmentAttr());
      for (Operation *user : llvm::to_vector(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(alloca.getResult());
      alloc.erase();
    }
  }
};

} // namespace
