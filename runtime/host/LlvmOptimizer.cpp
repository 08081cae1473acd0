//===- LlvmOptimizer.cpp - LLVM's default pipeline, minus what costs only -===//

#include "runtime/host/LlvmOptimizer.h"
#include "runtime/host/FlattenExtractChains.h"
#include "runtime/host/ReturnedFieldPropagation.h"
#include "runtime/host/StructReturnsToOutParams.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace cotangent::host {

bool isHostCode(const llvm::Function &fn) {
  if (fn.isDeclaration())
    return false;
  llvm::SmallVector<std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>> backEdges;
  llvm::FindFunctionBackedges(fn, backEdges);
  return backEdges.empty();
}

/// Whether the pipeline skips `passName` on `unit` (LLVM asks for each pass
/// it does not require).
static bool isSkipped(llvm::StringRef passName, llvm::Any unit) {
  if (passName == "CalledValuePropagationPass")
    return true;
  if (passName != "GVNPass" && passName != "DSEPass" &&
      passName != "SLPVectorizerPass")
    return false;
  const auto *fn = llvm::any_cast<const llvm::Function *>(&unit);
  return fn && isHostCode(**fn);
}

llvm::Error optimizeModule(llvm::Module &module, unsigned optLevel, llvm::TargetMachine *machine) {
  if (optLevel > 3)
    return llvm::createStringError("LLVM optimization level %u is not 0 to 3", optLevel);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks callbacks;
  callbacks.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef passName, llvm::Any unit) { return !isSkipped(passName, unit); });
  // Not all of LLVM's standard instrumentation: it would honor `optnone`.
  llvm::TimePassesHandler timer; // prints when destroyed, under --time-passes
  timer.registerCallbacks(callbacks);

  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = tuning.LoopInterleaving = optLevel > 1;
  tuning.LoopVectorization = tuning.SLPVectorization = optLevel > 1;
  llvm::PassBuilder builder(machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(ReturnedFieldPropagationPass());
      });
  builder.registerOptimizerLastEPCallback(
      [](llvm::ModulePassManager &passes, llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase) {
        passes.addPass(llvm::createModuleToFunctionPassAdaptor(FlattenExtractChainsPass()));
        passes.addPass(StructReturnsToOutParamsPass());
      });

  const llvm::OptimizationLevel levels[] = {llvm::OptimizationLevel::O0,
                                            llvm::OptimizationLevel::O1,
                                            llvm::OptimizationLevel::O2,
                                            llvm::OptimizationLevel::O3};
  llvm::ModulePassManager passes = optLevel == 0
                                       ? builder.buildO0DefaultPipeline(levels[0])
                                       : builder.buildPerModuleDefaultPipeline(levels[optLevel]);
  passes.run(module, mam);
  return llvm::Error::success();
}

} // namespace cotangent::host
