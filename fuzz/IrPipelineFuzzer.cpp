//===- IrPipelineFuzzer.cpp - fuzz-ir-pipeline: IR text through every stage ===//
//
// Arbitrary bytes as jx IR, taken as far as they get: the nesting check the
// tools run first, parse (which verifies), --jx-vjp, --jx-remat, the CPU's
// jx-lower-to-llvm, and the translation to LLVM IR; each stage only when the
// previous one succeeded. Errors are fine; a crash, a hang, a sanitizer
// report or a verifier failure after a pass said it succeeded is a finding.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzSupport.h"

#include "passes/Passes.h"
#include "runtime/cpu/CpuRuntime.h"
#include "tools/common/NestingDepth.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// Runs `build`'s passes on `module`; a pass that succeeds must leave IR
/// that verifies (the pass manager verifies after each pass, so this
/// catches a verifier that crashes rather than one that fails).
bool runStage(MLIRContext &ctx, ModuleOp module, llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(&ctx, ModuleOp::getOperationName());
  build(pm);
  return succeeded(pm.run(module));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext *ctx = &::cotangent::fuzz::contextForInput();

  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // A copy: MLIR's lexer reads up to a terminating NUL, which files read by
  // the tools have and the fuzzer's bytes do not.
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(text, "input.mlir");
  std::string refused;
  llvm::raw_string_ostream errs(refused);
  if (!::cotangent::tools::checkNestingDepth(*buffer, errs))
    return 0;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, ctx);
  if (!module || !::cotangent::fuzz::onlyJxOps(*module))
    return 0;

  if (!runStage(*ctx, *module, [](OpPassManager &pm) {
        pm.addPass(mlir::cotangent::createJxVjpPass());
      }))
    return 0;
  if (!runStage(*ctx, *module, [](OpPassManager &pm) {
        // memory_budget's solver gets a short budget: a slow input is a
        // timeout finding, and the solver's time limit is its own test.
        mlir::cotangent::JxRematPassOptions options;
        options.budgetSeconds = 0.5;
        pm.addPass(mlir::cotangent::createJxRematPass(options));
      }))
    return 0;
  if (!runStage(*ctx, *module, [](OpPassManager &pm) {
        ::cotangent::cpu::cpuTarget().buildPipeline(pm);
      }))
    return 0;
  llvm::LLVMContext llvmContext;
  (void)translateModuleToLLVMIR(*module, llvmContext);
  return 0;
}
