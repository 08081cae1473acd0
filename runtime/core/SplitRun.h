//===- SplitRun.h - the forward/backward split, run once for every target -*- C++ -*-===//
//
// The one split-run protocol of every runtime: host::CompiledModule::runSplit
// (jit, cotangent-run, the CPU and CUDA runtimes) and cotangent-step (a GPU
// step loaded without MLIR or LLVM) run a split through runSplit() below and
// differ only in the SplitTarget they give it. analysis/MemoryPlan predicts
// what this protocol measures; its comments name the same steps.
//
// One run: the forward on the arguments; its primal outputs read and their
// blocks freed (or kept to the run's end, for a caller that reads them
// later); each residual held where it is, or offloaded where the layout says
// (the residual's block freed unless something held shares it); what is
// live then over what was live before, plus the residuals that are
// arguments held by reference, is the residual bytes; offloaded residuals
// reloaded; the backward on the residuals and the cotangents; the peak over
// both calls. Blocks are freed once, on every path out.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CORE_SPLITRUN_H
#define COTANGENT_RUNTIME_CORE_SPLITRUN_H

#include "runtime/core/MemRefDescriptor.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace cotangent::core {

/// What a target gives the split run: its two entries, its counted memory,
/// and where offloaded residuals wait. A method that fails reports why
/// itself (a diagnostic, a message) and returns false.
class SplitTarget {
public:
  enum class Half { Forward, Backward };
  virtual ~SplitTarget();

  /// Runs `half` on `args`: `results` gets a descriptor per result (also
  /// when the call then fails, where it returned); the call's time is added
  /// to `seconds`.
  virtual bool invoke(Half half, std::vector<MemRefDescriptor> &args,
                      std::vector<MemRefDescriptor> &results, double &seconds) = 0;

  virtual int64_t liveBytes() const = 0;
  virtual int64_t peakBytes() const = 0;
  virtual void resetPeak() = 0;
  /// The bytes of a counted block; -1 for memory the count does not hold (a
  /// caller's buffer, pinned host memory).
  virtual int64_t blockBytes(void *block) const = 0;
  /// Frees a counted block.
  virtual void release(void *block) = 0;

  /// A copy of forward result `result` (a residual) where it waits outside
  /// the counted memory; the residual itself where the forward put it there.
  virtual bool offload(size_t result, const MemRefDescriptor &residual, MemRefDescriptor &copy);
  /// What the backward reads an offloaded copy through: a fresh counted
  /// block, or the copy itself where the backward reads it there.
  virtual bool reload(size_t result, const MemRefDescriptor &copy, MemRefDescriptor &reloaded);
  /// Ends an offloaded copy's life (after the backward).
  virtual void discard(const MemRefDescriptor &copy) {}
};

/// The forward's results as the run needs them.
struct SplitLayout {
  size_t numOutputs = 0;
  /// Per forward result: the bytes of its dense buffer.
  std::vector<int64_t> resultBytes;
  /// Per forward result: a residual that waits outside the counted memory.
  std::vector<bool> offloaded;
};

/// The figures of one run, as every runtime reports them.
struct SplitFigures {
  int64_t numResiduals = 0;
  /// Residual bytes held in the counted memory between the halves (those
  /// that are arguments included, held by reference in the caller's buffers).
  int64_t residualBytes = 0;
  /// Of residualBytes: the arguments held by reference (not copied).
  int64_t argumentResidualBytes = 0;
  /// Bytes of the residuals that waited outside instead (pinned host); 0
  /// where the runtime does not offload.
  int64_t offloadedBytes = 0;
  /// The peak of the counted bytes over both calls, over those live before.
  int64_t peakBytes = 0;
  /// Of peakBytes: the kept outputs' own blocks (0 where they were read
  /// after the forward), live to the run's end.
  int64_t keptOutputBytes = 0;
  double seconds = 0; ///< both calls
};

/// What one run leaves.
struct SplitRun : SplitFigures {
  /// The primal outputs, when they were kept to the run's end.
  std::vector<MemRefDescriptor> outputs;
  std::vector<MemRefDescriptor> gradients;
  /// Counted blocks the run leaves to the caller (those of the gradients and
  /// of kept outputs that are not the arguments'), each once.
  std::vector<void *> resultBlocks;
};

/// Reads the primal outputs right after the forward (then their blocks are
/// freed unless a held residual shares them); false when reading failed.
using OutputReader = std::function<bool(const std::vector<MemRefDescriptor> &outputs)>;

/// Runs the split: the forward on `args` (the arguments, in memory compiled
/// code reads, owned by the caller), the backward on the residuals and
/// `cotangents`. Without `readOutputs` the outputs are kept to the end and
/// returned. False when a target method failed (it said why); every block
/// the run allocated is freed then.
bool runSplit(SplitTarget &target, const SplitLayout &layout,
              const std::vector<MemRefDescriptor> &args,
              const std::vector<MemRefDescriptor> &cotangents, const OutputReader &readOutputs,
              SplitRun &out);

} // namespace cotangent::core

#endif // COTANGENT_RUNTIME_CORE_SPLITRUN_H
