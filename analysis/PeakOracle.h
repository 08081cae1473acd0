//===- PeakOracle.h - the memory plan as the budget policy's oracle -*- C++ -*-===//
//
// The memory_budget policy (passes/remat/MemoryBudget.h) checks each schedule
// it considers against the peak the runtime will reach. That prediction is
// the memory plan's, made on the lowered program, which the remat pass cannot
// depend on: this registers the plan on the jx dialect as its PeakOracle.
// Tools and programs that run --jx-remat on memory_budget policies call it
// on their registry, next to the lowering's (host::loweringRegistry()).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_ANALYSIS_PEAKORACLE_H
#define COTANGENT_ANALYSIS_PEAKORACLE_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::cotangent {

/// Registers the memory plan as the jx dialect's PeakOracle.
void registerPeakOracle(DialectRegistry &registry);

} // namespace mlir::cotangent

#endif // COTANGENT_ANALYSIS_PEAKORACLE_H
