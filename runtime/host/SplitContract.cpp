//===- SplitContract.cpp - the fwd/bwd split as the runtimes find it ------===//
//
// The runtimes read the split through the dialect's contract
// (dialects/jx/JxSplit.h): pairs by their #jx.forward / #jx.backward
// attributes, memory kinds by #jx.residual. Read on the jx module, before
// lowering strips the jx attributes.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/SplitContract.h"

#include "dialects/jx/JxSplit.h"

using namespace mlir;

namespace cotangent::host {

MemoryKind memoryKindOfResult(func::FuncOp fn, unsigned index) {
  return jx::getResultMemoryKind(fn, index) == jx::kPinnedHost ? MemoryKind::PinnedHost
                                                             : MemoryKind::Device;
}

std::optional<SplitFunctions> findSplit(ModuleOp module, llvm::StringRef base) {
  std::optional<jx::SplitPair> pair = jx::lookupSplitPair(module, base);
  if (!pair)
    return std::nullopt;
  func::FuncOp primal;
  if (jx::ForwardAttr forward = jx::getForwardAttr(pair->fwd); forward && forward.getPrimal())
    primal = module.lookupSymbol<func::FuncOp>(forward.getPrimal());
  return SplitFunctions{primal, pair->fwd, pair->bwd};
}

} // namespace cotangent::host
