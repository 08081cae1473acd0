//===- ParetoElimination.h - every best (bytes, FLOPs) trade-off -*- C++ -*-===//
//
// Exact bi-objective minimization over binary variables by variable
// elimination (bucket elimination): the cost is a sum of terms, each over a
// few variables; eliminating a variable joins the terms that mention it into
// one table over their other variables whose entries are Pareto sets of
// (bytes, FLOPs) instead of numbers. The last table is the frontier: for
// every amount of bytes, the fewest FLOPs, with an assignment reaching it.
//
// The work grows as 2^width, width being the largest table's scope, which
// the min-degree order keeps small on dataflow graphs of layers (a
// transformer block: 6). The memory_budget policy solves its model with it
// (MemoryBudgetElimination.cpp) and falls back to the MILP when the width
// or the time runs out.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REMAT_PARETOELIMINATION_H
#define COTANGENT_PASSES_REMAT_PARETOELIMINATION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace mlir::cotangent {

/// A cost in both objectives, each at least 0.
struct BiCost {
  int64_t bytes = 0, flops = 0;
};

class ParetoElimination {
public:
  explicit ParetoElimination(int numVariables) : numVariables(numVariables) {}

  /// A term over `scope` (distinct variables, at most kMaxTermScope):
  /// `costs[a]` for the assignment `a` (bit i is scope[i]'s value), or
  /// std::nullopt where that assignment is forbidden.
  void addTerm(llvm::ArrayRef<int> scope, llvm::ArrayRef<std::optional<BiCost>> costs);
  /// A term forbidding one assignment of `scope` (costing nothing otherwise).
  void forbid(llvm::ArrayRef<int> scope, unsigned assignment);

  struct Point {
    int64_t bytes = 0, flops = 0;
    llvm::BitVector assignment; ///< the variables set to 1
  };
  struct Limits {
    int64_t byteCapacity = std::numeric_limits<int64_t>::max();
    int maxWidth = 16;
    double seconds = std::numeric_limits<double>::infinity();
  };
  /// The Pareto-optimal points with at most `byteCapacity` bytes, bytes
  /// rising and FLOPs falling (empty when no allowed assignment fits);
  /// std::nullopt when a table would exceed `maxWidth` or time runs out.
  std::optional<std::vector<Point>> solve(const Limits &limits) const;

  static constexpr int kMaxTermScope = 16;

private:
  struct Term {
    llvm::SmallVector<int, 4> scope;
    std::vector<std::optional<BiCost>> costs;
  };
  int numVariables;
  std::vector<Term> terms;
};

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REMAT_PARETOELIMINATION_H
