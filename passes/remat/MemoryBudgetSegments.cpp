//===- MemoryBudgetSegments.cpp - checkpoints at the forward's narrow cuts ===//
//
// Schedules of a known shape, for when the exact search finds none in time:
// save the values that cross a narrow cut of the forward (one buffer live
// across it: the residual stream between a model's layers) and rebuild each
// segment between two saved cuts in the backward, from the cut before it.
// --jx-remat rebuilds in order of first use, so one segment's activations
// are live at a time: Chen et al.'s sqrt(n) checkpointing, and what JAX's
// nothing_saveable (or, keeping the products inside, dots_saveable) per
// layer does. Whole-step budgets over hundreds of candidates are where the
// elimination's answers overshoot its working-set bound (it counts the
// backward's buffers, not the rebuilt segment's) and the MILP runs out of
// time; these give it an incumbent to search below.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/MemoryBudget.h"

#include "dialects/jx/JxDialect.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::cotangent;

std::vector<llvm::BitVector> MemoryBudgetProblem::segmentSchedules() const {
  const int n = candidates.size();
  if (n < 2)
    return {};
  // Each buffer (a value, its views folded into their root) spans the
  // boundaries from its producer to its last reader in the forward; a
  // boundary i lies between candidates i and i + 1.
  std::vector<int> rootOf(values.size());
  for (size_t v = 0; v < values.size(); ++v)
    rootOf[v] = v;
  for (auto [view, root] : viewRoots)
    rootOf[view] = root;
  std::vector<int> first(values.size(), n), last(values.size(), -1);
  for (const Edge &e : edges) {
    if (e.producer < 0)
      continue; // made outside the regions: saved whatever the schedule
    int r = rootOf[e.value];
    first[r] = std::min(first[r], e.producer);
    last[r] = std::max(last[r], e.consumer);
  }
  std::vector<int> crossing(n, 0); // buffers live across each boundary
  for (size_t r = 0; r < values.size(); ++r)
    if (first[r] < last[r]) {
      ++crossing[first[r]];
      --crossing[last[r]];
    }
  for (int i = 1; i < n; ++i)
    crossing[i] += crossing[i - 1];

  // The narrow cuts: boundaries with one buffer across, every one of a run
  // of them (a chain of single-operand ops): the strides below choose among
  // them (one per run peaked 3% higher on GPT-2 at batch 72).
  std::vector<int> cuts;
  for (int i = 0; i + 1 < n; ++i)
    if (crossing[i] == 1)
      cuts.push_back(i);
  // What saving each cut keeps: the producers, before the cut, of the
  // values of the one buffer across it (its root and its views).
  std::vector<llvm::BitVector> cutKeeps(cuts.size(), llvm::BitVector(n));
  for (auto [c, i] : llvm::enumerate(cuts)) {
    int r = 0;
    while (!(first[r] <= i && i < last[r]))
      ++r;
    for (const Edge &e : edges)
      if (e.producer >= 0 && e.producer <= i && i < e.consumer && rootOf[e.value] == r)
        cutKeeps[c].set(e.producer);
  }
  // What dots_saveable keeps.
  auto saveDots = jx::PolicyAttr::get(fwd.getContext(), jx::PolicyKind::dots_saveable);
  llvm::BitVector dots(n);
  for (int o = 0; o < n; ++o)
    if (saveDots.decide(candidates[o]) == jx::PolicyAttr::Decision::Save)
      dots.set(o);
  std::map<std::pair<int64_t, int>, llvm::BitVector> byFlops; // (FLOPs, order) -> schedule
  std::vector<size_t> strides;
  for (size_t stride = 1; stride <= cuts.size(); stride = stride < 4 ? stride + 1 : stride * 2)
    strides.push_back(stride);
  for (bool keepDots : {true, false})
    for (size_t stride : strides) {
      llvm::BitVector kept(n);
      for (size_t c = stride - 1; c < cuts.size(); c += stride)
        kept |= cutKeeps[c];
      if (keepDots)
        kept |= dots;
      llvm::BitVector rebuilt = effective(kept.flip());
      bool seen = llvm::any_of(byFlops, [&](auto &entry) { return entry.second == rebuilt; });
      if (!seen)
        byFlops.emplace(std::pair{flops(rebuilt), static_cast<int>(byFlops.size())}, rebuilt);
    }
  std::vector<llvm::BitVector> schedules;
  for (auto &[key, schedule] : byFlops)
    schedules.push_back(schedule);
  return schedules;
}
