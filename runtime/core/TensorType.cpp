//===- TensorType.cpp - the runtime's one dtype and tensor type -----------===//

#include "runtime/core/TensorType.h"

namespace cotangent::core {

int64_t byteWidth(DType dtype) {
  switch (dtype) {
  case DType::F64: case DType::I64: return 8;
  case DType::F32: case DType::I32: return 4;
  case DType::F16: case DType::BF16: return 2;
  case DType::I1: return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  static const char *names[] = {"f32", "f64", "f16", "bf16", "i32", "i64", "i1"};
  return names[static_cast<int>(dtype)];
}

int64_t TensorType::elements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorType::bytes() const { return elements() * byteWidth(dtype); }

std::string TensorType::str() const {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

} // namespace cotangent::core
