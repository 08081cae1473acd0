//===- MemoryBudgetElimination.cpp - the budget model, solved exactly -----===//
//
// The budget MILP (MemoryBudget.cpp) has the structure of a min cut: every
// row links a saved value to the op that makes it and one that reads it. Its
// LP bound is the convex hull of the (bytes, FLOPs) trade-offs, and between
// the hull's corners CBC branches for minutes (a transformer block has
// hundreds of Pareto points, 512-byte statistics next to 2 MiB activations).
// The same model solved by variable elimination over Pareto sets
// (ParetoElimination.h) is exact and fast: the rows have three variables
// each, and layers meet in one value (the residual stream), so the tables
// stay small. Independent regions end as separate tables whose frontiers
// are added up, which is the dynamic program over layers; regions that
// share a value are joined where they meet.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/MemoryBudget.h"
#include "passes/remat/ParetoElimination.h"

using namespace mlir;
using namespace mlir::cotangent;

std::optional<std::vector<MemoryBudgetProblem::ParetoSchedule>>
MemoryBudgetProblem::paretoSchedules(int64_t capacity, double seconds) const {
  // Variables: r_o, then s_v (MemoryBudget.cpp's columns).
  const int numOps = candidates.size();
  auto saved = [&](int v) { return numOps + v; };
  ParetoElimination model(numOps + values.size());
  for (int o = 0; o < numOps; ++o)
    if (candidateFlops[o] > 0)
      model.addTerm({o}, {BiCost{}, BiCost{0, candidateFlops[o]}});
  for (size_t v = 0; v < values.size(); ++v)
    if (valueBytes[v] > 0)
      model.addTerm({saved(v)}, {BiCost{}, BiCost{valueBytes[v], 0}});
  // Bit i of a forbidden assignment is the value of scope[i].
  for (int v : requested) // s_v >= 1 - r_p: not (s_v = 0, r_p = 0)
    model.forbid({saved(v), candidateIndex.lookup(values[v].getDefiningOp())}, 0b00);
  for (const Edge &e : edges) { // s_v >= r_o - r_p: not (s_v = 0, r_o = 1, r_p = 0)
    if (e.producer >= 0)
      model.forbid({saved(e.value), e.consumer, e.producer}, 0b010);
    else
      model.forbid({saved(e.value), e.consumer}, 0b10);
  }
  for (auto [view, root] : viewRoots) // s_root >= s_view
    model.forbid({saved(root), saved(view)}, 0b10);

  ParetoElimination::Limits limits;
  limits.byteCapacity = capacity;
  limits.seconds = seconds;
  std::optional<std::vector<ParetoElimination::Point>> frontier = model.solve(limits);
  if (!frontier)
    return std::nullopt; // too wide or out of time
  std::vector<ParetoSchedule> schedules;
  schedules.reserve(frontier->size());
  for (const ParetoElimination::Point &point : *frontier) {
    llvm::BitVector rebuilt(candidates.size());
    for (int o : point.assignment.set_bits())
      if (o < numOps)
        rebuilt.set(o);
    schedules.push_back({point.bytes, point.flops, std::move(rebuilt)});
  }
  return schedules;
}
