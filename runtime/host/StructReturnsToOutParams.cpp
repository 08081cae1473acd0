//===- StructReturnsToOutParams.cpp - returned descriptors through memory -===//

#include "runtime/host/StructReturnsToOutParams.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

#include <set>
#include <utility>

namespace cotangent::host {

namespace {

using Path = llvm::SmallVector<unsigned, 4>;

/// The calls of `fn` and the field paths their results are read at, if `fn`
/// can return through memory.
std::optional<std::pair<std::vector<llvm::CallInst *>, std::set<Path>>>
convertibleCalls(llvm::Function &fn) {
  if (!fn.hasLocalLinkage() || fn.isDeclaration() || fn.isVarArg() ||
      !fn.getReturnType()->isStructTy())
    return std::nullopt;
  std::vector<llvm::CallInst *> calls;
  std::set<Path> read;
  for (llvm::Use &use : fn.uses()) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(use.getUser());
    if (!call || !call->isCallee(&use) || call->getFunctionType() != fn.getFunctionType() ||
        call->isMustTailCall())
      return std::nullopt;
    for (llvm::User *user : call->users()) {
      auto *extract = llvm::dyn_cast<llvm::ExtractValueInst>(user);
      if (!extract || extract->getType()->isAggregateType())
        return std::nullopt;
      read.insert(Path(extract->idx_begin(), extract->idx_end()));
    }
    calls.push_back(call);
  }
  return std::make_pair(std::move(calls), std::move(read));
}

/// `attributes` with no return attributes, a first parameter without any,
/// and no memory effects (the callee now writes through that parameter).
llvm::AttributeList withOutParam(llvm::LLVMContext &context, llvm::AttributeList attributes,
                                 unsigned numParams) {
  llvm::SmallVector<llvm::AttributeSet> params{llvm::AttributeSet()};
  for (unsigned i = 0; i < numParams; ++i)
    params.push_back(attributes.getParamAttrs(i));
  llvm::AttributeSet fnAttributes =
      attributes.getFnAttrs().removeAttribute(context, llvm::Attribute::Memory);
  return llvm::AttributeList::get(context, fnAttributes, llvm::AttributeSet(), params);
}

/// The address of the field at `path` of the struct of type `type` at `base`.
llvm::Value *fieldAddress(llvm::IRBuilder<> &builder, llvm::Type *type, llvm::Value *base,
                          const Path &path) {
  llvm::SmallVector<llvm::Value *> indices{builder.getInt32(0)};
  for (unsigned index : path)
    indices.push_back(builder.getInt32(index));
  return builder.CreateInBoundsGEP(type, base, indices);
}

void convert(llvm::Function &fn, llvm::ArrayRef<llvm::CallInst *> calls,
             const std::set<Path> &read) {
  llvm::LLVMContext &context = fn.getContext();
  llvm::Type *structType = fn.getReturnType();
  llvm::FunctionType *oldType = fn.getFunctionType();
  llvm::SmallVector<llvm::Type *> params{llvm::PointerType::getUnqual(context)};
  params.append(oldType->param_begin(), oldType->param_end());
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
  llvm::Function *out =
      llvm::Function::Create(type, fn.getLinkage(), fn.getAddressSpace(), "", fn.getParent());
  out->takeName(&fn);
  out->setCallingConv(fn.getCallingConv());
  out->setAttributes(withOutParam(context, fn.getAttributes(), oldType->getNumParams()));
  out->splice(out->begin(), &fn);
  for (auto [old, arg] : llvm::zip(fn.args(), llvm::drop_begin(out->args()))) {
    arg.takeName(&old);
    old.replaceAllUsesWith(&arg);
  }

  llvm::Argument *destination = out->getArg(0);
  for (llvm::BasicBlock &block : *out) {
    auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator());
    if (!ret)
      continue;
    llvm::IRBuilder<> builder(ret);
    llvm::Value *value = ret->getReturnValue();
    for (const Path &path : read) {
      // The scalar the insertvalue chain put there, else an extract of it.
      llvm::Value *field = llvm::FindInsertedValue(value, path);
      if (!field)
        field = builder.CreateExtractValue(value, path);
      builder.CreateStore(field, fieldAddress(builder, structType, destination, path));
    }
    builder.CreateRetVoid();
    ret->eraseFromParent();
    llvm::RecursivelyDeleteTriviallyDeadInstructions(value);
  }

  // One slot per caller for this struct's calls: each call's fields are
  // read right after it, before the next call writes the slot again.
  llvm::DenseMap<llvm::Function *, llvm::AllocaInst *> slots;
  for (llvm::CallInst *call : calls) {
    llvm::Function *caller = call->getFunction();
    llvm::AllocaInst *&slot = slots[caller];
    if (!slot) {
      llvm::IRBuilder<> entry(&*caller->getEntryBlock().getFirstInsertionPt());
      slot = entry.CreateAlloca(structType, nullptr, out->getName() + ".result");
    }
    llvm::IRBuilder<> builder(call);
    llvm::SmallVector<llvm::Value *> args{slot};
    args.append(call->arg_begin(), call->arg_end());
    // Not a tail call: the callee writes the caller's frame.
    llvm::CallInst *replacement = builder.CreateCall(type, out, args);
    replacement->setCallingConv(call->getCallingConv());
    replacement->setAttributes(
        withOutParam(context, call->getAttributes(), oldType->getNumParams()));
    replacement->setDebugLoc(call->getDebugLoc());
    builder.SetInsertPoint(call->getNextNode());
    for (llvm::User *user : llvm::make_early_inc_range(call->users())) {
      auto *extract = llvm::cast<llvm::ExtractValueInst>(user);
      Path path(extract->idx_begin(), extract->idx_end());
      llvm::Value *field = builder.CreateLoad(
          extract->getType(), fieldAddress(builder, structType, slot, path), extract->getName());
      extract->replaceAllUsesWith(field);
      extract->eraseFromParent();
    }
    call->eraseFromParent();
  }
  fn.eraseFromParent();
}

} // namespace

llvm::PreservedAnalyses StructReturnsToOutParamsPass::run(llvm::Module &module,
                                                          llvm::ModuleAnalysisManager &) {
  std::vector<llvm::Function *> functions;
  for (llvm::Function &fn : module)
    functions.push_back(&fn);
  bool changed = false;
  for (llvm::Function *fn : functions)
    if (auto calls = convertibleCalls(*fn)) {
      convert(*fn, calls->first, calls->second);
      changed = true;
    }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace cotangent::host
