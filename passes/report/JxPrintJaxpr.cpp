//===- JxPrintJaxpr.cpp - print functions as jaxprs -----------------------===//

#include "passes/report/JaxprPrinter.h"
#include "passes/Passes.h"
#include "passes/SelectFunctions.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXPRINTJAXPRPASS
#include "passes/Passes.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;

namespace {

struct JxPrintJaxprPass : cotangent::impl::JxPrintJaxprPassBase<JxPrintJaxprPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      module.emitError() << "--jx-print-jaxpr: " << error;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> selected = selectFunctions(module, function);
    for (func::FuncOp fn : selected) {
      file->os() << "@" << fn.getSymName() << ":\n";
      printJaxpr(fn, file->os());
    }
    if (selected.empty()) {
      module.emitError() << "--jx-print-jaxpr: no function"
                         << (function.empty() ? "" : " named '" + function + "'");
      return signalPassFailure();
    }
    file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
