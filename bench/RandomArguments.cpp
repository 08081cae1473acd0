//===- RandomArguments.cpp - seeded arguments for the bench's models ------===//

#include "bench/RandomArguments.h"

#include <cmath>
#include <random>

using namespace cotangent;

std::vector<cpu::Tensor> bench::randomArguments(mlir::func::FuncOp fn, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<cpu::Tensor> args;
  for (mlir::Type t : fn.getArgumentTypes()) {
    auto type = mlir::cast<mlir::RankedTensorType>(t);
    bool square = type.getRank() == 2 && type.getDimSize(0) == type.getDimSize(1);
    double scale = square ? 1.0 / std::sqrt(type.getDimSize(0)) : 1.0;
    std::vector<double> values(type.getNumElements());
    for (double &v : values)
      v = std::uniform_real_distribution<double>(-scale, scale)(rng);
    args.push_back(cpu::Tensor::fromDoubles(type, values));
  }
  return args;
}
