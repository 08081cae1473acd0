//===- PolicyFigures.h - time and memory of a grad step per policy -*- C++ -*-===//
//
// One row of the policy trade-off that cotangent-bench and cotangent-demo
// print and plot: a compiled forward/backward split run several times, the
// median time, and the residual and peak bytes the CPU runtime counted.
// The rows are written as JSON for tools/plot-policies.py:
//
//   {"title": "...", "rows": [{"policy": "no checkpoint", "time_ms": 12.5,
//     "time_ms_min": 12.1, "time_ms_max": 13.0, "runs": 3,
//     "peak_bytes": 1048576, "residual_bytes": 524288, "residuals": 9}, ...]}
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_POLICYFIGURES_H
#define COTANGENT_BENCH_POLICYFIGURES_H

#include "runtime/cpu/CpuRuntime.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace cotangent::bench {

/// The median (timings are skewed by the odd slow run, so the median is
/// steadier than the mean and less flattering than the best); 0 if empty.
double median(std::vector<double> values);

struct PolicyFigures {
  std::string policy;
  std::vector<double> seconds; ///< one per timed run
  int64_t residualBytes = 0;
  int64_t peakBytes = 0;
  int64_t residuals = 0;

  double medianSeconds() const { return median(seconds); }
};

/// Runs `<base>_fwd` then `<base>_bwd` of `module` `repeats` times (at least
/// once); the bytes are the last run's (they do not vary). `last` receives
/// the last run's outputs and gradients.
llvm::FailureOr<PolicyFigures> timeSplit(std::string policy, cpu::CpuModule &module,
                                         llvm::StringRef base, llvm::ArrayRef<cpu::Tensor> args,
                                         llvm::ArrayRef<cpu::Tensor> cotangents, unsigned repeats,
                                         cpu::SplitResult *last = nullptr);

/// Writes `rows` to `path` in the JSON shape of the file comment.
llvm::Error writePolicyData(llvm::StringRef path, llvm::StringRef title,
                            llvm::ArrayRef<PolicyFigures> rows);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_POLICYFIGURES_H
