//===- JxPrintMemoryPlan.cpp - the predicted memory of each split ---------===//
//
// Prints the memory plan (MemoryPlan.h) of every forward/backward pair: the
// peak the CPU (or GPU) runtime will reach, what is live at it, and the timeline.
//
//===----------------------------------------------------------------------===//

#include "analysis/AnalysisPasses.h"
#include "analysis/MemoryPlan.h"

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXPRINTMEMORYPLANPASS
#include "analysis/AnalysisPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;

namespace {

struct JxPrintMemoryPlanPass
    : cotangent::impl::JxPrintMemoryPlanPassBase<JxPrintMemoryPlanPass> {
  using Base::Base;

  /// The lowering runs on a clone from inside this pass: every dialect it
  /// creates must be loaded before the pass manager starts.
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildJxToDeviceBuffersPipeline(pm); // the CPU's pipeline and one pass more
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      module.emitError() << "--jx-print-memory-plan: " << error;
      return signalPassFailure();
    }
    FailureOr<std::vector<MemoryPlan>> plans = predictMemoryPlans(module, "", target);
    if (failed(plans))
      return signalPassFailure();
    if (plans->empty()) {
      module.emitError("--jx-print-memory-plan: no forward function in the module; run "
                       "--jx-vjp first");
      return signalPassFailure();
    }
    if (format == ReportFormat::Json || json) {
      printMemoryPlansJson(*plans, file->os());
    } else {
      for (const MemoryPlan &plan : *plans)
        printMemoryPlan(plan, file->os(), timeline);
    }
    file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
