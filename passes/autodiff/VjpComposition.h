//===- VjpComposition.h - @f_vjp and @f_value_and_grad ----------*- C++ -*-===//

#ifndef COTANGENT_PASSES_AUTODIFF_VJPCOMPOSITION_H
#define COTANGENT_PASSES_AUTODIFF_VJPCOMPOSITION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::cotangent {

/// (Re)creates, next to `bwd`, the functions that compose a forward/backward
/// pair: `@f_vjp(args..., cts...) -> (results..., arg cts...)` and, when the
/// function returns one scalar float, `@f_value_and_grad(args...) -> (value,
/// grads...)`. Existing ones are replaced: residual lists change under --jx-remat.
void emitVjpFunctions(func::FuncOp fwd, func::FuncOp bwd);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_AUTODIFF_VJPCOMPOSITION_H
