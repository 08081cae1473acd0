//===- ElementwiseInPlace.cpp - elementwise results over dying inputs -----===//
//
// See JxElementwiseInPlacePass in LoweringPasses.td. jx-to-linalg gives every
// op a fresh destination, so one-shot bufferization allocates a buffer for
// each result even where an input of the same shape is dead after the op:
// a derivative g * (1 - h^2) held g, h and its result at once. Pointing the
// destination at such an input lets bufferization write in place (linalg's
// elementwise ops may read and write one buffer), which it still refuses
// where the analysis finds a conflict.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXELEMENTWISEINPLACEPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// Every loop parallel: element i of a result depends on the inputs'
/// elements of iteration i only.
bool isParallel(linalg::GenericOp op) { return op.getNumLoops() == op.getNumParallelLoops(); }

bool isIdentity(linalg::GenericOp op, OpOperand &operand) {
  return op.getMatchingIndexingMap(&operand).isIdentity();
}

/// The op whose buffer `v` will be: through reshapes, in `block`; null if
/// anything else reads that buffer (a reshape's source used again).
Operation *bufferOrigin(Value v, Block *block) {
  while (Operation *def = v.getDefiningOp()) {
    if (def->getBlock() != block || !v.hasOneUse())
      return nullptr;
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
      return def;
    v = def->getOperand(0);
  }
  return nullptr;
}

/// An input `op` may write over: `op` is its only user, it has the result's
/// type, and its buffer is one a linalg op of `op`'s block wrote (not an
/// argument, which is the caller's, a loop's carried value, a constant, a
/// call's result that may be an argument, or a value from outside a loop
/// that the next iteration reads again).
bool isDyingInput(linalg::GenericOp op, OpOperand &input, Type resultType) {
  Value v = input.get();
  if (v.getType() != resultType)
    return false;
  Operation *origin = bufferOrigin(v, op->getBlock());
  return origin && isa<linalg::LinalgOp>(origin);
}

class JxElementwiseInPlacePass
    : public cotangent::impl::JxElementwiseInPlacePassBase<JxElementwiseInPlacePass> {
public:
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() || !isParallel(op))
        return;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        if (!init.get().getDefiningOp<tensor::EmptyOp>() || op.payloadUsesValueFromOperand(&init) ||
            !isIdentity(op, init))
          continue;
        for (OpOperand *input : op.getDpsInputOperands()) {
          // Read element for element (a broadcast input is read many times).
          // Once taken, an input has two uses: the next result needs another.
          if (!isIdentity(op, *input) || !isDyingInput(op, *input, init.get().getType()))
            continue;
          init.set(input->get());
          break;
        }
      }
    });
  }
};

} // namespace
