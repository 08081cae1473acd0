//===- OutOfLine.h - what jx-outline-kernels and -repeats share -*- C++ -*-===//
//
// Both passes move ops of a step into private functions called from it: the
// functions are marked the same way, and both clone the constants the moved
// ops read instead of passing them.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CONVERSION_LLVM_OUTOFLINE_H
#define COTANGENT_CONVERSION_LLVM_OUTOFLINE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace mlir::cotangent {

/// Private to the module and never inlined, by MLIR's inliner (`no_inline`)
/// nor by LLVM's (func-to-llvm keeps only the linkage and passthrough
/// attributes). Host code, a straight line of allocations and calls, is
/// also `optnone` (`hostCode`): LLVM's code generator takes its fast path
/// there, while the runtimes' optimizer still folds its descriptors
/// (runtime/host/LlvmOptimizer.h).
inline void markOutOfLine(func::FuncOp fn, bool hostCode = false) {
  MLIRContext *ctx = fn.getContext();
  fn.setPrivate();
  fn.setNoInline(true);
  fn->setAttr("llvm.linkage", LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
  SmallVector<StringRef, 2> passthrough{"noinline"};
  if (hostCode)
    passthrough.push_back("optnone");
  fn->setAttr("passthrough", Builder(ctx).getStrArrayAttr(passthrough));
}

/// A constant an outlined function clones rather than takes as an argument.
inline bool isClonedConstant(Value v) { return matchPattern(v, m_Constant()); }

} // namespace mlir::cotangent

#endif // COTANGENT_CONVERSION_LLVM_OUTOFLINE_H
