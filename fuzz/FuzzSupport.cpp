//===- FuzzSupport.cpp - what the fuzz harnesses share ---------------------===//

#include "fuzz/FuzzSupport.h"

#include "analysis/PeakOracle.h"
#include "dialects/jx/JxOps.h"
#include "runtime/host/JitEngine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

namespace cotangent::fuzz {

namespace {
/// The last input's diagnostics, printed with a finding.
std::string diagnostics;
} // namespace

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::jx::JxDialect, mlir::func::FuncDialect>();
  mlir::cotangent::registerPeakOracle(registry);
  host::loweringRegistry().appendTo(registry);
  // One thread: libFuzzer measures one input at a time, and a crash's stack
  // is the input's own.
  auto ctx = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects(); // as the runtimes lower (host::lowerClone)
  // Diagnostics are the answer to bad input, not a finding: kept quiet,
  // and shown only with a finding.
  ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  return ctx;
}

mlir::MLIRContext &contextForInput() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static int inputs = 0;
  if (!ctx || ++inputs % kInputsPerContext == 0)
    ctx = makeContext();
  diagnostics.clear();
  return *ctx;
}

bool onlyJxOps(mlir::ModuleOp module) {
  bool ok = true;
  module.walk([&](mlir::Operation *op) {
    llvm::StringRef ns = op->getName().getDialectNamespace();
    if (ns != "jx" && ns != "func" && ns != "builtin")
      ok = false;
  });
  return ok;
}

void violated(const std::string &what, const std::string &program) {
  std::fprintf(stderr, "invariant violated: %s\n--- diagnostics ---\n%s--- program ---\n%s\n",
               what.c_str(), diagnostics.c_str(), program.c_str());
  std::abort();
}

} // namespace cotangent::fuzz
