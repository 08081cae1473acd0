//===- TensorType.h - the runtime's one dtype and tensor type ---*- C++ -*-===//
//
// The element types a jx tensor may have and a dense tensor's type (dtype
// and shape), free of MLIR: the interpreter's element kinds
// (interp::ElementKind is this DType), a step's manifest and cotangent-step
// all read them from here.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CORE_TENSORTYPE_H
#define COTANGENT_RUNTIME_CORE_TENSORTYPE_H

#include <cstdint>
#include <string>
#include <vector>

namespace cotangent::core {

enum class DType { F32, F64, F16, BF16, I32, I64, I1 };

/// Bytes one element takes in a buffer (i1: one byte).
int64_t byteWidth(DType dtype);
/// "f32", "bf16", "i1", ...
const char *dtypeName(DType dtype);

struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t elements() const;
  int64_t bytes() const;
  /// "f32[256,1024]"
  std::string str() const;
};

} // namespace cotangent::core

#endif // COTANGENT_RUNTIME_CORE_TENSORTYPE_H
