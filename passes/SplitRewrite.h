//===- SplitRewrite.h - rewriting the halves of a split ---------*- C++ -*-===//
//
// What --jx-vjp and --jx-remat both do to a forward/backward pair while they
// build or change its residual list: order the residuals, make the forward
// return them, and drop forward code no residual needs any more.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_SPLITREWRITE_H
#define COTANGENT_PASSES_SPLITREWRITE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::cotangent {

/// Sorts forward values into residual order: arguments first (by position),
/// then intermediates in forward order. All values live in one block.
void sortResiduals(SmallVectorImpl<Value> &values);

/// Drops from `ordered` each residual whose run-time buffer an earlier one
/// of the same memory kind already is, and hands (kept, dropped) to `merge`,
/// which makes the backward use the kept one. A jx.optimization_barrier
/// works in place, so its result i is its operand i's buffer: saving both
/// (or two results of one operand) would report bytes the runtime never holds.
void mergeSharedStorage(SmallVectorImpl<Value> &ordered,
                        function_ref<StringRef(Value)> memoryKind,
                        function_ref<void(Value kept, Value dropped)> merge);

/// True for values that depend on no argument (constants and what is
/// computed from them alone): the backward rebuilds them instead of saving them.
bool isArgumentFree(Value v);

/// Makes `fwd` return its first `numPrimal` results followed by `residuals`,
/// keeping the primal results' attributes.
void setForwardReturn(func::FuncOp fwd, unsigned numPrimal, ArrayRef<Value> residuals);

/// Erases side-effect-free ops of `block` whose results are unused, last first.
void eraseDeadOps(Block &block);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_SPLITREWRITE_H
