//===- ReloadResiduals.cpp - offloaded residuals come back when needed ----===//
//
// A residual that --jx-remat marked `pinned_host` waits in pinned host
// memory between the forward and the backward. Copying it back before the
// backward starts would hold its device copy over the whole backward, so
// the offload would not lower the device peak. Instead the backward
// receives the pinned buffer itself (device code reads it through unified
// addressing) and makes its own device copy right before the first use;
// the deallocation pipeline frees it after the last, like any buffer. A
// residual that one elementwise op reads gets no copy: that op's kernel
// reads the pinned buffer, once, as the copy's kernel would have.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "dialects/jx/JxSplit.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPURELOADRESIDUALSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// True if one elementwise op (through optimization barriers) is all that
/// reads `arg`: its kernel loads each element once, through unified
/// addressing, as a copy's kernel would, so the copy would only add a
/// device buffer. Anything else (a matmul reads its operands many times)
/// gets a device copy.
bool readsInPlace(Value arg) {
  Value v = arg;
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    if (user->getBlock() != arg.getParentBlock())
      return false;
    if (auto barrier = dyn_cast<jx::OptimizationBarrierOp>(user)) {
      if (barrier->getNumResults() != 1)
        return false;
      v = barrier->getResult(0);
      continue;
    }
    return user->hasTrait<OpTrait::Elementwise>();
  }
  return false;
}

class JxGpuReloadResidualsPass
    : public cotangent::impl::JxGpuReloadResidualsPassBase<JxGpuReloadResidualsPass> {
public:
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    Block &entry = fn.getBody().front();
    for (BlockArgument arg : fn.getArguments()) {
      if (jx::getArgMemoryKind(fn, arg.getArgNumber()) != jx::kPinnedHost || arg.use_empty())
        continue;
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type) {
        fn.emitError("an offloaded residual must be a ranked tensor, got ") << arg.getType();
        return signalPassFailure();
      }
      if (readsInPlace(arg))
        continue;
      // The first op of the entry block that uses the argument, itself or
      // in its regions.
      Operation *first = nullptr;
      for (Operation *user : arg.getUsers()) {
        Operation *top = entry.findAncestorOpInBlock(*user);
        if (top && (!first || top->isBeforeInBlock(first)))
          first = top;
      }
      OpBuilder b(first);
      auto copy = bufferization::AllocTensorOp::create(b, arg.getLoc(), type, ValueRange{},
                                                       /*copy=*/arg);
      arg.replaceAllUsesExcept(copy.getResult(), copy);
    }
  }
};

} // namespace
