//===- PartitionerComparison.h - the budget against PyTorch's partitioner -*- C++ -*-===//
//
// cotangent-bench --run partitioner: the same two graphs (a GPT-2 block,
// d 768, 12 heads, 4 x 256 tokens; the 8 x 1024 tanh MLP at batch 256)
// under PyTorch's min-cut partitioner, swept over its
// activation_memory_budget (bench/torch_partitioner.py: backend
// aot_eager_decomp_partition, the peak from the profiler's allocation
// events, saved tensors by unique storage, FLOPs by FlopCounterMode), and
// under Cotangent's memory_budget of the fused value-and-grad step (the
// step frontier, PeakTarget::Step): at each PyTorch point, the schedule
// whose planned step peak (= the runtime's) fits PyTorch's with the fewest
// recomputed matmul FLOPs, the products and attention counted as
// FlopCounterMode counts them. A point holds when it recomputes no more.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_PARTITIONERCOMPARISON_H
#define COTANGENT_BENCH_PARTITIONERCOMPARISON_H

#include "mlir/IR/MLIRContext.h"

#include <string>
#include <vector>

namespace cotangent::bench {

struct PartitionerOptions {
  std::string torchPython; ///< empty: scripts/torch-venv.sh's
  /// activation_memory_budget values: 0 recomputes the most.
  std::vector<double> budgets = {0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
};

/// Prints both sides per point and how many hold; the figures go to
/// build/cotangent-bench-partitioner.json. Returns non-zero on failure
/// (PyTorch missing is a skip, said so, not a failure).
int benchPartitioner(mlir::MLIRContext &ctx, const PartitionerOptions &options);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_PARTITIONERCOMPARISON_H
