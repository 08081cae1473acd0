//===- VjpControlFlow.h - VJP of jx.scan and jx.cond ------------*- C++ -*-===//
//
// Region ops are differentiated by splitting each region as a function (the
// same linearize-then-transpose, remat policies applied inside) and wiring
// the halves into new region ops:
//
//  - scan: the forward scan also yields, per iteration, the body's residuals,
//    stacked along a new leading axis. Residuals that do not vary across
//    iterations are not stacked: the scan's consts are used as they are,
//    values computed from consts only are hoisted out of the loop and saved
//    once, and a slice of an xs operand is read back from that operand. The
//    backward is a scan in the opposite direction whose carry holds the
//    carry's cotangent and the consts' accumulated cotangents, and whose xs
//    are the stacked residuals and the ys' cotangents.
//  - scan with `snapshots`: Griewank's binomial schedule (VjpScanRevolve.cpp).
//  - cond: the branches share residual slots by type, as JAX joins them:
//    the k-th residual of type T of any branch goes to T's k-th slot, so a
//    cond keeps, per type, as many slots as its greediest branch needs, and
//    a branch fills the slots it does not use with zeros. The backward cond
//    picks the same branch by the saved index.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_AUTODIFF_VJPCONTROLFLOW_H
#define COTANGENT_PASSES_AUTODIFF_VJPCONTROLFLOW_H

#include "passes/autodiff/Differentiate.h"
#include "dialects/jx/JxOps.h"

#include "mlir/IR/Builders.h"

#include <functional>
#include <memory>

namespace mlir::cotangent {

/// Splits a function made from a region (and applies remat policies inside it).
using SplitRegionFn = std::function<FailureOr<ForwardBackward>(func::FuncOp)>;

class ControlFlowVjp {
public:
  virtual ~ControlFlowVjp();
  /// Emits at `b` the forward: returns the values that replace the primal
  /// op's results and appends to `residuals` the values to save.
  virtual FailureOr<SmallVector<Value>> linearize(OpBuilder &b,
                                                  SmallVectorImpl<Value> &residuals) = 0;
  /// Emits at `b` the backward: operand cotangents (null: zero) from the
  /// saved `residuals` and the result cotangents `cts` (null: zero).
  virtual SmallVector<Value> transpose(OpBuilder &b, ValueRange residuals,
                                       ArrayRef<Value> cts) = 0;
  /// The memory kind of residual `index` (of those `linearize` appended): ""
  /// unless a policy inside the region offloads it.
  virtual StringRef residualMemoryKind(unsigned index) const { return ""; }
};

/// The VJP of `op` (a jx.scan or jx.cond), or null for other ops.
std::unique_ptr<ControlFlowVjp> makeControlFlowVjp(Operation *op, SplitRegionFn split);

/// The VJP of a scan with `snapshots` (VjpScanRevolve.cpp).
std::unique_ptr<ControlFlowVjp> makeRevolveScanVjp(jx::ScanOp scan, SplitRegionFn split);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_AUTODIFF_VJPCONTROLFLOW_H
