//===- DType.cpp - element types and JAX's promotion lattice --------------===//

#include "tracer/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <optional>

namespace cotangent {

std::string dtypeName(DType t) {
  switch (t) {
  case DType::Bool: return "bool";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::BF16: return "bf16";
  case DType::F16: return "f16";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  }
  return "?";
}

bool isFloating(DType t) { return t >= DType::BF16; }
bool isInteger(DType t) { return t == DType::I32 || t == DType::I64; }

int bitWidth(DType t) {
  switch (t) {
  case DType::Bool: return 1;
  case DType::BF16:
  case DType::F16: return 16;
  case DType::I32:
  case DType::F32: return 32;
  case DType::I64:
  case DType::F64: return 64;
  }
  return 0;
}

mlir::Type toMlirType(mlir::MLIRContext *ctx, DType t) {
  switch (t) {
  case DType::Bool: return mlir::IntegerType::get(ctx, 1);
  case DType::I32: return mlir::IntegerType::get(ctx, 32);
  case DType::I64: return mlir::IntegerType::get(ctx, 64);
  case DType::BF16: return mlir::BFloat16Type::get(ctx);
  case DType::F16: return mlir::Float16Type::get(ctx);
  case DType::F32: return mlir::Float32Type::get(ctx);
  case DType::F64: return mlir::Float64Type::get(ctx);
  }
  return {};
}

DType fromMlirType(mlir::Type t) {
  if (t.isInteger(1)) return DType::Bool;
  if (t.isInteger(32)) return DType::I32;
  if (t.isInteger(64)) return DType::I64;
  if (t.isBF16()) return DType::BF16;
  if (t.isF16()) return DType::F16;
  if (t.isF64()) return DType::F64;
  return DType::F32;
}

namespace {
/// The join of two strong dtypes in the lattice.
DType join(DType a, DType b) {
  if ((a == DType::BF16 && b == DType::F16) || (a == DType::F16 && b == DType::BF16))
    return DType::F32;
  return std::max(a, b); // the enum is declared in lattice order
}
} // namespace

DType promoteTypes(const std::vector<PromotionInput> &inputs) {
  std::optional<DType> strong;
  bool weakInt = false, weakFloat = false;
  for (const PromotionInput &in : inputs) {
    if (!in.weak)
      strong = strong ? join(*strong, in.dtype) : in.dtype;
    else if (isFloating(in.dtype))
      weakFloat = true;
    else
      weakInt = true;
  }
  if (!strong) // only scalars: JAX's defaults (x64 disabled)
    return weakFloat ? DType::F32 : DType::I32;
  DType result = *strong;
  if (weakFloat && !isFloating(result))
    result = DType::F32;
  if (weakInt && result == DType::Bool)
    result = DType::I32;
  return result;
}

std::string shapeString(DType t, const std::vector<int64_t> &shape) {
  std::string s = dtypeName(t) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

} // namespace cotangent
