//===- Milp.h - a small MILP built row by row, solved by CBC ----*- C++ -*-===//
//
// The memory_budget policy's models go through this wrapper of COIN-OR
// CBC's C interface: columns, rows, a time limit, and the answer.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REMAT_MILP_H
#define COTANGENT_PASSES_REMAT_MILP_H

#include "llvm/ADT/ArrayRef.h"

namespace mlir::cotangent {

class Milp {
public:
  Milp();
  ~Milp();
  Milp(const Milp &) = delete;
  Milp &operator=(const Milp &) = delete;

  /// A column in [lower, upper] with `cost` in the (minimized) objective.
  int addColumn(double lower, double upper, double cost, bool integer);
  /// sum coefs * cols (sense) rhs, sense one of 'L', 'G', 'E'.
  void addRow(llvm::ArrayRef<int> cols, llvm::ArrayRef<double> coefs, char sense, double rhs);

  enum class Outcome { Optimal, Infeasible, TimeLimit };
  /// Solves within `seconds` to a gap of 0.5 (the objective is integral)
  /// or kRelativeGap of the bound, whichever is larger.
  Outcome solve(double seconds);
  bool hasSolution() const;
  double value(int col) const;

  /// How far above the MILP's bound its answer may be, relative.
  static constexpr double kRelativeGap = 1e-4;

private:
  void *model; ///< a Cbc_Model (void in CBC's C interface)
  int numColumns = 0;
  bool infeasible = false; ///< a row no assignment meets
};

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REMAT_MILP_H
