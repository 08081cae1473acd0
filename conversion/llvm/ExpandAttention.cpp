//===- ExpandAttention.cpp - fused attention as dot_generals and a softmax ===//
//
// Replaces dot_product_attention and its backward by their definition in
// jx ops (jx::expandAttention): for targets without the fused kernels (the
// GPU for now), and on the CPU for element types other than f32
// (`keep-kernels` keeps the f32 ones, which bufferize into kernel calls).
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxAttentionOps.h"
#include "dialects/jx/JxOps.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXEXPANDATTENTIONPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

class JxExpandAttentionPass
    : public cotangent::impl::JxExpandAttentionPassBase<JxExpandAttentionPass> {
public:
  using JxExpandAttentionPassBase::JxExpandAttentionPassBase;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (!isa<jx::DotProductAttentionOp, jx::DotProductAttentionGradOp>(op))
        return;
      Type element = cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
      if (!(keepKernels && element.isF32()))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      SmallVector<Value> results =
          isa<jx::DotProductAttentionOp>(op)
              ? jx::expandAttention(b, cast<jx::DotProductAttentionOp>(op))
              : jx::expandAttentionGrad(b, cast<jx::DotProductAttentionGradOp>(op));
      op->replaceAllUsesWith(results);
      op->erase();
    }
  }
};

} // namespace
