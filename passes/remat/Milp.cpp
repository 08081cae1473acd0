//===- Milp.cpp - a small MILP built row by row, solved by CBC -----------===//

#include "passes/remat/Milp.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>

using namespace mlir::cotangent;

Milp::Milp() : model(Cbc_newModel()) { Cbc_setLogLevel(model, 0); }

Milp::~Milp() { Cbc_deleteModel(model); }

int Milp::addColumn(double lower, double upper, double cost, bool integer) {
  Cbc_addCol(model, "", lower, upper, cost, integer ? 1 : 0, 0, nullptr, nullptr);
  return numColumns++;
}

void Milp::addRow(llvm::ArrayRef<int> cols, llvm::ArrayRef<double> coefs, char sense,
                  double rhs) {
  if (cols.empty()) {
    // CLP asserts on empty rows: one that holds is dropped, one that cannot
    // hold (0 >= 1) makes the model infeasible without solving it.
    bool holds = sense == 'L' ? 0 <= rhs : sense == 'G' ? 0 >= rhs : rhs == 0;
    infeasible |= !holds;
    return;
  }
  Cbc_addRow(model, "", static_cast<int>(cols.size()), cols.data(), coefs.data(), sense, rhs);
}

Milp::Outcome Milp::solve(double seconds) {
  if (infeasible)
    return Outcome::Infeasible;
  Cbc_setMaximumSeconds(model, std::max(seconds, 0.01));
  // The objective is integral: a gap below 1 proves optimality. On deep
  // models closing the last unit can take CBC minutes; a relative gap of
  // 1e-4 stops it at 0.01%.
  Cbc_setAllowableGap(model, 0.5);
  Cbc_setAllowableFractionGap(model, kRelativeGap);
  Cbc_solve(model);
  if (Cbc_isProvenOptimal(model))
    return Outcome::Optimal;
  if (Cbc_isProvenInfeasible(model) || !Cbc_bestSolution(model))
    return Cbc_isSecondsLimitReached(model) ? Outcome::TimeLimit : Outcome::Infeasible;
  return Outcome::TimeLimit;
}

bool Milp::hasSolution() const { return !infeasible && Cbc_bestSolution(model) != nullptr; }

double Milp::value(int col) const { return Cbc_getColSolution(model)[col]; }
