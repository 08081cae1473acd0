//===- DeferCollectiveWaits.cpp - wait where the buffers are next used ----===//
//
// Each @cotangent_collective_wait moves down its block to the first op that
// touches the collective's operand or result buffer (any view of the
// allocations they view, at any depth of that op's regions), or to the
// terminator. Until then the communication thread owns both buffers and the
// step's thread computes on.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXDEFERCOLLECTIVEWAITSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// Operands of @cotangent_collective_start that are buffer addresses
/// (runtime/comm/Collectives.h): the operand and the result.
constexpr unsigned kInOperand = 3, kOutOperand = 4;

class JxDeferCollectiveWaitsPass
    : public cotangent::impl::JxDeferCollectiveWaitsPassBase<JxDeferCollectiveWaitsPass> {
public:
  void runOnOperation() override {
    SmallVector<func::CallOp> waits;
    getOperation().walk([&](func::CallOp call) {
      if (call.getCallee() == cotangent::abi::kCollectiveWait)
        waits.push_back(call);
    });
    for (func::CallOp wait : waits)
      defer(wait);
  }

private:
  static void defer(func::CallOp wait) {
    auto start = wait->getOperand(0).getDefiningOp<func::CallOp>();
    if (!start || start.getCallee() != cotangent::abi::kCollectiveStart)
      return;
    // The allocations behind both buffers, and every memref derived from them.
    llvm::SmallPtrSet<Value, 8> aliases;
    SmallVector<Value> worklist;
    for (unsigned i : {kInOperand, kOutOperand})
      if (auto pointer =
              start->getOperand(i).getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>()) {
        Value origin = cotangent::lowering::originOf(pointer.getSource());
        if (aliases.insert(origin).second)
          worklist.push_back(origin);
      }
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers())
        for (Value r : user->getResults())
          if (isa<BaseMemRefType>(r.getType()) && aliases.insert(r).second)
            worklist.push_back(r);
    }
    auto touches = [&](Operation *op) {
      return op
          ->walk([&](Operation *nested) {
            for (Value operand : nested->getOperands())
              if (aliases.contains(operand))
                return WalkResult::interrupt();
            return WalkResult::advance();
          })
          .wasInterrupted();
    };
    Operation *stop = wait->getNextNode();
    while (stop && !stop->hasTrait<OpTrait::IsTerminator>() && !touches(stop))
      stop = stop->getNextNode();
    if (stop && stop != wait->getNextNode())
      wait->moveBefore(stop);
  }
};

} // namespace
