//===- Remat.h - applying remat policies to a forward/backward pair -*- C++ -*-===//

#ifndef COTANGENT_PASSES_REMAT_REMAT_H
#define COTANGENT_PASSES_REMAT_REMAT_H

#include "passes/remat/MemoryBudget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::cotangent {

/// What --jx-remat does to one @f_fwd/@f_bwd pair (see Passes.td): decides
/// each residual by the policies of its remat regions and rebuilds the
/// recomputed ones in `bwd`. The composing @f_vjp is not touched.
/// `choices`, when given, decide the regions whose policies need a solver
/// (minimum cut, memory budget) instead of solving them; a budget solve
/// takes at most `budgetSeconds` and, with `budgetProof`, proves optimality
/// (MemoryBudgetProblem::solve) of the peak `budgetTarget` names. `outside`,
/// when given, is the policy of the residuals no remat region holds
/// (JxRematPass's default-policy); a pair with a memory_budget region
/// ignores it, since its solve plans the pair.
LogicalResult applyRematPolicies(func::FuncOp fwd, func::FuncOp bwd,
                                 const RegionChoices *choices = nullptr,
                                 double budgetSeconds = 10, bool budgetProof = false,
                                 jx::PolicyAttr outside = {},
                                 PeakTarget budgetTarget = PeakTarget::Split);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REMAT_REMAT_H
