//===- VjpRulesCollective.cpp - VJP rules of the collectives --------------===//
//
// Every collective is linear in its operand, and its transpose is another
// collective over the same axis, as in JAX: psum's and pmean's are
// themselves (each rank's operand reaches every rank's result), all_gather
// and psum_scatter transpose into each other (the same dimension, tiled
// alike), ppermute sends the cotangents back along the reversed pairs.
// axis_index has no derivative.
//
//===----------------------------------------------------------------------===//

#include "passes/autodiff/VjpRules.h"

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

void mlir::cotangent::addCollectiveVjpRules(VjpRuleTable &t) {
  linear<PsumOp>(t, [](JxBuilder &b, PsumOp op, Value ct) {
    return SmallVector<Value>{b.create<PsumOp>(ct, op.getAxisNameAttr())};
  });
  linear<PmeanOp>(t, [](JxBuilder &b, PmeanOp op, Value ct) {
    return SmallVector<Value>{b.create<PmeanOp>(ct, op.getAxisNameAttr())};
  });
  linear<AllGatherOp>(t, [](JxBuilder &b, AllGatherOp op, Value ct) {
    return SmallVector<Value>{b.create<PsumScatterOp>(
        op.getOperand().getType(), ct, op.getAxisNameAttr(), op.getAxisSizeAttr(),
        op.getDimensionAttr(), op.getTiledAttr())};
  });
  linear<PsumScatterOp>(t, [](JxBuilder &b, PsumScatterOp op, Value ct) {
    return SmallVector<Value>{b.create<AllGatherOp>(op.getOperand().getType(), ct,
                                                    op.getAxisNameAttr(), op.getAxisSizeAttr(),
                                                    op.getDimensionAttr(), op.getTiledAttr())};
  });
  linear<PpermuteOp>(t, [](JxBuilder &b, PpermuteOp op, Value ct) {
    SmallVector<int64_t> back;
    ArrayRef<int64_t> perm = op.getPerm();
    for (size_t i = 0; i < perm.size(); i += 2)
      back.append({perm[i + 1], perm[i]});
    return SmallVector<Value>{b.create<PpermuteOp>(ct, op.getAxisNameAttr(), back)};
  });
  t[TypeID::get<AxisIndexOp>()] = zeroVjpRule();
}
