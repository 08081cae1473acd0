//===- OffloadResiduals.cpp - offloaded residuals leave when computed -----===//
//
// A residual that --jx-remat marked `pinned_host` waits in pinned host
// memory between the forward and the backward. Copied out only after the
// forward returns, every such residual would still be in device memory at
// the forward's end, all of them at once: on the 8-layer MLP at batch 2048,
// 64 MiB of the 72 MiB device peak of an offloaded step. Instead the forward
// makes the pinned copy itself, right after the value is computed, and
// returns it; the deallocation pipeline frees the device buffer after its
// last use in the forward like any other.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "dialects/jx/JxSplit.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUOFFLOADRESIDUALSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

class JxGpuOffloadResidualsPass
    : public cotangent::impl::JxGpuOffloadResidualsPassBase<JxGpuOffloadResidualsPass> {
public:
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    auto ret = dyn_cast<func::ReturnOp>(fn.getBody().back().getTerminator());
    if (!ret)
      return;
    auto space = StringAttr::get(&getContext(), jx::kPinnedHost);
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
      if (jx::getResultMemoryKind(fn, i) != jx::kPinnedHost)
        continue;
      Value value = ret.getOperand(i);
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type) {
        fn.emitError("an offloaded residual must be a ranked tensor, got ") << value.getType();
        return signalPassFailure();
      }
      OpBuilder b(&getContext());
      if (Operation *def = value.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
      auto copy = bufferization::AllocTensorOp::create(b, value.getLoc(), type, ValueRange{},
                                                       /*copy=*/value);
      copy.setMemorySpaceAttr(space);
      ret.setOperand(i, copy.getResult());
    }
  }
};

} // namespace
