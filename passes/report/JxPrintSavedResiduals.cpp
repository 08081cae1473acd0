//===- JxPrintSavedResiduals.cpp - the saved-residuals report -------------===//
//
// Prints, for each forward function in the module, what it saves for its
// backward, after whatever passes ran before: the report shows the residuals
// that the compiled code will really hold.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "dialects/jx/JxSplit.h"
#include "passes/report/JsonReport.h"
#include "passes/report/Residuals.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXPRINTSAVEDRESIDUALSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;

namespace {

struct JxPrintSavedResidualsPass
    : cotangent::impl::JxPrintSavedResidualsPassBase<JxPrintSavedResidualsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      module.emitError() << "--jx-print-saved-residuals: " << error;
      return signalPassFailure();
    }
    bool any = false, asJson = format == ReportFormat::Json || json;
    llvm::json::Array splits;
    for (jx::SplitPair pair : jx::getSplitPairs(module)) {
      any = true;
      FailureOr<std::vector<Residual>> residuals = describeResiduals(pair.fwd);
      if (failed(residuals))
        return signalPassFailure();
      StringRef name = jx::getSplitName(pair);
      if (asJson) {
        splits.push_back(residualsJson(name, *residuals));
      } else {
        file->os() << "saved residuals of @" << name << ":\n";
        printResiduals(*residuals, file->os());
      }
    }
    if (!any) {
      module.emitError("--jx-print-saved-residuals: no forward function in the module; run "
                       "--jx-vjp first");
      return signalPassFailure();
    }
    if (asJson)
      printJsonReport(std::move(splits), file->os());
    file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
