//===- SplitDeallocations.cpp - free unrelated allocations on their own ---===//
//
// See JxSplitDeallocationsPass in LoweringPasses.td. Origins are found by
// walking views back to an allocation or a function argument, once per
// value: the pass is linear in the dealloc op's operands, where upstream's
// simplification asks its alias analysis about every pair of them.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXSPLITDEALLOCATIONSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
namespace lowering = mlir::cotangent::lowering;

namespace {

/// A buffer no other allocation or argument can be: an allocation on the
/// heap (not the stack, which ownership-based deallocation never frees).
bool isHeapAllocation(Value v) {
  auto result = dyn_cast<OpResult>(v);
  return result && isa<memref::AllocOp>(result.getOwner());
}

bool isFunctionArgument(Value v, Operation *within) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return false;
  auto fn = within->getParentOfType<FunctionOpInterface>();
  return fn && arg.getOwner() == &fn.getFunctionBody().front();
}

/// Moves each buffer of `dealloc` that is a heap allocation of its own (no
/// other buffer of the op, and no retained value, comes from it) into a
/// dealloc of its own; what stays may alias and is left to upstream.
void split(bufferization::DeallocOp dealloc) {
  llvm::DenseSet<Value> retainedOrigins;
  for (Value retained : dealloc.getRetained()) {
    Value origin = lowering::originOf(retained);
    // Unknown origin (a call's result, a loop's argument): it may be any
    // of the buffers, so none can be freed apart from the others.
    if (!isHeapAllocation(origin) && !isFunctionArgument(origin, dealloc))
      return;
    retainedOrigins.insert(origin);
  }
  llvm::DenseMap<Value, unsigned> count;
  SmallVector<Value> origins;
  for (Value memref : dealloc.getMemrefs()) {
    origins.push_back(lowering::originOf(memref));
    ++count[origins.back()];
  }
  SmallVector<Value> keptMemrefs, keptConditions;
  SmallVector<std::pair<Value, Value>> alone;
  for (auto [memref, condition, origin] :
       llvm::zip_equal(dealloc.getMemrefs(), dealloc.getConditions(), origins)) {
    if (isHeapAllocation(origin) && count[origin] == 1 && !retainedOrigins.contains(origin))
      alone.push_back({memref, condition});
    else {
      keptMemrefs.push_back(memref);
      keptConditions.push_back(condition);
    }
  }
  if (alone.empty())
    return;
  OpBuilder builder(dealloc);
  for (auto [memref, condition] : alone)
    bufferization::DeallocOp::create(builder, dealloc.getLoc(), ValueRange{memref},
                                     ValueRange{condition}, ValueRange{});
  auto kept = bufferization::DeallocOp::create(builder, dealloc.getLoc(), keptMemrefs,
                                               keptConditions, dealloc.getRetained());
  dealloc->replaceAllUsesWith(kept->getResults());
  dealloc->erase();
}

class JxSplitDeallocationsPass
    : public cotangent::impl::JxSplitDeallocationsPassBase<JxSplitDeallocationsPass> {
public:
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation()->walk([&](bufferization::DeallocOp op) { deallocs.push_back(op); });
    for (bufferization::DeallocOp op : deallocs)
      split(op);
  }
};

} // namespace
