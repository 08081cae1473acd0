//===- RunResults.h - what a call of compiled code reports ------*- C++ -*-===//
//
// The results of one call (CompiledModule::call) and of one forward /
// backward split (CompiledModule::runSplit), with the bytes the runtime's
// allocation hooks counted. Bytes are those of the buffers compiled code
// allocated: the caller's arguments (and the runtime's copies of them) are
// not counted.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_RUNRESULTS_H
#define COTANGENT_RUNTIME_HOST_RUNRESULTS_H

#include "runtime/core/SplitRun.h"
#include "runtime/interpreter/Tensor.h"

#include <algorithm>
#include <vector>

#include "llvm/Support/Format.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace cotangent::host {

using interp::Tensor;

/// Bytes allocated by compiled code during one call.
struct MemoryStats {
  /// Live when the call returned: the results' buffers.
  int64_t liveBytes = 0;
  /// The maximum of the live bytes during the call.
  int64_t peakBytes = 0;
};

struct CallResult {
  std::vector<Tensor> results;
  MemoryStats stats;
  double seconds = 0; ///< wall time of the compiled call alone
};

/// @f_fwd, its residuals held, then @f_bwd: the split run's figures
/// (runtime/core/SplitRun.h) and its results as host tensors.
struct SplitResult : core::SplitFigures {
  std::vector<Tensor> outputs;   ///< @f_fwd's primal outputs
  std::vector<Tensor> gradients; ///< @f_bwd's results (argument cotangents)
};

/// Times of the same run repeated after warm-up runs (whose times are
/// dropped): what `--repeat N --warmup K` prints.
struct Timing {
  std::vector<double> seconds; ///< each timed run's, in order
  double min() const { return *std::min_element(seconds.begin(), seconds.end()); }
  double median() const {
    std::vector<double> sorted = seconds;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
};

/// "time: 1.234 ms", or with several runs
/// "time: 1.234 ms min, 1.300 ms median over 20 runs (3 warm-up)".
inline void printTiming(llvm::raw_ostream &os, const Timing &timing, unsigned warmup) {
  os << "time: " << llvm::format("%.3f", timing.min() * 1e3) << " ms";
  if (timing.seconds.size() > 1)
    os << " min, " << llvm::format("%.3f", timing.median() * 1e3) << " ms median over "
       << timing.seconds.size() << " runs (" << warmup << " warm-up)";
  os << "\n";
}

/// Runs `run` (returning FailureOr<CallResult or SplitResult>) `warmup`
/// times, then `repeat` (>= 1) times; the last result, and the timing.
template <typename Run>
auto runRepeated(unsigned warmup, unsigned repeat, Run run)
    -> llvm::FailureOr<std::pair<typename decltype(run())::value_type, Timing>> {
  for (unsigned i = 0; i < warmup; ++i)
    if (llvm::failed(run()))
      return llvm::failure();
  Timing timing;
  for (unsigned i = 1;; ++i) {
    auto result = run();
    if (llvm::failed(result))
      return llvm::failure();
    timing.seconds.push_back(result->seconds);
    if (i >= repeat)
      return std::pair(std::move(*result), std::move(timing));
  }
}

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_RUNRESULTS_H
