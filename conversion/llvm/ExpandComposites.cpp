//===- ExpandComposites.cpp - composite ops written as jx ops -------------===//
//
// Replaces every composite op (CompositeOpInterface: fused attention and its
// backward, the fused softmax cross-entropy and its backward) by its
// expansion into other jx ops, which the rest of the lowering knows.
// `keep-kernels` keeps what the CPU runtime runs as a kernel instead: f32
// attention, bufferized into calls of its FlashAttention-2 kernels.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxOps.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXEXPANDCOMPOSITESPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// Whether the CPU runtime has a kernel for `op`.
bool hasCpuKernel(Operation *op) {
  return isa<jx::DotProductAttentionOp, jx::DotProductAttentionGradOp>(op) &&
         cast<RankedTensorType>(op->getOperand(0).getType()).getElementType().isF32();
}

class JxExpandCompositesPass
    : public cotangent::impl::JxExpandCompositesPassBase<JxExpandCompositesPass> {
public:
  using JxExpandCompositesPassBase::JxExpandCompositesPassBase;

  void runOnOperation() override {
    SmallVector<jx::CompositeOpInterface> composites;
    getOperation()->walk([&](jx::CompositeOpInterface op) {
      if (!(keepKernels && hasCpuKernel(op)))
        composites.push_back(op);
    });
    for (jx::CompositeOpInterface op : composites) {
      OpBuilder b(op);
      op->replaceAllUsesWith(op.expand(b));
      op->erase();
    }
  }
};

} // namespace
