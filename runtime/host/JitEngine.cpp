//===- JitEngine.cpp - lower a clone, then link its code into the process -===//
//
// The only file of the runtimes that runs LLVM's JIT (ORC's LLJIT). The
// native target is initialized once per process; the engine translates the
// lowered module, adds a packed entry per C interface (ObjectFile.h),
// optimizes it for the host (LlvmOptimizer.h), generates its object files
// on several threads (ParallelCodegen.h) and links them, resolving the
// runtime's entry points from the symbol map bound here, everything else
// from this process's libraries and (memrefCopy) the C runner utils library
// named at build time.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/JitEngine.h"
#include "runtime/host/LlvmOptimizer.h"
#include "runtime/host/ObjectFile.h"
#include "runtime/host/ParallelCodegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>

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

namespace {

/// The functions `llvm.global_ctors` or `llvm.global_dtors` lists, by
/// priority; the list itself is removed and the functions made external, so
/// that the optimizer keeps them and the engine can look them up.
std::vector<std::string> takeStructors(llvm::Module &module, llvm::StringRef listName) {
  llvm::GlobalVariable *list = module.getNamedGlobal(listName);
  if (!list)
    return {};
  std::vector<std::pair<uint64_t, std::string>> found;
  if (auto *entries = llvm::dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer()))
    for (llvm::Use &use : entries->operands()) {
      auto *entry = llvm::cast<llvm::ConstantStruct>(use.get());
      auto *fn = llvm::dyn_cast<llvm::Function>(entry->getOperand(1)->stripPointerCasts());
      if (!fn)
        continue;
      fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
      fn->setVisibility(llvm::GlobalValue::DefaultVisibility);
      found.emplace_back(llvm::cast<llvm::ConstantInt>(entry->getOperand(0))->getZExtValue(),
                         fn->getName().str());
    }
  list->eraseFromParent();
  llvm::stable_sort(found, [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (auto &entry : found)
    names.push_back(std::move(entry.second));
  return names;
}

/// The name compiled code calls for each runtime entry point.
llvm::orc::SymbolMap runtimeSymbols(llvm::orc::LLJIT &jit, const RuntimeSymbols &symbols) {
  llvm::orc::SymbolMap map;
  auto bind = [&](llvm::StringRef name, void *address) {
    map[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                      llvm::JITSymbolFlags::Exported};
  };
  for (const auto &[entry, address] : symbols.entries)
    bind(core::abi::symbol(entry), address);
  for (const auto &[name, address] : symbols.extra)
    bind(name, address);
  return map;
}

} // namespace

JitEngine::JitEngine() = default;

JitEngine::~JitEngine() {
  if (!initialized)
    return;
  for (const std::string &name : destructors)
    if (auto fn = jit->lookup(name))
      fn->toPtr<void (*)()>()();
    else
      llvm::consumeError(fn.takeError());
}

llvm::Expected<JitEngine::PackedEntry> JitEngine::lookupPacked(llvm::StringRef name) {
  auto entry = jit->lookup(packedEntryName(name));
  if (!entry)
    return entry.takeError();
  return entry->toPtr<PackedEntry>();
}

llvm::Error JitEngine::initialize() {
  if (initialized)
    return llvm::Error::success();
  initialized = true;
  for (const std::string &name : constructors) {
    auto fn = jit->lookup(name);
    if (!fn)
      return fn.takeError();
    fn->toPtr<void (*)()>()();
  }
  return llvm::Error::success();
}

llvm::FailureOr<std::unique_ptr<JitEngine>>
JitEngine::create(ModuleOp lowered, const JitTarget &target, Location loc) {
  static bool targetReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    tuneCodeGeneratorForLongBlocks();
    return true;
  }();
  (void)targetReady;
  auto fail = [&](llvm::Error error) {
    emitError(loc, "JIT compilation failed: ") << llvm::toString(std::move(error));
    return failure();
  };

  // The LLVM dialect's translation, when the module was lowered elsewhere.
  lowered->getContext()->appendDialectRegistry(*target.registry);
  auto context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module = translateModuleToLLVMIR(lowered, *context);
  if (!module)
    return fail(llvm::createStringError("cannot translate the module to LLVM IR"));
  // The host's code, at the level asked for; the optimizer uses its costs.
  auto machines = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machines)
    return fail(machines.takeError());
  machines->setCodeGenOptLevel(target.optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                                    : llvm::CodeGenOptLevel::Default);
  // What LLJIT sets for JITLink, which links the objects: small PIC code,
  // external calls through stubs. Left unset, the JIT's default is the large
  // model, whose calls (an address in a register) LLVM's fast instruction
  // selector does not make, so every call of the host code went through
  // SelectionDAG.
  machines->setCodeModel(llvm::CodeModel::Small);
  machines->setRelocationModel(llvm::Reloc::PIC_);
  // COTANGENT_CPU names another CPU to compile for (an older machine of a
  // fleet, or an AVX2-only one emulated on a wider CPU): its own features.
  if (const char *cpu = std::getenv("COTANGENT_CPU"); cpu && *cpu) {
    std::string error;
    const llvm::Triple &triple = machines->getTargetTriple();
    const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        llvmTarget ? llvmTarget->createMCSubtargetInfo(triple, "", "") : nullptr);
    if (!info || !info->isCPUStringValid(cpu))
      return fail(llvm::createStringError(std::string("COTANGENT_CPU='") + cpu +
                                          "' is not a CPU LLVM knows for " + triple.str()));
    machines->setCPU(cpu);
    machines->getFeatures() = llvm::SubtargetFeatures();
  }
  auto machine = machines->createTargetMachine();
  if (!machine)
    return fail(machine.takeError());
  module->setDataLayout((*machine)->createDataLayout());
  module->setTargetTriple((*machine)->getTargetTriple());

  std::unique_ptr<JitEngine> engine(new JitEngine());
  std::vector<std::string> entries;
  for (const llvm::Function &fn : module->functions())
    if (!fn.isDeclaration() && fn.getName().starts_with(kCInterfacePrefix))
      entries.push_back(fn.getName().drop_front(kCInterfacePrefix.size()).str());
  addPackedEntries(*module, entries);
  engine->constructors = takeStructors(*module, "llvm.global_ctors");
  engine->destructors = takeStructors(*module, "llvm.global_dtors");

  if (llvm::Error error = optimizeModule(*module, target.optLevel, machine->get()))
    return fail(std::move(error));
  // --time-passes' timers are process-wide and not made for threads.
  unsigned threads = llvm::TimePassesIsEnabled ? 1
                     : target.codegenThreads   ? target.codegenThreads
                                               : llvm::hardware_concurrency().compute_thread_count();
  auto objects = generateObjects(std::move(module), *machines, threads);
  if (!objects)
    return fail(objects.takeError());

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*machines).create();
  if (!jit)
    return fail(jit.takeError());
  engine->jit = std::move(*jit);
  llvm::orc::JITDylib &main = engine->jit->getMainJITDylib();
  char prefix = engine->jit->getDataLayout().getGlobalPrefix();
  // The runtime's entry points, then this process's libraries (libc, libm,
  // libomp), then MLIR's C runner utils.
  if (llvm::Error error = main.define(
          llvm::orc::absoluteSymbols(runtimeSymbols(*engine->jit, target.symbols))))
    return fail(std::move(error));
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return fail(process.takeError());
  main.addGenerator(std::move(*process));
  auto utils = llvm::orc::DynamicLibrarySearchGenerator::Load(COTANGENT_C_RUNNER_UTILS, prefix);
  if (!utils)
    return fail(utils.takeError());
  main.addGenerator(std::move(*utils));
  for (auto &object : *objects)
    if (llvm::Error error = engine->jit->addObjectFile(std::move(object)))
      return fail(std::move(error));
  return engine;
}

} // namespace cotangent::host
