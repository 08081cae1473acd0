//===- LoweringUtils.h - shared pieces of the jx-to-linalg patterns -*- C++ -*-===//
//
// The pattern-population entry points of jx-to-linalg (one file per family
// of ops) and the small builders they share: empty tensors, scalar
// constants of any jx element type, elementwise linalg.generic ops, and
// reshapes through tensor.collapse_shape / tensor.expand_shape.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CONVERSION_LLVM_LOWERINGUTILS_H
#define COTANGENT_CONVERSION_LLVM_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::cotangent::lowering {

/// The buffer `v` views: through metadata extraction and view-like ops back
/// to an allocation, an argument, or a value of unknown origin.
Value originOf(Value v);

/// Where the runtime is done with a buffer that `user` hands to a compiled
/// collective (a memref.extract_aligned_pointer_as_index feeding
/// @cotangent_collective_start): the wait of that start's ticket, which the
/// buffer must outlive; null for any other user.
Operation *collectiveWaitOf(Operation *user);

void populateElementwisePatterns(RewritePatternSet &patterns);
/// `lowFloatMatmulOperands`: jx-to-linalg's option of that name.
void populateContractionPatterns(RewritePatternSet &patterns, bool lowFloatMatmulOperands);
void populateShapePatterns(RewritePatternSet &patterns);
void populateGatherPatterns(RewritePatternSet &patterns);
void populateThreefryPatterns(RewritePatternSet &patterns);
void populateControlFlowPatterns(RewritePatternSet &patterns);

/// Builds the scalar result of an elementwise op from its scalar operands.
using ScalarBuilder = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// True for f16 and bf16, which jx computes in f32 and rounds per result.
bool isLowFloat(Type type);

/// `tensor.empty` of `type`.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);

/// A scalar constant of `type` (any int or float type; i1 is `value != 0`).
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);
Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value);

/// The tensor of `type` filled with the scalar `value`.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, Value value);

/// A `linalg.generic` of result type `resultType` over `inputs`, each of the
/// result's shape or 0-d (broadcast), whose body is `body`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBuilder body);

/// `value` (a tensor) reshaped to `type` (same element count), through
/// collapse_shape / expand_shape; no copy after bufferization.
Value reshapeTensor(OpBuilder &b, Location loc, Value value, RankedTensorType type);

/// Converts the scalar `v` to `to` with jx's convert_element_type rules.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to);

/// The index value of a 0-d integer tensor.
Value extractIndex(OpBuilder &b, Location loc, Value scalarTensor);

} // namespace mlir::cotangent::lowering

#endif // COTANGENT_CONVERSION_LLVM_LOWERINGUTILS_H
