//===- PeakOracle.cpp - the memory plan as the budget policy's oracle -----===//

#include "analysis/PeakOracle.h"

#include "analysis/MemoryPlan.h"
#include "dialects/jx/JxDialect.h"
#include "passes/remat/MemoryBudget.h"

using namespace mlir;
using namespace mlir::cotangent;

namespace {

struct MemoryPlanOracle : PeakOracle {
  using PeakOracle::PeakOracle;

  FailureOr<PredictedPeak> predict(ModuleOp module, StringRef name) const override {
    FailureOr<std::vector<MemoryPlan>> plans = predictMemoryPlans(module, name);
    if (failed(plans) || plans->size() != 1)
      return failure();
    const MemoryPlan &plan = plans->front();
    // The timeline ends when the backward returns (the runtime then reads
    // the gradients and frees the rest).
    return PredictedPeak{plan.peakBytes, plan.backwardPeakBytes,
                         plan.timeline.empty() ? 0 : plan.timeline.back().live};
  }

  FailureOr<int64_t> predictStep(ModuleOp module, StringRef step) const override {
    FailureOr<MemoryPlan> plan = predictCallPlan(module, step);
    if (failed(plan))
      return failure();
    return plan->peakBytes;
  }
};

} // namespace

void mlir::cotangent::registerPeakOracle(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, jx::JxDialect *dialect) {
    dialect->addInterfaces<MemoryPlanOracle>();
  });
}
