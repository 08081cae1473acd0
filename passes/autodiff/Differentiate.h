//===- Differentiate.h - the VJP of one function ----------------*- C++ -*-===//

#ifndef COTANGENT_PASSES_AUTODIFF_DIFFERENTIATE_H
#define COTANGENT_PASSES_AUTODIFF_DIFFERENTIATE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::cotangent {

struct ForwardBackward {
  func::FuncOp fwd, bwd;
};

/// Splits `fn` (a function of a module) into @<fn>_fwd and @<fn>_bwd next to
/// it, as --jx-vjp does (see Passes.td); with `compose`, also emits @<fn>_vjp
/// and @<fn>_value_and_grad. Emits diagnostics and fails on what it cannot
/// differentiate.
FailureOr<ForwardBackward> differentiateFunction(func::FuncOp fn, bool compose);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_AUTODIFF_DIFFERENTIATE_H
