//===- AnalysisPasses.h - predictions about compiled programs ---*- C++ -*-===//

#ifndef COTANGENT_ANALYSIS_ANALYSISPASSES_H
#define COTANGENT_ANALYSIS_ANALYSISPASSES_H

#include "analysis/MemoryPlan.h"
#include "passes/report/ReportFormat.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::cotangent {

#define GEN_PASS_DECL
#include "analysis/AnalysisPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "analysis/AnalysisPasses.h.inc"

} // namespace mlir::cotangent

#endif // COTANGENT_ANALYSIS_ANALYSISPASSES_H
