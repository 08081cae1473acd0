//===- DType.h - element types and JAX's promotion lattice ------*- C++ -*-===//
//
// The element types of traced tensors and the rules that make implicit NumPy
// promotion explicit: JAX's lattice bool < int32 < int64 < {bf16, f16} < f32
// < f64 (bf16 with f16 meets at f32), with weakly typed Python-like scalars
// adopting the dtype of the tensor they meet.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_DTYPE_H
#define COTANGENT_TRACER_DTYPE_H

#include "mlir/IR/Types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
}

namespace cotangent {

/// The element types jx supports.
enum class DType { Bool, I32, I64, BF16, F16, F32, F64 };

/// JAX's short name: "bool", "i32", "f32", ... (as printed in a jaxpr).
std::string dtypeName(DType t);
bool isFloating(DType t);
bool isInteger(DType t); ///< i32 or i64 (not bool)
/// Bits per element (bool: 1).
int bitWidth(DType t);

mlir::Type toMlirType(mlir::MLIRContext *ctx, DType t);
/// The DType of a jx element type (the set is closed, see JxDialect.td).
DType fromMlirType(mlir::Type t);

/// A possibly weakly typed dtype: a weak dtype comes from a C++ scalar.
struct PromotionInput {
  DType dtype;
  bool weak = false;
};

/// The common dtype of `inputs` under JAX's rules: strong types meet in the
/// lattice; weak ints adopt any strong type (bool becomes i32); weak floats
/// adopt a strong float and turn ints/bools into f32.
DType promoteTypes(const std::vector<PromotionInput> &inputs);

/// "f32[5,4]" (jaxpr style).
std::string shapeString(DType t, const std::vector<int64_t> &shape);

} // namespace cotangent

#endif // COTANGENT_TRACER_DTYPE_H
