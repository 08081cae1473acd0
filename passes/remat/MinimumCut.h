//===- MinimumCut.h - the least residual bytes of a remat region -*- C++ -*-===//
//
// The min_residual_bytes policies choose what a remat region saves by a
// minimum cut of its dataflow graph, as PyTorch's partitioner and
// Enzyme-MLIR do: each value is an edge weighted by its bytes, the region's
// inputs and the values the backward may not recompute hang from the source,
// the values the backward reads lead to the sink, and a cut is a set of
// values from which the backward can rebuild everything it reads using only
// recomputable ops. The max flow gives the cheapest such set.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REMAT_MINIMUMCUT_H
#define COTANGENT_PASSES_REMAT_MINIMUMCUT_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::cotangent {

/// One region's cut problem, over the ops of a forward function's block.
struct ResidualCutProblem {
  Block *body;
  /// The ops of the region (their results are the candidates).
  llvm::function_ref<bool(Operation *)> inRegion;
  /// Ops of the region the backward may run again.
  llvm::function_ref<bool(Operation *)> recomputable;
  /// Values the backward reads for ops of the region.
  ArrayRef<Value> needed;
  /// Values saved whatever this region decides (arguments the backward
  /// reads anyway): cutting through them costs nothing.
  llvm::function_ref<bool(Value)> savedAnyway;
};

/// The values of least total bytes to save so that every needed value is
/// saved or recomputable from saved values and the region's inputs.
llvm::DenseSet<Value> minimumResidualCut(const ResidualCutProblem &problem);

/// The ops min_residual_bytes lets the backward recompute: those the jx op
/// facts call cheap to run again (jx::isCheapToRecompute: elementwise ops,
/// data movement, constants); with `dots`, `dot_general` too.
bool isCheapToRecompute(Operation *op, bool dots);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REMAT_MINIMUMCUT_H
