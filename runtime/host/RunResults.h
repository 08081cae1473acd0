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

#include "runtime/interpreter/Tensor.h"

#include <vector>

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

/// @f_fwd, its residuals held, then @f_bwd.
struct SplitResult {
  std::vector<Tensor> outputs;   ///< @f_fwd's primal outputs
  std::vector<Tensor> gradients; ///< @f_bwd's results (argument cotangents)
  int64_t numResiduals = 0;
  /// Bytes of the residual buffers held in the device's memory between
  /// @f_fwd and @f_bwd: what the allocation hooks measured, plus the
  /// residuals that are arguments, held by reference in the caller's buffers.
  int64_t residualBytes = 0;
  /// Of residualBytes: the arguments held by reference (not copied).
  int64_t argumentResidualBytes = 0;
  /// Bytes of the residuals that waited in other memory (pinned host)
  /// instead; 0 where the runtime does not offload.
  int64_t offloadedBytes = 0;
  /// The peak of live bytes over both calls (the residuals included).
  int64_t peakBytes = 0;
  double seconds = 0; ///< both calls
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_RUNRESULTS_H
