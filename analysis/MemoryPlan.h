//===- MemoryPlan.h - the bytes a compiled fwd/bwd split will hold -*- C++ -*-===//
//
// The peak memory of a training step, predicted before it runs. The CPU
// runtime counts every block that compiled code allocates and frees
// (runtime/cpu/MemoryHooks.h); what it allocates and when is decided by the
// lowering (fusion, bufferization, the deallocation pipeline, BLAS calls).
// So the prediction is made on that lowered program: a clone of the module is
// taken through the same buffers pipeline as the runtime, and its forward and
// backward are executed abstractly, over allocations only. Index and boolean
// values (loop bounds, ownership flags, aliasing checks) are computed exactly,
// tensor data is not. The split is run the way CompiledModule::runSplit runs
// it: arguments are the caller's, the forward's outputs are freed once read
// unless a residual shares them, the residuals stay until the backward's
// gradients are read.
//
// A branch whose condition depends on tensor data (a jx.cond) is followed
// both ways: each outcome is one path, the predicted peak is the largest.
// A loop whose trip count depends on tensor data cannot be predicted and is
// reported as such.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_ANALYSIS_MEMORYPLAN_H
#define COTANGENT_ANALYSIS_MEMORYPLAN_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::cotangent {

/// One block compiled code allocates.
struct PlannedBlock {
  int64_t bytes = 0;
  std::string type;     ///< f32[4,8]
  std::string function; ///< the function that allocated it
  std::string location; ///< "FILE:LINE (fn)" of the op it was allocated for, as in the residual report
  std::string role;     ///< "residual 2", "gradient 0", "output 0" or "" (a temporary)
};

/// One allocation or free, and what is live after it.
struct MemoryEvent {
  int block;     ///< index into MemoryPlan::blocks
  int64_t delta; ///< +bytes or -bytes
  int64_t live;
};

/// The runtime a plan is for: each lowers to buffers its own way (the GPU
/// copies offloaded residuals back where the backward needs them) and
/// counts its own memory (the GPU: device memory only, so an offloaded
/// residual leaves the count once its copy is made).
enum class MemoryPlanTarget { Cpu, Cuda };

/// The predicted memory of one @f_fwd/@f_bwd split on a runtime.
struct MemoryPlan {
  std::string name;          ///< f, of @f_fwd/@f_bwd (or of @f, called alone)
  MemoryPlanTarget target = MemoryPlanTarget::Cpu;
  /// A plan of one call of @name (predictCallPlan): no split, no residuals.
  bool singleCall = false;
  int64_t peakBytes = 0;     ///< the largest over all paths
  int64_t minPeakBytes = 0;  ///< the smallest over all paths
  /// The residuals' bytes between the two calls (on the peak's path): the
  /// blocks live then, plus residuals that are arguments, held by reference.
  int64_t residualBytes = 0;
  int64_t argumentResidualBytes = 0; ///< of residualBytes, the arguments
  /// The residual bytes' range over all paths (a branch taken in the
  /// forward decides what it saves; the buffer deallocation's ownership
  /// tests are followed both ways too, so a range may hold paths no run
  /// takes).
  int64_t minResidualBytes = 0, maxResidualBytes = 0;
  /// The largest live bytes while the backward runs (residuals included).
  int64_t backwardPeakBytes = 0;
  int paths = 1;             ///< outcomes of data-dependent branches followed
  bool allPaths = true;      ///< false when there were too many to follow
  // Of the path with the largest peak:
  std::vector<PlannedBlock> blocks;
  std::vector<MemoryEvent> timeline;
  int peakEvent = -1;           ///< index into timeline (-1: nothing allocated)
  std::vector<int> liveAtPeak;  ///< block indices, largest first
};

/// The memory plan of every split in `module` (jx IR after --jx-vjp and any
/// --jx-remat), or only of the split named `only`, predicted on a clone
/// lowered as the `target` runtime lowers it. Fails with a located diagnostic
/// where a plan cannot be predicted. The context must know the dialects and
/// interfaces the lowering uses (the runtime's host::loweringRegistry()).
FailureOr<std::vector<MemoryPlan>>
predictMemoryPlans(ModuleOp module, StringRef only = "",
                   MemoryPlanTarget target = MemoryPlanTarget::Cpu);

/// The predicted memory of one call of public function `name` (no split:
/// a whole compiled step, say), run the way CompiledModule::call runs it:
/// the arguments are the caller's and not counted (a donated one is written
/// over, so the result that takes it allocates nothing), the results are
/// counted until the call returns. No residual figures.
FailureOr<MemoryPlan> predictCallPlan(ModuleOp module, StringRef name,
                                      MemoryPlanTarget target = MemoryPlanTarget::Cpu);

/// Text: the peak, the blocks live at it, then the timeline (if asked).
void printMemoryPlan(const MemoryPlan &plan, llvm::raw_ostream &os, bool timeline = true);
/// One JSON object per plan, in an array.
void printMemoryPlansJson(llvm::ArrayRef<MemoryPlan> plans, llvm::raw_ostream &os);

} // namespace mlir::cotangent

#endif // COTANGENT_ANALYSIS_MEMORYPLAN_H
