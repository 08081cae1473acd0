//===- Passes.h - Cotangent's passes ----------------------------*- C++ -*-===//

#ifndef COTANGENT_PASSES_PASSES_H
#define COTANGENT_PASSES_PASSES_H

#include "dialects/jx/JxOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::cotangent {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_PASSES_H
