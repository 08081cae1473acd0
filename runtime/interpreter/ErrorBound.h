//===- ErrorBound.h - How far another evaluation may be from the reference -===//
//
// The interpreter computes one rounding of each op; compiled code rounds the
// same ops differently (BLAS and reassociated sums add in their own order,
// f32 math is polynomial). A test that compares the two needs a tolerance,
// and a tolerance tuned on one machine breaks on the next CPU's kernels.
// runWithErrorBounds derives it from the computation instead: it runs a
// function like `run` and carries, with every value, a per-element bound D
// on |other - reference| for any evaluation of the same IR whose every op
// is within its stated rounding of the exact result (roundingUnits), fed
// the same arguments. D propagates op by op (first order is not assumed:
// elementwise ops take the extremes of their operands' intervals, dots and
// sums the standard gamma_n bound over any summation order), so it holds
// for every BLAS kernel, thread count and vector width. docs/reliability.md
// derives each rule.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_ERRORBOUND_H
#define COTANGENT_RUNTIME_INTERPRETER_ERRORBOUND_H

#include "runtime/interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>
#include <vector>

namespace cotangent::interp {

/// A reference value and how far a conforming evaluation may be from it.
struct BoundedTensor {
  /// The interpreter's value.
  Tensor value;
  /// f64 of value's shape: the largest |other - value| per element; +inf
  /// where nothing is bounded (a branch, trip count or index the rounding
  /// may change), 0 where the value is exact.
  Tensor bound;
};

/// gamma_n = n u / (1 - n u): a sum or dot product of n terms computed in
/// any order and blocking, with unit roundoff u, is within gamma_n times the
/// sum of the terms' magnitudes of the exact one (Higham, Accuracy and
/// Stability of Numerical Algorithms, 2nd ed., 3.1); +inf when n u >= 1.
double gamma(int64_t n, double u);

/// Roundings one evaluation of `op` may make, in units of u |y| (u the
/// unit roundoff of y's element type): 1 for correctly rounded arithmetic,
/// 2 ulp + 1 for functions accurate to `ulp` units in the last place (the
/// CPU's polynomial f32 math, docs/lowering.md; libm's), 0 for exact ops.
double roundingUnits(mlir::Operation *op);

/// Runs `fn` on `args` (as `run` does: same diagnostics on failure) and
/// returns each result with its bound.
llvm::FailureOr<std::vector<BoundedTensor>> runWithErrorBounds(mlir::func::FuncOp fn,
                                                               llvm::ArrayRef<Tensor> args);

/// Why `got` is not within `want`'s bound of its value (the first element
/// outside it: index, both values, the bound), or nullopt when it is. NaN
/// must meet NaN and an infinity the same infinity, unless the bound there
/// is infinite; integers must be equal where the bound is 0.
std::optional<std::string> outsideBound(const Tensor &got, const BoundedTensor &want);

} // namespace cotangent::interp

#endif // COTANGENT_RUNTIME_INTERPRETER_ERRORBOUND_H
