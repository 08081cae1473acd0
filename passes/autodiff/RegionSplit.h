//===- RegionSplit.h - a region op's body split as a function ---*- C++ -*-===//
//
// The VJPs of region ops (VjpControlFlow.cpp, VjpScanRevolve.cpp) split a
// region by turning it into a temporary private function, splitting that as
// a whole function, and cloning the halves' bodies into new region ops.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_AUTODIFF_REGIONSPLIT_H
#define COTANGENT_PASSES_AUTODIFF_REGIONSPLIT_H

#include "passes/autodiff/Differentiate.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::cotangent {

/// `t` with a new leading dimension of `length`.
RankedTensorType stackedType(Type t, int64_t length);

/// A private function with `region`'s block as its body (jx.yield -> return),
/// named after `name` so that it and its _fwd/_bwd split are free names.
func::FuncOp regionToFunction(Operation *op, Region &region, StringRef name);

/// Splits `region` of `op` with `split` through a temporary function named
/// after `name` (erased again); the halves are the caller's to erase.
FailureOr<ForwardBackward>
splitRegionAsFunction(Operation *op, Region &region, StringRef name,
                      llvm::function_ref<FailureOr<ForwardBackward>(func::FuncOp)> split);

/// Clones `fn`'s body (with its arguments mapped in `map`) at `b`, without
/// remat scopes; returns what it returns.
SmallVector<Value> inlineBody(func::FuncOp fn, OpBuilder &b, IRMapping &map);

/// The residuals `fwd` returns after its primal results.
ValueRange residualsOf(func::FuncOp fwd);

/// Erases the temporary functions of a region's split.
void eraseSplit(ForwardBackward &split);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_AUTODIFF_REGIONSPLIT_H
