//===- JxDumpFwdBwd.cpp - forward and backward side by side ---------------===//

#include "passes/report/FwdBwdDump.h"
#include "passes/Passes.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXDUMPFWDBWDPASS
#include "passes/Passes.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;

namespace {

struct JxDumpFwdBwdPass : cotangent::impl::JxDumpFwdBwdPassBase<JxDumpFwdBwdPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      module.emitError() << "--jx-dump-fwd-bwd: " << error;
      return signalPassFailure();
    }
    bool found = false;
    for (jx::SplitPair pair : jx::getSplitPairs(module)) {
      found = true;
      file->os() << printFwdBwd(pair.fwd, pair.bwd, syntax, width) << "\n";
    }
    if (!found) {
      module.emitError("--jx-dump-fwd-bwd: no forward/backward pair; run --jx-vjp first");
      return signalPassFailure();
    }
    file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace
