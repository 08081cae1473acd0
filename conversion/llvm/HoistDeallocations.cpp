//===- HoistDeallocations.cpp - free buffers after their last use ---------===//
//
// Moves each `memref.dealloc` of a buffer allocated in the same block to
// just after the buffer's last use there, following views (any op that takes
// the buffer, or a view of it, and returns a memref). Only earlier frees
// change: the buffer is dead after that op, whatever path its views took.
// A buffer handed to a compiled collective is in use until its wait.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/LoweringUtils.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXHOISTDEALLOCATIONSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

class JxHoistDeallocationsPass
    : public cotangent::impl::JxHoistDeallocationsPassBase<JxHoistDeallocationsPass> {
public:
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    // Positions in each block, numbered once: moving a dealloc changes no
    // other op's order, and asking the block after each move would renumber
    // it (quadratic in a 128-layer step's one long block).
    llvm::DenseMap<Operation *, size_t> position;
    getOperation().walk([&](Block *block) {
      size_t index = 0;
      for (Operation &op : *block)
        position[&op] = index++;
    });
    for (memref::DeallocOp dealloc : deallocs)
      hoist(dealloc, position);
  }

private:
  static void hoist(memref::DeallocOp dealloc,
                    const llvm::DenseMap<Operation *, size_t> &position) {
    Value buffer = dealloc.getMemref();
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    Block *block = dealloc->getBlock();
    if (!alloc || alloc->getBlock() != block)
      return;
    // The buffer and every memref derived from it.
    SmallVector<Value> worklist{buffer};
    llvm::SmallPtrSet<Value, 8> aliases{buffer};
    Operation *last = alloc;
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (user == dealloc)
          continue;
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        if (!inBlock)
          return; // used outside this block: leave it alone
        // A collective reads or writes it until its wait returns.
        if (Operation *wait = cotangent::lowering::collectiveWaitOf(user)) {
          inBlock = block->findAncestorOpInBlock(*wait);
          if (!inBlock)
            return;
        }
        if (position.at(last) < position.at(inBlock))
          last = inBlock;
        for (Value r : user->getResults())
          if (isa<BaseMemRefType>(r.getType()) && aliases.insert(r).second)
            worklist.push_back(r);
      }
    }
    if (last->hasTrait<OpTrait::IsTerminator>() || position.at(last) >= position.at(dealloc))
      return;
    dealloc->moveAfter(last);
  }
};

} // namespace
