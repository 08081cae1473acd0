//===- VjpRules.h - per-op reverse-mode rules -------------------*- C++ -*-===//
//
// Each differentiable jx op has a rule in two halves, JAX style:
//
//  - linearize (forward): emitted right after the primal op in @f_fwd, it
//    computes the non-linear values the linear map needs (cos(x) for sin)
//    and returns them; these, and the primal values it names (W and x for a
//    dot), are the op's residual candidates.
//  - transpose (backward): emitted in @f_bwd, it maps the op's result
//    cotangents to its operand cotangents using only those residuals.
//
// `active[i]` says whether operand i carries a tangent; a rule asks only for
// the residuals the active operands' cotangents need. Null cotangents are zero.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_AUTODIFF_VJPRULES_H
#define COTANGENT_PASSES_AUTODIFF_VJPRULES_H

#include "passes/autodiff/JxBuilder.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>

namespace mlir::cotangent {

struct VjpRule {
  using Linearize =
      std::function<SmallVector<Value>(JxBuilder &b, Operation *op, ArrayRef<bool> active)>;
  using Transpose = std::function<SmallVector<Value>(
      JxBuilder &b, Operation *op, ArrayRef<bool> active, ValueRange residuals,
      ArrayRef<Value> cts)>;
  Linearize linearize;
  Transpose transpose;
  /// The op's derivative is identically zero (sign, floor, comparisons,
  /// stop_gradient, ...): its results carry no tangent, so nothing that
  /// uses them is differentiated through them, nor saves anything for them.
  bool zeroDerivative = false;
};

using VjpRuleTable = llvm::DenseMap<TypeID, VjpRule>;

/// The rule for `op`, or null when `op` has none (not differentiable).
const VjpRule *lookupVjpRule(Operation *op);

void addElementwiseVjpRules(VjpRuleTable &table);
void addStructuralVjpRules(VjpRuleTable &table);
void addCollectiveVjpRules(VjpRuleTable &table);
void addCompositeVjpRules(VjpRuleTable &table);

/// The rule of a linear op of one result: it saves nothing, and `map` takes
/// the result's cotangent to the operands'.
template <typename OpT>
void linear(VjpRuleTable &t, std::function<SmallVector<Value>(JxBuilder &, OpT, Value)> map) {
  t[TypeID::get<OpT>()] = VjpRule{
      [](JxBuilder &, Operation *, ArrayRef<bool>) { return SmallVector<Value>(); },
      [map](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange, ArrayRef<Value> cts) {
        return cts[0] ? map(b, cast<OpT>(op), cts[0]) : SmallVector<Value>(op->getNumOperands());
      }};
}

/// A rule for ops whose cotangents are zero (sign, floor, comparisons, ...).
VjpRule zeroVjpRule();

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_AUTODIFF_VJPRULES_H
