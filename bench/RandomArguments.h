//===- RandomArguments.h - seeded arguments for the bench's models -*- C++ -*-===//

#ifndef COTANGENT_BENCH_RANDOMARGUMENTS_H
#define COTANGENT_BENCH_RANDOMARGUMENTS_H

#include "runtime/cpu/CpuRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace cotangent::bench {

/// Uniform values for each of `fn`'s arguments; square matrices (weights) in
/// +-1/sqrt(n), so that tanh stays away from saturation through the layers,
/// everything else in +-1.
std::vector<cpu::Tensor> randomArguments(mlir::func::FuncOp fn, unsigned seed);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_RANDOMARGUMENTS_H
