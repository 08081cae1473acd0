//===- PlanningContext.h - a context that can predict memory plans -*- C++ -*-===//
//
// The memory plan lowers a clone of the module as the CPU runtime does, and
// memory_budget asks it through the jx dialect's PeakOracle: the tests that
// predict plans or solve budgets share this context.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_CPU_PLANNINGCONTEXT_H
#define COTANGENT_TEST_UNIT_CPU_PLANNINGCONTEXT_H

#include "AutodiffUtil.h"

#include "analysis/PeakOracle.h"
#include "runtime/host/JitEngine.h"

inline mlir::MLIRContext &planningContext() {
  mlir::MLIRContext &ctx = autodiff::context();
  mlir::DialectRegistry registry;
  mlir::cotangent::registerPeakOracle(registry);
  cotangent::host::loweringRegistry().appendTo(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  return ctx;
}

#endif // COTANGENT_TEST_UNIT_CPU_PLANNINGCONTEXT_H
