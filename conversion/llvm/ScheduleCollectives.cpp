//===- ScheduleCollectives.cpp - reductions start when their operand is made -===//
//
// Moves psum, pmean and psum_scatter up to just after the op computing their
// operand (a block argument: to the block's start, after the collectives
// already moved there, keeping their order). Pure ops in one block: the
// values are the same, and every rank moves the same ops alike.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxOps.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXSCHEDULECOLLECTIVESPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

class JxScheduleCollectivesPass
    : public cotangent::impl::JxScheduleCollectivesPassBase<JxScheduleCollectivesPass> {
public:
  void runOnOperation() override {
    getOperation().walk([](Block *block) {
      Operation *atStart = nullptr; // the last collective moved to the block's start
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        if (!isa<jx::PsumOp, jx::PmeanOp, jx::PsumScatterOp>(op))
          continue;
        Operation *def = op.getOperand(0).getDefiningOp();
        if (Operation *inBlock = def ? block->findAncestorOpInBlock(*def) : nullptr) {
          op.moveAfter(inBlock);
          continue;
        }
        if (atStart)
          op.moveAfter(atStart);
        else
          op.moveBefore(&block->front());
        atStart = &op;
      }
    });
  }
};

} // namespace
