//===- JxOpFacts.h - what the passes need to know of an op -------*- C++ -*-===//
//
// The facts of dialects/jx/JxOpFacts.td, asked of any op (false, or 0, for
// ops of other dialects).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXOPFACTS_H
#define COTANGENT_DIALECTS_JX_JXOPFACTS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::jx {

namespace OpTrait {
template <typename ConcreteType>
class ViewOfOperand : public mlir::OpTrait::TraitBase<ConcreteType, ViewOfOperand> {};
template <typename ConcreteType>
class MayBeViewOfOperand : public mlir::OpTrait::TraitBase<ConcreteType, MayBeViewOfOperand> {};
template <typename ConcreteType>
class MovesData : public mlir::OpTrait::TraitBase<ConcreteType, MovesData> {};
template <typename ConcreteType>
class CheapToRecompute : public mlir::OpTrait::TraitBase<ConcreteType, CheapToRecompute> {};
template <typename ConcreteType>
class RebuiltFromOperand : public mlir::OpTrait::TraitBase<ConcreteType, RebuiltFromOperand> {};
} // namespace OpTrait

enum class CostKind { Flops, CommunicatedBytes };

namespace detail {
/// 1 per result element; 0 for constants and data movement.
int64_t defaultFlops(Operation *op);
/// The cost of the ops in `op`'s regions: a loop's body (per trip: the
/// caller multiplies), the dearer branch of a cond, 0 without regions.
int64_t regionCost(Operation *op, CostKind kind);
} // namespace detail

/// Lowered, `op`'s results are views of its operands' buffers.
bool isView(Operation *op);
/// Lowered, `op`'s result may be a view of its operand or a copy.
bool mayBeView(Operation *op);
/// `op` moves data without arithmetic.
bool movesData(Operation *op);
/// The backward may run `op` again from its operands at little cost.
bool isCheapToRecompute(Operation *op);
/// `op`'s operand holds the same values in no more bytes.
bool isRebuiltFromOperand(Operation *op);
/// The buffer a view result `v` shares: the operand it is a view of.
Value viewSourceOf(OpResult v);
/// CostOpInterface's figures for any op (0 for other dialects' ops).
int64_t estimateFlops(Operation *op);
int64_t estimateCommunicatedBytes(Operation *op);

} // namespace mlir::jx

#include "dialects/jx/JxOpFacts.h.inc"

#endif // COTANGENT_DIALECTS_JX_JXOPFACTS_H
