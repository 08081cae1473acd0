//===- SplitContract.cpp - the fwd/bwd split as the runtimes find it ------===//
//
// Today the contract is a string protocol: the `_fwd` / `_bwd` name suffixes
// and the `jx.memory_kind` result attribute (passes/remat/RematTags.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/host/SplitContract.h"
#include "passes/remat/RematTags.h"

using namespace mlir;

namespace cotangent::host {

MemoryKind memoryKindOfResult(func::FuncOp fn, unsigned index) {
  auto kind = fn.getResultAttrOfType<StringAttr>(index, mlir::cotangent::kMemoryKindAttr);
  return kind && kind.getValue() == "pinned_host" ? MemoryKind::PinnedHost : MemoryKind::Device;
}

SplitNames splitNamesOf(llvm::StringRef base) {
  return {(base + "_fwd").str(), (base + "_bwd").str()};
}

std::optional<SplitFunctions> findSplit(ModuleOp module, llvm::StringRef base) {
  SplitNames names = splitNamesOf(base);
  SplitFunctions split{module.lookupSymbol<func::FuncOp>(base),
                       module.lookupSymbol<func::FuncOp>(names.fwd),
                       module.lookupSymbol<func::FuncOp>(names.bwd)};
  if (!split.fwd || !split.bwd)
    return std::nullopt;
  return split;
}

} // namespace cotangent::host
