//===- JitEngine.cpp - lower a clone, then mlir::ExecutionEngine ----------===//
//
// The only file of the runtimes that builds an ExecutionEngine. The native
// target is initialized once per process; the engine optimizes the LLVM IR
// for the host at the target's level (runtime/host/LlvmOptimizer.h) and
// resolves the runtime's entry points from the symbol map registered here,
// everything else (memrefCopy) from the C runner utils library named at
// build time.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/JitEngine.h"
#include "runtime/host/LlvmOptimizer.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace cotangent::host {

const DialectRegistry &loweringRegistry() {
  static DialectRegistry registry = [] {
    DialectRegistry r;
    registerAllDialects(r);
    registerAllExtensions(r);
    registerAllToLLVMIRTranslations(r);
    return r;
  }();
  return registry;
}

llvm::FailureOr<OwningOpRef<ModuleOp>> lowerClone(ModuleOp module, const JitTarget &target) {
  MLIRContext *ctx = module->getContext();
  ctx->appendDialectRegistry(*target.registry);
  ctx->loadAllAvailableDialects();
  OwningOpRef<ModuleOp> lowered = module.clone();
  if (!target.entryPoints.empty())
    for (auto fn : lowered->getOps<func::FuncOp>())
      if (fn.isPublic() && !llvm::is_contained(target.entryPoints, fn.getSymName()))
        fn.setPrivate();
  // A traced or parsed module was verified when it was made, but a caller
  // may have changed it since: a located error, not a pass's crash.
  if (failed(verify(*lowered)))
    return failure();
  PassManager pm(ctx, ModuleOp::getOperationName());
  pm.enableVerifier(target.verifyEachPass);
  if (target.timePasses)
    pm.enableTiming();
  target.buildPipeline(pm);
  if (failed(pm.run(*lowered)))
    return failure();
  // Without the checks after each pass, the output is still checked once.
  if (!target.verifyEachPass && failed(verify(*lowered)))
    return failure();
  return lowered;
}

/// A compiled step's functions take hundreds of memref arguments and return
/// as many: their entry and exit blocks are thousands of loads and stores in
/// a row, where two code generator steps take time quadratic in the block's
/// length (post-RA list scheduling; the DAG combiner's merging of
/// consecutive stores), most of a 64-layer MLP's compile time. Neither pays
/// for itself here: the hot loops are vectorized in the IR, and the cores
/// that run them schedule out of order. A user's own setting of either flag
/// on the command line wins.
static void tuneCodeGeneratorForLongBlocks() {
  auto options = llvm::cl::getRegisteredOptions();
  for (llvm::StringRef name : {"post-RA-scheduler", "combiner-store-merging"}) {
    llvm::cl::Option *option = options.lookup(name);
    if (option && option->getNumOccurrences() == 0)
      option->addOccurrence(1, name, "false"); // position > 0: "given"
  }
}

llvm::FailureOr<std::unique_ptr<ExecutionEngine>>
createEngine(ModuleOp lowered, const JitTarget &target, Location loc) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    tuneCodeGeneratorForLongBlocks();
    return true;
  }();
  (void)initialized;
  // The optimizer's cost model is the host's, whose code the JIT generates.
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host)
    return emitError(loc, "JIT compilation failed: ") << llvm::toString(host.takeError()),
           failure();
  auto machine = host->createTargetMachine();
  if (!machine)
    return emitError(loc, "JIT compilation failed: ") << llvm::toString(machine.takeError()),
           failure();
  // The options hold a function_ref: the transformer outlives create().
  std::function<llvm::Error(llvm::Module *)> transformer = [&](llvm::Module *module) {
    return optimizeModule(*module, target.optLevel, machine->get());
  };
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = target.optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                                    : llvm::CodeGenOptLevel::Default;
  llvm::SmallVector<llvm::StringRef> libs{COTANGENT_C_RUNNER_UTILS};
  options.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(lowered, options);
  if (!engine)
    return emitError(loc, "JIT compilation failed: ") << llvm::toString(engine.takeError()),
           failure();
  const RuntimeSymbols &symbols = target.symbols;
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto bind = [&](llvm::StringRef name, void *address) {
      if (address) // null: the name comes with `more`
        map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                               llvm::JITSymbolFlags::Exported};
    };
    bind("_mlir_memref_to_llvm_alloc", symbols.alloc);
    bind("_mlir_memref_to_llvm_free", symbols.free);
    bind("_mlir_ciface_cotangent_batch_matmul_f32", symbols.batchMatmulF32);
    bind("_mlir_ciface_cotangent_batch_matmul_f64", symbols.batchMatmulF64);
    for (const auto &[name, address] : symbols.more)
      bind(name, address);
    return map;
  });
  return std::move(*engine);
}

} // namespace cotangent::host
