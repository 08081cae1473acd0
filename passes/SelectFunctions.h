//===- SelectFunctions.h - the functions a `function=` option names -*- C++ -*-===//
//
// Passes with a `function` option act on that function, or on every
// function with a body when it is empty.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_SELECTFUNCTIONS_H
#define COTANGENT_PASSES_SELECTFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::cotangent {

/// The functions of `module` with a body named `function` (all of them if
/// it is empty), in order.
inline llvm::SmallVector<func::FuncOp> selectFunctions(ModuleOp module, llvm::StringRef function) {
  llvm::SmallVector<func::FuncOp> selected;
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal() && (function.empty() || fn.getSymName() == function))
      selected.push_back(fn);
  return selected;
}

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_SELECTFUNCTIONS_H
