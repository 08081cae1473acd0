//===- AliasArgumentResults.cpp - return arguments without copying them ---===//
//
// Replaces `return ..., bufferization.clone(%arg), ...` by `return ..., %arg`
// when the function never writes into %arg (see LoweringPasses.td). Runs
// after the deallocation pipeline, which made the clones.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXALIASARGUMENTRESULTSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// The runtime's batched matmul (jx-matmul-to-blas) writes only its last operand.
bool writesOnlyLastOperand(func::CallOp call) {
  namespace abi = mlir::cotangent::abi;
  return llvm::is_contained(
      {abi::kBatchMatmulF32, abi::kBatchMatmulF64, abi::kBatchMatmulBF16, abi::kBatchMatmulF16},
      call.getCallee());
}

/// Whether `op` may write into the buffer it reaches through operand `use`.
bool mayWrite(OpOperand &use) {
  Operation *op = use.getOwner();
  if (auto call = dyn_cast<func::CallOp>(op))
    return !writesOnlyLastOperand(call) || use.getOperandNumber() + 1 == call.getNumOperands();
  if (isa<func::ReturnOp, bufferization::CloneOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isPure(op);
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffectsOnValue(use.get(), list);
  return llvm::any_of(list, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect());
  });
}

/// Whether anything in the function writes into `arg` or a view of it.
bool isWritten(BlockArgument arg) {
  SmallVector<Value> worklist{arg};
  llvm::SmallPtrSet<Value, 8> seen{arg};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      if (mayWrite(use))
        return true;
      Operation *user = use.getOwner();
      if (isa<bufferization::CloneOp>(user))
        continue; // a copy: writes into it do not reach the argument
      for (Value r : user->getResults())
        if (isa<BaseMemRefType>(r.getType()) && seen.insert(r).second)
          worklist.push_back(r);
    }
  }
  return false;
}

class JxAliasArgumentResultsPass
    : public cotangent::impl::JxAliasArgumentResultsPassBase<JxAliasArgumentResultsPass> {
public:
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    fn.walk([&](func::ReturnOp ret) {
      for (OpOperand &operand : ret->getOpOperands()) {
        auto clone = operand.get().getDefiningOp<bufferization::CloneOp>();
        auto arg = clone ? dyn_cast<BlockArgument>(clone.getInput()) : nullptr;
        if (!arg || arg.getOwner() != &fn.getBody().front() || !clone->hasOneUse() ||
            clone.getInput().getType() != clone.getType())
          continue;
        // A donated argument's buffer holds its result once written.
        bool donated = jx::getDonatedTo(fn, arg.getArgNumber()) == operand.getOperandNumber();
        if (!donated && isWritten(arg))
          continue;
        operand.set(arg);
        clone->erase();
      }
    });
    // The last pass that reads donations: below buffers they have no use.
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      fn.removeArgAttr(i, jx::kDonatedToAttrName);
  }
};

} // namespace
