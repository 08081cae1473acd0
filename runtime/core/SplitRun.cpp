//===- SplitRun.cpp - the forward/backward split, run once for every target -===//
//
// See SplitRun.h. Blocks are pointers the target's count holds or not: an
// argument's is the caller's (never freed here), one the count does not
// hold (pinned memory, a caller's buffer) is never released, and every
// counted block the forward or a reload made is freed once, when nothing
// kept or returned shares it.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/SplitRun.h"

#include <set>

namespace cotangent::core {

SplitTarget::~SplitTarget() = default;

bool SplitTarget::offload(size_t, const MemRefDescriptor &residual, MemRefDescriptor &copy) {
  copy = residual;
  return true;
}

bool SplitTarget::reload(size_t, const MemRefDescriptor &copy, MemRefDescriptor &reloaded) {
  reloaded = copy;
  return true;
}

namespace {

/// Counted blocks one run frees, each once, however it ends.
class OwnedBlocks {
public:
  explicit OwnedBlocks(SplitTarget &target) : target(target) {}
  OwnedBlocks(const OwnedBlocks &) = delete;
  OwnedBlocks &operator=(const OwnedBlocks &) = delete;
  ~OwnedBlocks() { releaseAll(); }

  void add(void *block) {
    if (block)
      blocks.insert(block);
  }
  bool contains(void *block) const { return blocks.count(block) != 0; }
  /// Leaves `block` to another owner.
  void erase(void *block) { blocks.erase(block); }
  void release(void *block) {
    if (blocks.erase(block) && target.blockBytes(block) >= 0)
      target.release(block);
  }
  void releaseAll() {
    for (void *block : blocks)
      if (target.blockBytes(block) >= 0)
        target.release(block);
    blocks.clear();
  }

private:
  SplitTarget &target;
  std::set<void *> blocks;
};

/// Offloaded copies, discarded when the run ends however it ends.
struct OffloadedCopies {
  explicit OffloadedCopies(SplitTarget &target) : target(target) {}
  ~OffloadedCopies() {
    for (const MemRefDescriptor &copy : copies)
      target.discard(copy);
  }
  SplitTarget &target;
  std::vector<MemRefDescriptor> copies;
};

std::set<void *> blocksOf(const std::vector<MemRefDescriptor> &descriptors) {
  std::set<void *> blocks;
  for (const MemRefDescriptor &d : descriptors)
    blocks.insert(d.allocated());
  return blocks;
}

} // namespace

bool runSplit(SplitTarget &target, const SplitLayout &layout,
              const std::vector<MemRefDescriptor> &args,
              const std::vector<MemRefDescriptor> &cotangents, const OutputReader &readOutputs,
              SplitRun &out) {
  out = SplitRun{};
  const size_t numOutputs = layout.numOutputs;
  out.numResiduals = static_cast<int64_t>(layout.resultBytes.size() - numOutputs);
  std::set<void *> argumentBlocks = blocksOf(args), callerBlocks = argumentBlocks;
  callerBlocks.merge(blocksOf(cotangents));
  OwnedBlocks owned(target);
  OffloadedCopies offloaded(target);
  auto own = [&](const std::vector<MemRefDescriptor> &results) {
    for (const MemRefDescriptor &r : results)
      if (!callerBlocks.count(r.allocated()))
        owned.add(r.allocated());
  };

  // The forward.
  target.resetPeak();
  const int64_t before = target.liveBytes();
  std::vector<MemRefDescriptor> fwdArgs = args, results;
  bool ran = target.invoke(SplitTarget::Half::Forward, fwdArgs, results, out.seconds);
  own(results);
  if (!ran)
    return false;
  std::vector<MemRefDescriptor> outputs(results.begin(), results.begin() + numOutputs);
  std::vector<MemRefDescriptor> residuals(results.begin() + numOutputs, results.end());
  auto isOffloaded = [&](size_t i) { return layout.offloaded[numOutputs + i]; };

  // Outputs read (then freed) or kept; residuals held, or offloaded and
  // their blocks freed.
  std::set<void *> held, kept;
  std::vector<void *> dropped; // freed in this order: outputs, then offloaded residuals
  for (size_t i = 0; i < residuals.size(); ++i)
    if (!isOffloaded(i))
      held.insert(residuals[i].allocated());
  kept = held;
  if (readOutputs) {
    if (!readOutputs(outputs))
      return false;
    for (const MemRefDescriptor &output : outputs)
      dropped.push_back(output.allocated());
  } else {
    kept.merge(blocksOf(outputs));
  }
  for (size_t i = 0; i < residuals.size(); ++i) {
    if (!isOffloaded(i))
      continue;
    MemRefDescriptor copy = residuals[i];
    if (!target.offload(numOutputs + i, residuals[i], copy))
      return false;
    if (copy.allocated() == residuals[i].allocated())
      owned.erase(copy.allocated()); // the forward put it there itself
    else
      dropped.push_back(residuals[i].allocated());
    offloaded.copies.push_back(copy);
    out.offloadedBytes += layout.resultBytes[numOutputs + i];
    residuals[i] = copy;
  }
  for (void *block : dropped)
    if (!kept.count(block))
      owned.release(block); // once: a block released is no longer owned

  // What waits between the halves.
  for (size_t i = 0; i < residuals.size(); ++i)
    if (!isOffloaded(i) && argumentBlocks.count(residuals[i].allocated()))
      out.argumentResidualBytes += layout.resultBytes[numOutputs + i];
  out.residualBytes = target.liveBytes() - before + out.argumentResidualBytes;
  if (!readOutputs)
    for (void *block : blocksOf(outputs))
      if (!held.count(block) && !callerBlocks.count(block) && target.blockBytes(block) >= 0)
        out.keptOutputBytes += target.blockBytes(block);
  out.residualBytes -= out.keptOutputBytes;

  // The backward, offloaded residuals reloaded first.
  for (size_t i = 0; i < residuals.size(); ++i) {
    if (!isOffloaded(i))
      continue;
    MemRefDescriptor reloaded = residuals[i];
    if (!target.reload(numOutputs + i, residuals[i], reloaded))
      return false;
    if (reloaded.allocated() != residuals[i].allocated())
      owned.add(reloaded.allocated());
    residuals[i] = reloaded;
  }
  std::vector<MemRefDescriptor> bwdArgs = std::move(residuals);
  bwdArgs.insert(bwdArgs.end(), cotangents.begin(), cotangents.end());
  ran = target.invoke(SplitTarget::Half::Backward, bwdArgs, out.gradients, out.seconds);
  own(out.gradients);
  out.peakBytes = target.peakBytes() - before;
  if (!ran)
    return false;

  // The gradients' blocks (and kept outputs') go to the caller; the rest now.
  if (!readOutputs)
    out.outputs = std::move(outputs);
  for (const auto *returned : {&out.gradients, &out.outputs})
    for (const MemRefDescriptor &d : *returned)
      if (owned.contains(d.allocated())) {
        owned.erase(d.allocated());
        out.resultBlocks.push_back(d.allocated());
      }
  return true;
}

} // namespace cotangent::core
