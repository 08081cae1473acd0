//===- FlattenExtractChains.cpp - one extractvalue per scalar field -------===//

#include "runtime/host/FlattenExtractChains.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Local.h"

namespace cotangent::host {

llvm::PreservedAnalyses FlattenExtractChainsPass::run(llvm::Function &fn,
                                                      llvm::FunctionAnalysisManager &) {
  llvm::SmallVector<llvm::ExtractValueInst *> chained;
  for (llvm::Instruction &inst : llvm::instructions(fn))
    if (auto *extract = llvm::dyn_cast<llvm::ExtractValueInst>(&inst);
        extract && llvm::isa<llvm::ExtractValueInst>(extract->getAggregateOperand()))
      chained.push_back(extract);
  if (chained.empty())
    return llvm::PreservedAnalyses::all();
  llvm::SmallVector<llvm::WeakTrackingVH> outers;
  for (llvm::ExtractValueInst *extract : chained) {
    // The whole path from the first aggregate that is not an extract: an
    // outer extract flattened before has been replaced by its flat form.
    llvm::SmallVector<unsigned> path(extract->idx_begin(), extract->idx_end());
    llvm::Value *root = extract->getAggregateOperand();
    while (auto *outer = llvm::dyn_cast<llvm::ExtractValueInst>(root)) {
      path.insert(path.begin(), outer->idx_begin(), outer->idx_end());
      outers.push_back(outer);
      root = outer->getAggregateOperand();
    }
    auto *flat =
        llvm::ExtractValueInst::Create(root, path, "", extract->getIterator());
    flat->takeName(extract);
    flat->setDebugLoc(extract->getDebugLoc());
    extract->replaceAllUsesWith(flat);
    extract->eraseFromParent();
  }
  llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(outers);
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace cotangent::host
