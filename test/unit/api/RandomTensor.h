//===- RandomTensor.h - seeded random f64 tensors for API tests -*- C++ -*-===//

#ifndef COTANGENT_TEST_UNIT_API_RANDOMTENSOR_H
#define COTANGENT_TEST_UNIT_API_RANDOMTENSOR_H

#include "runtime/interpreter/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"

#include <random>
#include <vector>

/// An f64 tensor of `shape` with entries uniform in [-bound, bound), from `seed`.
inline cotangent::interp::Tensor randomTensor(mlir::MLIRContext &ctx, std::vector<int64_t> shape,
                                              unsigned seed, double bound = 0.9) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-bound, bound);
  auto type = mlir::RankedTensorType::get(shape, mlir::Float64Type::get(&ctx));
  std::vector<double> values(type.getNumElements());
  for (double &v : values)
    v = dist(rng);
  return cotangent::interp::Tensor::fromDoubles(type, values);
}

#endif // COTANGENT_TEST_UNIT_API_RANDOMTENSOR_H
