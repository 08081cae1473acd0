//===- ReturnedFieldPropagation.cpp - constant fields of returned structs -===//

#include "runtime/host/ReturnedFieldPropagation.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace cotangent::host {

namespace {

/// The constant every `ret` of `fn` puts at `path` of its result, if any.
llvm::Constant *returnedConstant(llvm::ArrayRef<llvm::ReturnInst *> returns,
                                 llvm::ArrayRef<unsigned> path) {
  llvm::Constant *common = nullptr;
  for (llvm::ReturnInst *ret : returns) {
    auto *field = llvm::dyn_cast_or_null<llvm::Constant>(
        llvm::FindInsertedValue(ret->getReturnValue(), path));
    if (!field || llvm::isa<llvm::UndefValue>(field) || (common && field != common))
      return nullptr;
    common = field;
  }
  return common;
}

/// Replaces the extracts from `aggregate` (at `path` of the call's result)
/// that reach a scalar field by its constant; true if any was.
bool replaceFields(llvm::Value *aggregate, llvm::SmallVectorImpl<unsigned> &path,
                   llvm::ArrayRef<llvm::ReturnInst *> returns) {
  bool changed = false;
  for (llvm::User *user : llvm::make_early_inc_range(aggregate->users())) {
    auto *extract = llvm::dyn_cast<llvm::ExtractValueInst>(user);
    if (!extract || extract->getAggregateOperand() != aggregate)
      continue;
    size_t depth = path.size();
    path.append(extract->idx_begin(), extract->idx_end());
    if (extract->getType()->isAggregateType()) {
      changed |= replaceFields(extract, path, returns);
    } else if (llvm::Constant *constant = returnedConstant(returns, path)) {
      extract->replaceAllUsesWith(constant);
      extract->eraseFromParent();
      changed = true;
    }
    path.resize(depth);
  }
  return changed;
}

} // namespace

llvm::PreservedAnalyses ReturnedFieldPropagationPass::run(llvm::Module &module,
                                                          llvm::ModuleAnalysisManager &) {
  bool changed = false;
  for (llvm::Function &fn : module.functions()) {
    if (fn.isDeclaration() || !fn.hasLocalLinkage() || !fn.getReturnType()->isStructTy())
      continue;
    llvm::SmallVector<llvm::ReturnInst *> returns;
    for (llvm::BasicBlock &block : fn)
      if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator()))
        returns.push_back(ret);
    llvm::SmallVector<llvm::CallInst *> calls;
    bool onlyCalled = llvm::all_of(fn.uses(), [&](llvm::Use &use) {
      auto *call = llvm::dyn_cast<llvm::CallInst>(use.getUser());
      if (!call || !call->isCallee(&use) || call->getFunctionType() != fn.getFunctionType())
        return false;
      calls.push_back(call);
      return true;
    });
    if (returns.empty() || !onlyCalled)
      continue;
    for (llvm::CallInst *call : calls) {
      llvm::SmallVector<unsigned, 4> path;
      changed |= replaceFields(call, path, returns);
    }
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace cotangent::host
