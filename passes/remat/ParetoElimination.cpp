//===- ParetoElimination.cpp - every best (bytes, FLOPs) trade-off --------===//

#include "passes/remat/ParetoElimination.h"

#include "llvm/ADT/STLExtras.h"

#include <array>
#include <cassert>
#include <chrono>
#include <numeric>

using namespace mlir::cotangent;

namespace {

/// How a point was reached, as a DAG shared by all points: a node sets a
/// variable to 1 on top of another node, or joins two nodes (the points of
/// two terms added up). -1 is the empty assignment.
class Traces {
public:
  int32_t set(int var, int32_t below) { return add({var, below, -1}); }
  int32_t join(int32_t a, int32_t b) { return a < 0 ? b : b < 0 ? a : add({-1, a, b}); }
  void collect(int32_t trace, llvm::BitVector &assignment) const {
    llvm::SmallVector<int32_t> work{trace};
    while (!work.empty()) {
      int32_t t = work.pop_back_val();
      if (t < 0)
        continue;
      auto [var, a, b] = nodes[t];
      if (var >= 0)
        assignment.set(var);
      work.push_back(a);
      work.push_back(b);
    }
  }

private:
  int32_t add(std::array<int32_t, 3> node) {
    nodes.push_back(node);
    return static_cast<int32_t>(nodes.size() - 1);
  }
  std::vector<std::array<int32_t, 3>> nodes;
};

struct Entry {
  int64_t bytes = 0, flops = 0;
  int32_t trace = -1;
};
/// Bytes rising, FLOPs strictly falling.
using ParetoSet = std::vector<Entry>;

/// A candidate point and where it comes from (`a`, `b`: indices or traces).
struct Candidate {
  int64_t bytes, flops;
  int32_t a, b;
};

/// Sorts `candidates` and keeps those no other beats on both objectives.
void keepPareto(std::vector<Candidate> &candidates) {
  llvm::sort(candidates, [](const Candidate &x, const Candidate &y) {
    return x.bytes != y.bytes ? x.bytes < y.bytes : x.flops < y.flops;
  });
  size_t kept = 0;
  for (const Candidate &c : candidates)
    if (kept == 0 || c.flops < candidates[kept - 1].flops)
      candidates[kept++] = c;
  candidates.resize(kept);
}

/// Adds up Pareto sets. Bytes are multiples of `unit` (their greatest
/// common divisor): when the sums span few units they are binned by bytes
/// instead of sorted, which is most of the time spent on large frontiers.
class Adder {
public:
  Adder(int64_t capacity, int64_t unit, Traces &traces)
      : capacity(capacity), unit(unit), traces(traces) {}

  /// The Pareto set of the sums of a point of `x` and a point of `y`.
  ParetoSet sum(const ParetoSet &x, const ParetoSet &y) {
    if (x.size() == 1 && x[0].bytes == 0 && x[0].flops == 0 && x[0].trace < 0)
      return y;
    if (x.empty() || y.empty())
      return {};
    const int64_t low = x[0].bytes + y[0].bytes;
    const int64_t high = std::min(capacity, x.back().bytes + y.back().bytes);
    if (high < low)
      return {};
    const int64_t bins = (high - low) / unit + 1;
    ParetoSet out;
    if (bins <= 4 * static_cast<int64_t>(x.size() * y.size())) {
      constexpr int64_t kEmpty = std::numeric_limits<int64_t>::max();
      binFlops.assign(bins, kEmpty);
      binSource.resize(bins);
      for (const Entry &p : x)
        for (const Entry &q : y) {
          int64_t bytes = p.bytes + q.bytes;
          if (bytes > high)
            break; // y's bytes rise
          int64_t bin = (bytes - low) / unit, flops = p.flops + q.flops;
          if (flops < binFlops[bin]) {
            binFlops[bin] = flops;
            binSource[bin] = {p.trace, q.trace};
          }
        }
      for (int64_t bin = 0; bin < bins; ++bin)
        if (binFlops[bin] != kEmpty && (out.empty() || binFlops[bin] < out.back().flops))
          out.push_back({low + bin * unit, binFlops[bin],
                         traces.join(binSource[bin].first, binSource[bin].second)});
      return out;
    }
    std::vector<Candidate> candidates;
    candidates.reserve(x.size() * y.size());
    for (const Entry &p : x)
      for (const Entry &q : y) {
        if (p.bytes + q.bytes > high)
          break;
        candidates.push_back({p.bytes + q.bytes, p.flops + q.flops, p.trace, q.trace});
      }
    keepPareto(candidates);
    out.reserve(candidates.size());
    for (const Candidate &c : candidates)
      out.push_back({c.bytes, c.flops, traces.join(c.a, c.b)});
    return out;
  }

private:
  int64_t capacity, unit;
  Traces &traces;
  std::vector<int64_t> binFlops;
  std::vector<std::pair<int32_t, int32_t>> binSource;
};

/// The Pareto set of `unset` and `set`, whose points set `var` to 1.
ParetoSet either(const ParetoSet &unset, const ParetoSet &set, int var, Traces &traces) {
  std::vector<Candidate> candidates;
  candidates.reserve(unset.size() + set.size());
  for (const Entry &e : unset)
    candidates.push_back({e.bytes, e.flops, e.trace, 0});
  for (const Entry &e : set)
    candidates.push_back({e.bytes, e.flops, e.trace, 1});
  keepPareto(candidates);
  ParetoSet out;
  out.reserve(candidates.size());
  for (const Candidate &c : candidates)
    out.push_back({c.bytes, c.flops, c.b ? traces.set(var, c.a) : c.a});
  return out;
}

/// A term's table after the terms it joined: per assignment of `scope`, the
/// Pareto set over the variables eliminated into it.
struct Table {
  llvm::SmallVector<int> scope;
  std::vector<ParetoSet> sets;
  bool alive = true;
};

} // namespace

void ParetoElimination::addTerm(llvm::ArrayRef<int> scope,
                                llvm::ArrayRef<std::optional<BiCost>> costs) {
  assert(scope.size() <= kMaxTermScope && costs.size() == (size_t{1} << scope.size()));
  terms.push_back({llvm::SmallVector<int, 4>(scope), {costs.begin(), costs.end()}});
}

void ParetoElimination::forbid(llvm::ArrayRef<int> scope, unsigned assignment) {
  std::vector<std::optional<BiCost>> costs(size_t{1} << scope.size(), BiCost{});
  costs[assignment] = std::nullopt;
  addTerm(scope, costs);
}

std::optional<std::vector<ParetoElimination::Point>>
ParetoElimination::solve(const Limits &limits) const {
  auto start = std::chrono::steady_clock::now();
  auto outOfTime = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
           limits.seconds;
  };
  const int64_t capacity = limits.byteCapacity;
  Traces traces;
  int64_t unit = 0;
  for (const Term &term : terms)
    for (const std::optional<BiCost> &cost : term.costs)
      if (cost)
        unit = std::gcd(unit, cost->bytes);
  Adder adder(capacity, std::max<int64_t>(unit, 1), traces);
  std::vector<Table> tables;
  std::vector<std::vector<int>> tablesOf(numVariables);
  for (const Term &term : terms) {
    Table table{llvm::SmallVector<int>(term.scope.begin(), term.scope.end()), {}};
    for (const std::optional<BiCost> &cost : term.costs) {
      table.sets.emplace_back();
      if (cost && cost->bytes <= capacity)
        table.sets.back().push_back({cost->bytes, cost->flops, -1});
    }
    for (int var : table.scope)
      tablesOf[var].push_back(tables.size());
    tables.push_back(std::move(table));
  }

  // Min-degree order: next, the variable whose joined table is smallest.
  std::vector<char> eliminated(numVariables, 0);
  std::vector<int> mark(numVariables, -1);
  auto joinedScope = [&](int var) {
    llvm::SmallVector<int> scope;
    mark[var] = var;
    for (int t : tablesOf[var])
      if (tables[t].alive)
        for (int other : tables[t].scope)
          if (mark[other] != var) {
            mark[other] = var;
            scope.push_back(other);
          }
    // `mark` is reused with another stamp next time: clear this one's.
    for (int other : scope)
      mark[other] = -1;
    mark[var] = -1;
    return scope;
  };
  for (int step = 0; step < numVariables; ++step) {
    if (outOfTime())
      return std::nullopt;
    int var = -1;
    llvm::SmallVector<int> scope;
    for (int v = 0; v < numVariables; ++v) {
      if (eliminated[v])
        continue;
      llvm::SmallVector<int> s = joinedScope(v);
      if (var < 0 || s.size() < scope.size()) {
        var = v;
        scope = std::move(s);
        if (scope.empty())
          break;
      }
    }
    eliminated[var] = 1;
    if (static_cast<int>(scope.size()) > limits.maxWidth)
      return std::nullopt;
    llvm::sort(scope);

    // Join the tables of `var`: each of their scope positions is a bit of
    // the new table's assignment, or `var` (-1).
    llvm::SmallVector<int> joined;
    for (int t : tablesOf[var])
      if (tables[t].alive)
        joined.push_back(t);
    if (joined.empty())
      continue; // free: left 0
    llvm::SmallVector<llvm::SmallVector<int>> bitOf;
    for (int t : joined) {
      bitOf.emplace_back();
      for (int other : tables[t].scope)
        bitOf.back().push_back(other == var ? -1 : llvm::find(scope, other) - scope.begin());
    }
    Table out{scope, std::vector<ParetoSet>(size_t{1} << scope.size())};
    for (size_t a = 0; a < out.sets.size(); ++a) {
      if ((a & 255) == 255 && outOfTime())
        return std::nullopt;
      ParetoSet sides[2];
      for (unsigned value : {0u, 1u}) {
        ParetoSet acc{Entry{}};
        for (auto [t, bits] : llvm::zip(joined, bitOf)) {
          size_t index = 0;
          for (auto [i, bit] : llvm::enumerate(bits))
            if (bit < 0 ? value : (a >> bit) & 1)
              index |= size_t{1} << i;
          acc = adder.sum(acc, tables[t].sets[index]);
          if (acc.empty())
            break;
        }
        sides[value] = std::move(acc);
      }
      out.sets[a] = either(sides[0], sides[1], var, traces);
    }
    for (int t : joined)
      tables[t].alive = false;
    for (int other : scope)
      tablesOf[other].push_back(tables.size());
    tables.push_back(std::move(out));
  }

  // Every variable is eliminated: what is left are constant tables.
  ParetoSet total{Entry{}};
  for (const Table &table : tables)
    if (table.alive) {
      total = adder.sum(total, table.sets[0]);
      if (outOfTime())
        return std::nullopt;
    }
  std::vector<Point> points;
  for (const Entry &e : total) {
    Point point{e.bytes, e.flops, llvm::BitVector(numVariables)};
    traces.collect(e.trace, point.assignment);
    points.push_back(std::move(point));
  }
  return points;
}
