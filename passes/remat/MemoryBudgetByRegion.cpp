//===- MemoryBudgetByRegion.cpp - the budget MILP, one region at a time ---===//
//
// With one budget region per layer, the joint MILP is a knapsack over many
// equal layers: its LP bound is weak and CBC branches over the layers'
// permutations (minutes on four transformer blocks). But regions share
// nothing except the bytes row: a value one region saves for another is
// saved whatever either decides. So:
//
//  1. each region's frontier: the schedules of least FLOPs for each amount
//     of saved bytes, by the same MILP restricted to the region, solved
//     again with the bytes bound one unit below the last answer until none
//     is left (epsilon-constraint). Regions of identical structure (the
//     layers of a model) share one frontier;
//  2. the frontiers combined exactly by a dynamic program over regions
//     whose states are the Pareto-optimal (bytes, FLOPs) sums.
//
// The result is the joint MILP's optimum. A value whose saving two regions
// decide makes the regions dependent: then the joint MILP is used.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/MemoryBudget.h"
#include "passes/remat/Milp.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::cotangent;

namespace {

/// One schedule of a region: what it rebuilds, its saved bytes and FLOPs.
struct FrontierPoint {
  int64_t bytes = 0, flops = 0;
  std::vector<int> rebuilt; ///< positions among the region's candidates
};

/// A state of the dynamic program: a Pareto-optimal sum over the regions
/// so far, and how it was reached.
struct State {
  int64_t bytes = 0, flops = 0;
  int previous = -1, point = -1;
};

/// Keeps the states no other state beats on both bytes and FLOPs.
std::vector<State> paretoPrune(std::vector<State> states, int64_t capacity) {
  llvm::erase_if(states, [&](const State &s) { return s.bytes > capacity; });
  llvm::sort(states, [](const State &a, const State &b) {
    return a.bytes != b.bytes ? a.bytes < b.bytes : a.flops < b.flops;
  });
  std::vector<State> kept;
  for (const State &s : states)
    if (kept.empty() || s.flops < kept.back().flops)
      kept.push_back(s);
  return kept;
}

} // namespace

MemoryBudgetProblem::RegionSolve MemoryBudgetProblem::solveByRegions(int64_t capacity,
                                                                     double seconds) const {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  RegionSolve answer;
  const size_t numRegions = regions.size();

  // Which region decides each value's saving; two regions: dependent.
  std::vector<int> owner(values.size(), -1);
  bool dependent = false;
  auto own = [&](int v, int region) {
    if (owner[v] >= 0 && owner[v] != region)
      dependent = true;
    owner[v] = region;
  };
  for (int v : requested)
    own(v, candidateRegion[candidateIndex.lookup(values[v].getDefiningOp())]);
  for (const Edge &e : edges)
    own(e.value, candidateRegion[e.consumer]);
  for (auto [view, root] : viewRoots)
    if (owner[view] >= 0)
      own(root, owner[view]);
  if (dependent)
    return answer;

  // The region's structure, as a key: equal keys, equal frontiers (by
  // position of the candidates and values in the region).
  std::vector<std::vector<int>> members(numRegions), valuesOf(numRegions);
  std::vector<int> position(candidates.size()), valuePosition(values.size(), -1);
  for (size_t o = 0; o < candidates.size(); ++o) {
    position[o] = members[candidateRegion[o]].size();
    members[candidateRegion[o]].push_back(o);
  }
  for (size_t v = 0; v < values.size(); ++v)
    if (owner[v] >= 0) {
      valuePosition[v] = valuesOf[owner[v]].size();
      valuesOf[owner[v]].push_back(v);
    }
  std::vector<std::string> keys(numRegions);
  for (size_t k = 0; k < numRegions; ++k) {
    llvm::raw_string_ostream os(keys[k]);
    for (int o : members[k])
      os << candidates[o]->getName() << ':' << candidateFlops[o] << ';';
    for (int v : valuesOf[k])
      os << valueBytes[v] << ',';
    os << '|';
    for (int v : requested)
      if (owner[v] == static_cast<int>(k))
        os << valuePosition[v] << ',';
    os << '|';
    for (const Edge &e : edges)
      if (candidateRegion[e.consumer] == static_cast<int>(k))
        os << position[e.consumer] << '<' << (e.producer < 0 ? -1 : position[e.producer]) << '@'
           << valuePosition[e.value] << ',';
    os << '|';
    for (auto [view, root] : viewRoots)
      if (owner[view] == static_cast<int>(k))
        os << valuePosition[view] << '>' << valuePosition[root] << ',';
  }

  // 1. Each distinct region's frontier, from saving the most to the least,
  // as far as the budget may need: no region saves less than its first
  // point minus what all regions together must give up.
  llvm::StringMap<std::vector<FrontierPoint>> frontiers;
  // Extends region k's frontier by one point; false when it has no more
  // (or, with `exact` unset, when time ran out).
  bool exact = true;
  auto extend = [&](size_t k) {
    std::vector<FrontierPoint> &frontier = frontiers[keys[k]];
    if (!frontier.empty() && frontier.back().bytes == 0)
      return false;
    if (elapsed() > seconds)
      return exact = false;
    std::optional<int64_t> bound;
    if (!frontier.empty())
      bound = frontier.back().bytes - byteUnit; // strictly fewer bytes
    Milp milp;
    ModelColumns columns = addModel(
        milp, [&](int o) { return candidateRegion[o] == static_cast<int>(k); },
        /*byBytes=*/false, bound);
    Milp::Outcome outcome = milp.solve(seconds - elapsed());
    if (outcome == Milp::Outcome::Infeasible)
      return false;
    if (outcome != Milp::Outcome::Optimal) // out of time: not exact
      return exact = false;
    llvm::BitVector schedule = readSchedule(milp, columns);
    llvm::BitVector saved = savedValues(schedule);
    FrontierPoint point;
    for (int v : valuesOf[k])
      if (saved.test(v))
        point.bytes += valueBytes[v];
    point.flops = flops(schedule);
    for (int o : schedule.set_bits())
      point.rebuilt.push_back(position[o]);
    frontier.push_back(std::move(point));
    return true;
  };
  int64_t mostBytes = 0;
  for (size_t k = 0; k < numRegions; ++k) {
    if (frontiers[keys[k]].empty() && !extend(k) && !exact)
      return answer;
    if (frontiers[keys[k]].empty()) { // nothing fits even unbounded: cannot happen
      answer.status = RegionSolve::Infeasible;
      return answer;
    }
    mostBytes += frontiers[keys[k]].front().bytes;
  }
  const int64_t giveUp = mostBytes - capacity;
  for (size_t k = 0; k < numRegions; ++k)
    while (frontiers[keys[k]].back().bytes > frontiers[keys[k]].front().bytes - giveUp &&
           extend(k)) {
    }
  if (!exact)
    return answer;

  // 2. The Pareto-optimal sums, region after region.
  std::vector<std::vector<State>> stages{{State{}}};
  for (size_t k = 0; k < numRegions; ++k) {
    const std::vector<FrontierPoint> &frontier = frontiers[keys[k]];
    std::vector<State> next;
    for (auto [i, s] : llvm::enumerate(stages.back()))
      for (auto [j, p] : llvm::enumerate(frontier))
        next.push_back({s.bytes + p.bytes, s.flops + p.flops, static_cast<int>(i),
                        static_cast<int>(j)});
    stages.push_back(paretoPrune(std::move(next), capacity));
    if (stages.back().empty()) {
      answer.status = RegionSolve::Infeasible;
      return answer;
    }
  }
  // The last stage is sorted by bytes with FLOPs falling: the cheapest is last.
  answer.schedule = llvm::BitVector(candidates.size());
  int state = stages.back().size() - 1;
  for (size_t k = numRegions; k > 0; --k) {
    const State &s = stages[k][state];
    for (int p : frontiers[keys[k - 1]][s.point].rebuilt)
      answer.schedule.set(members[k - 1][p]);
    state = s.previous;
  }
  answer.schedule = effective(answer.schedule);
  answer.status = RegionSolve::Solved;
  return answer;
}
