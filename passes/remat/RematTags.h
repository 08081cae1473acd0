//===- RematTags.h - attributes linking the VJP and remat passes -*- C++ -*-===//
//
// --jx-vjp flattens jx.remat regions into @f_fwd; each op that came from a
// region carries the regions' policies (innermost first), their ids, and the
// innermost region's prevent_cse, so --jx-remat can decide afterwards which
// residuals to recompute. The function attributes record the split's shape.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REMAT_REMATTAGS_H
#define COTANGENT_PASSES_REMAT_REMATTAGS_H

#include "dialects/jx/JxOps.h"

namespace mlir::cotangent {

/// On @f_fwd: how many of its results are the primal results (the rest are residuals).
inline constexpr llvm::StringLiteral kNumPrimalResultsAttr = "jx.num_primal_results";
/// On @f_bwd: how many of its leading arguments are residuals.
inline constexpr llvm::StringLiteral kNumResidualsAttr = "jx.num_residuals";
/// On ops flattened out of jx.remat regions.
inline constexpr llvm::StringLiteral kRematPoliciesAttr = "jx.remat_policies";
inline constexpr llvm::StringLiteral kRematRegionsAttr = "jx.remat_regions";
inline constexpr llvm::StringLiteral kRematPreventCseAttr = "jx.remat_prevent_cse";
/// On @f_bwd residual arguments: the remat-region stacks (DenseI64ArrayAttr,
/// innermost first) of the ops whose VJP rules asked for the residual.
inline constexpr llvm::StringLiteral kRequestedByAttr = "jx.requested_by";
/// On @f_fwd results / @f_bwd arguments: the memory kind an offloaded residual lives in.
inline constexpr llvm::StringLiteral kMemoryKindAttr = "jx.memory_kind";

/// Records that `op` lies in remat region `id` (called innermost region first).
inline void appendRematTag(Operation *op, jx::PolicyAttr policy, int64_t id, bool preventCse) {
  Builder b(op->getContext());
  SmallVector<Attribute> policies;
  SmallVector<int64_t> ids;
  if (auto old = op->getAttrOfType<ArrayAttr>(kRematPoliciesAttr))
    policies.append(old.begin(), old.end());
  if (auto old = op->getAttrOfType<DenseI64ArrayAttr>(kRematRegionsAttr))
    ids.append(old.asArrayRef().begin(), old.asArrayRef().end());
  if (policies.empty())
    op->setAttr(kRematPreventCseAttr, b.getBoolAttr(preventCse));
  policies.push_back(policy);
  ids.push_back(id);
  op->setAttr(kRematPoliciesAttr, b.getArrayAttr(policies));
  op->setAttr(kRematRegionsAttr, b.getDenseI64ArrayAttr(ids));
}

/// Gives `to` the remat tags of `from` (ops a rule emits for a tagged op).
inline void copyRematTags(Operation *from, Operation *to) {
  for (StringRef name : {kRematPoliciesAttr, kRematRegionsAttr, kRematPreventCseAttr})
    if (Attribute attr = from->getAttr(name))
      to->setAttr(name, attr);
}

/// Drops the remat tags of `op` (a copy made outside the forward).
inline void stripRematTags(Operation *op) {
  for (StringRef name : {kRematPoliciesAttr, kRematRegionsAttr, kRematPreventCseAttr})
    op->removeAttr(name);
}

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REMAT_REMATTAGS_H
