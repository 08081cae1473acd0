//===- FunctionNames.h - name the functions a module has -------*- C++ -*-===//
//
// A tool asked to run or transform a function the module does not have says
// which functions it does have, so the user can pick one without opening the
// file (cotangent-interpret --fn, cotangent-run --fn, cotangent-opt's
// --jx-vjp=function= and --jx-print-jaxpr=function=).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COMMON_FUNCTIONNAMES_H
#define COTANGENT_TOOLS_COMMON_FUNCTIONNAMES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace cotangent::tools {

/// "the module's functions: @f, @f_fwd", or "the module has no function".
inline std::string describeFunctions(mlir::ModuleOp module) {
  std::string names;
  for (auto fn : module.getOps<mlir::func::FuncOp>())
    names += (names.empty() ? "@" : ", @") + fn.getSymName().str();
  return names.empty() ? "the module has no function" : "the module's functions: " + names;
}

} // namespace cotangent::tools

#endif // COTANGENT_TOOLS_COMMON_FUNCTIONNAMES_H
