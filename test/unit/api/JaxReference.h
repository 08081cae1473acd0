//===- JaxReference.h - reading what JAX and Flax computed ------*- C++ -*-===//
//
// The committed outputs of test/jax/gen_*_reference.py, for the parity
// tests: the JSON document, float32 arrays stored as bit patterns, and how
// far apart two floats are.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_API_JAXREFERENCE_H
#define COTANGENT_TEST_UNIT_API_JAXREFERENCE_H

#include "runtime/interpreter/Tensor.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/IR/BuiltinTypes.h"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace jaxref {

/// The reference's "cases", parsed once per file.
inline const llvm::json::Array &cases(const std::string &path) {
  static std::map<std::string, llvm::json::Value> docs;
  auto it = docs.find(path);
  if (it == docs.end()) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    REQUIRE(buffer);
    auto parsed = llvm::json::parse((*buffer)->getBuffer());
    REQUIRE(static_cast<bool>(parsed));
    it = docs.emplace(path, std::move(*parsed)).first;
  }
  return *it->second.getAsObject()->getArray("cases");
}

inline std::vector<int64_t> integers(const llvm::json::Object &o, llvm::StringRef key) {
  std::vector<int64_t> out;
  for (const llvm::json::Value &v : *o.getArray(key))
    out.push_back(*v.getAsInteger());
  return out;
}

inline int64_t integer(const llvm::json::Object &o, llvm::StringRef key) {
  return *o.getInteger(key);
}

/// An {"shape", "bits"} array as an f32 tensor.
inline cotangent::interp::Tensor f32Array(mlir::MLIRContext &ctx, const llvm::json::Object &a) {
  std::vector<int64_t> shape = integers(a, "shape"), bits = integers(a, "bits");
  std::vector<double> values;
  for (int64_t b : bits)
    values.push_back(std::bit_cast<float>(static_cast<uint32_t>(b)));
  return cotangent::interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx)), values);
}

/// How many float32 values lie between a and b (0: the same bits).
inline int64_t ulpDistance(float a, float b) {
  auto ordered = [](float f) {
    auto i = std::bit_cast<int32_t>(f);
    return i < 0 ? int64_t{INT32_MIN} - i : int64_t{i};
  };
  return std::llabs(ordered(a) - ordered(b));
}

} // namespace jaxref

#endif // COTANGENT_TEST_UNIT_API_JAXREFERENCE_H
