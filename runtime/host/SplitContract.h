//===- SplitContract.h - what the runtimes read of the fwd/bwd split -*- C++ -*-===//
//
// --jx-vjp makes @f_fwd (primal outputs, then residuals) and @f_bwd
// (residuals, then output cotangents) of @f; --jx-remat may mark a residual
// result of @f_fwd with the memory kind it waits in. What the runtimes need
// of that contract (dialects/jx/JxSplit.h), in their terms.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_SPLITCONTRACT_H
#define COTANGENT_RUNTIME_HOST_SPLITCONTRACT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace cotangent::host {

/// Where a residual waits between the forward and the backward call.
enum class MemoryKind {
  Device,     ///< with every other buffer of compiled code (the default)
  PinnedHost, ///< offloaded to page-locked host memory
};

/// The memory kind of result `index` of `fn` as --jx-remat marked it.
MemoryKind memoryKindOfResult(mlir::func::FuncOp fn, unsigned index);

/// The two halves of @base's split, and @base itself (null when the module
/// no longer has it).
struct SplitFunctions {
  mlir::func::FuncOp primal, fwd, bwd;
};
/// The split a user means by @base (the split of @base, or the pair @base
/// is a half of) in `module`; nullopt when there is none.
std::optional<SplitFunctions> findSplit(mlir::ModuleOp module, llvm::StringRef base);

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_SPLITCONTRACT_H
