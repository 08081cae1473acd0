//===- cotangent-run.cpp - run jx functions compiled for the CPU ----------===//
//
// cotangent-run FILE.mlir --fn NAME [--input a.npy]... [--seed N]
//     [--output-dir DIR] [--split] [--vjp] [--emit-object out.o --emit-header out.h]
//     [--target=cpu|cuda] [--chip sm_80,sm_90] [--vector-bytes 0|4|8|16]
//
// Compiles the module with jx-lower-to-llvm and the JIT, runs @NAME on the
// inputs (.npy files, or seeded random values), and prints each result's
// summary, the wall time and the bytes compiled code allocated. With
// --split it runs @NAME_fwd, keeps the residuals, then @NAME_bwd on output
// cotangents of ones, and reports the residual bytes; --vjp first runs
// --jx-raise-composites --jx-vjp --jx-remat on the module to make that pair
// (residuals outside every remat region by --default-policy). With --target=cuda
// it runs on the GPU, or with --emit-object writes a self-contained step
// (host code, kernels for --chip, manifest) for tools/cotangent-step.
//
//===----------------------------------------------------------------------===//

#include "analysis/MemoryPlan.h"
#include "analysis/PeakOracle.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"
#include "runtime/core/SplitReport.h"
#include "runtime/cpu/BlasCore.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/cpu/Threads.h"
#include "runtime/host/JitEngine.h"
#include "runtime/host/SplitContract.h"
#ifdef COTANGENT_HAVE_CUDA
#include "runtime/cuda/CudaModule.h"
#endif
#include "tools/common/CheckFinite.h"
#include "tools/common/CommandLine.h"
#include "tools/common/MemoryLimit.h"
#include "tools/common/FunctionNames.h"
#include "tools/common/NestingDepth.h"
#include "runtime/interpreter/TensorNpy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace mlir;
using ::cotangent::interp::Tensor;
namespace cl = llvm::cl;

/// Only the tool's own flags show in --help (libLLVM registers hundreds).
static cl::OptionCategory toolOptions("cotangent-run options");
static cl::opt<std::string> inputFile(cl::cat(toolOptions), cl::Positional,
                                      cl::desc("<input .mlir>"), cl::Required);
static cl::opt<std::string> fnName(cl::cat(toolOptions), "fn", cl::desc("Function to run"),
                                   cl::value_desc("name"));
static cl::list<std::string> inputs(cl::cat(toolOptions), "input",
                                    cl::desc("An argument as a .npy file; all of them, in order "
                                             "(none: seeded random arguments)"),
                                    cl::value_desc("file.npy"));
static ::cotangent::tools::UnsignedOpt<0> seed(cl::cat(toolOptions), "seed",
                                               cl::desc("Seed of the random arguments"),
                                               cl::init(0));
static cl::opt<std::string> outputDir(cl::cat(toolOptions), "output-dir",
                                      cl::desc("Write results as .npy files here"),
                                      cl::value_desc("dir"));
static cl::opt<bool> split(cl::cat(toolOptions), "split",
                           cl::desc("Run NAME_fwd, hold the residuals, then NAME_bwd"));
static cl::opt<bool> vjp(
    cl::cat(toolOptions), "vjp",
    cl::desc("Run --jx-vjp --jx-remat on the module first (after --jx-raise-composites)"));
static cl::opt<bool> raiseComposites(
    cl::cat(toolOptions), "raise-composites",
    cl::desc("With --vjp: first raise JAX's attention and cross-entropy into the fused ops "
             "(--jx-raise-composites; default on, =false keeps the program as written)"),
    cl::init(true));
static cl::opt<std::string> defaultPolicy(
    cl::cat(toolOptions), "default-policy",
    cl::desc("With --vjp: the remat policy of residuals outside every jx.remat region "
             "(default min_residual_bytes; everything_saveable keeps jax.grad's)"),
    cl::value_desc("policy"), cl::init(mlir::cotangent::kCompileDefaultPolicy.str()));
static cl::opt<std::string> functionPolicy(
    cl::cat(toolOptions), "function-policy",
    cl::desc("With --vjp: put the whole function under this remat policy first "
             "(--jx-remat-function), e.g. memory_budget(1000000) or nothing_saveable"),
    cl::init(""));
static cl::opt<int64_t> memoryLimit(
    cl::cat(toolOptions), "memory-limit",
    cl::desc("With --split: refuse to run a step whose predicted peak exceeds this many bytes "
             "(default: the process's limit, from its rlimits, cgroup and the machine's memory)"),
    cl::init(0));
static cl::opt<std::string> emitObject(cl::cat(toolOptions), "emit-object",
                                       cl::desc("Write an object file"), cl::value_desc("file.o"));
static cl::opt<std::string> emitHeader(cl::cat(toolOptions), "emit-header",
                                       cl::desc("Write a C header"), cl::value_desc("file.h"));
static ::cotangent::tools::UnsignedOpt<0> numValues(cl::cat(toolOptions), "values",
                                                    cl::desc("Values printed per result"),
                                                    cl::init(4));
static cl::opt<std::string> chips(cl::cat(toolOptions), "chip",
                                  cl::desc("With --target=cuda --emit-object: the GPU "
                                           "architectures of the step's fat binary"),
                                  cl::value_desc("sm_80,sm_90"), cl::init("sm_80,sm_90"));
static ::cotangent::tools::UnsignedOpt<1, 100000> repeat(
    cl::cat(toolOptions), "repeat", cl::desc("Timed runs (the time printed: min and median)"),
    cl::init(1));
static ::cotangent::tools::UnsignedOpt<0, 100000> warmup(
    cl::cat(toolOptions), "warmup", cl::desc("Untimed runs before the timed ones"), cl::init(0));
/// --threads: libLLVM already registers a hidden, undocumented option of that
/// name, which this one replaces (see main).
static ::cotangent::tools::UnsignedOpt<1, 4096> *threads = nullptr;
static cl::opt<bool> mlirTiming(
    cl::cat(toolOptions), "mlir-timing",
    cl::desc("Print the time each pass of the CPU lowering takes (LLVM's own --time-passes: its "
             "optimizer and code generator)"));
static cl::opt<bool> checkFiniteValues(
    cl::cat(toolOptions), "check-finite",
    cl::desc("Report the NaN and Inf in the arguments (warnings) and results (errors); "
             "exit 1 when a result holds any"));
enum class VectorBytes : int64_t { None = 0, Four = 4, Eight = 8, Sixteen = 16 };
static cl::opt<VectorBytes, false, ::cotangent::tools::ChoiceParser<VectorBytes>> vectorBytes(
    cl::cat(toolOptions), "vector-bytes",
    cl::desc("With --target=cuda: bytes each thread of an elementwise kernel loads and stores "
             "per operand at once (0: one element)"),
    cl::values(clEnumValN(VectorBytes::None, "0", "one element per thread"),
               clEnumValN(VectorBytes::Four, "4", "4-byte accesses"),
               clEnumValN(VectorBytes::Eight, "8", "8-byte vectors"),
               clEnumValN(VectorBytes::Sixteen, "16", "16-byte vectors (the default)")),
    cl::init(VectorBytes::Sixteen));
enum class Target { Cpu, Cuda };
static cl::opt<Target, false, ::cotangent::tools::ChoiceParser<Target>>
    target(cl::cat(toolOptions), "target", cl::desc("Where to run (default cpu)"),
           cl::values(clEnumValN(Target::Cpu, "cpu", "compiled for this CPU"),
                      clEnumValN(Target::Cuda, "cuda", "compiled for an NVIDIA GPU")),
           cl::init(Target::Cpu));

static std::string typeName(RankedTensorType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  Type e = t.getElementType();
  if (e.isInteger(1))
    os << "bool";
  else if (e.isInteger())
    os << "i" << e.getIntOrFloatBitWidth();
  else
    os << e;
  os << "[";
  llvm::interleave(t.getShape(), os, ",");
  os << "]";
  return s;
}

static void printSummary(llvm::raw_ostream &os, llvm::StringRef label, const Tensor &t) {
  os << ::cotangent::core::valueSummary(
      label, typeName(t.getType()), t.getNumElements(),
      [&](int64_t i) { return t.isFloat() ? t.getDouble(i) : static_cast<double>(t.getInt(i)); },
      numValues);
}

static Tensor randomTensor(RankedTensorType type, std::mt19937_64 &rng) {
  std::vector<double> values(type.getNumElements());
  Type e = type.getElementType();
  for (double &v : values) {
    if (isa<FloatType>(e))
      v = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
    else if (e.isInteger(1))
      v = static_cast<double>(rng() & 1);
    else
      v = static_cast<double>(std::uniform_int_distribution<int>(-5, 5)(rng));
  }
  return Tensor::fromDoubles(type, values);
}

static LogicalResult writeOutputs(llvm::StringRef prefix, llvm::ArrayRef<Tensor> tensors,
                                  Location loc) {
  if (outputDir.empty())
    return success();
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return emitError(loc) << "cannot create " << outputDir << ": " << ec.message();
  for (auto [i, t] : llvm::enumerate(tensors)) {
    llvm::SmallString<128> path(outputDir);
    llvm::sys::path::append(path, (prefix + llvm::Twine(i) + ".npy").str());
    auto bytes = ::cotangent::npy::serialize(t);
    if (!bytes)
      return emitError(loc) << path << ": " << llvm::toString(bytes.takeError());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return emitError(loc) << "cannot write " << path << ": " << ec.message();
    os << *bytes;
  }
  return success();
}

/// How --vjp differentiates: JAX's patterns raised into composites (unless
/// --raise-composites=false), the whole function under a policy (if any),
/// then --jx-vjp, then --jx-remat with a default policy.
struct Policies {
  std::string function, byDefault;
};

static LogicalResult differentiate(ModuleOp module, StringRef name, const Policies &policies) {
  PassManager pm(module.getContext());
  if (raiseComposites)
    pm.addPass(mlir::cotangent::createJxRaiseCompositesPass());
  if (!policies.function.empty())
    pm.addPass(mlir::cotangent::createJxRematFunctionPass(
        {.policy = policies.function, .function = name.str()}));
  pm.addPass(mlir::cotangent::createJxVjpPass());
  pm.addPass(mlir::cotangent::createJxRematPass({.defaultPolicy = policies.byDefault}));
  return pm.run(module);
}

/// The predicted peak of split @name of `undifferentiated` under
/// `policies`, if it differentiates and plans (diagnostics silenced).
static std::optional<int64_t> peakUnder(ModuleOp undifferentiated, StringRef name,
                                        const Policies &policies) {
  ScopedDiagnosticHandler quiet(undifferentiated.getContext(), [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> copy = undifferentiated.clone();
  if (failed(differentiate(*copy, name, policies)))
    return std::nullopt;
  auto plans = mlir::cotangent::predictMemoryPlans(*copy, name);
  if (failed(plans) || plans->empty())
    return std::nullopt;
  return plans->front().peakBytes;
}

/// Fails, before anything runs, where the plan's peak exceeds the memory
/// limit: with the peak, the limit and a policy that would fit (the whole
/// function under a memory_budget at the limit, else nothing_saveable),
/// tried on `undifferentiated` when --vjp made the split.
static LogicalResult checkFits(const mlir::cotangent::MemoryPlan &plan, func::FuncOp fwd,
                               ModuleOp undifferentiated) {
  std::optional<::cotangent::tools::MemoryLimit> limit =
      memoryLimit > 0 ? std::optional(::cotangent::tools::MemoryLimit{memoryLimit, "--memory-limit"})
                      : ::cotangent::tools::processMemoryLimit();
  if (!limit || plan.peakBytes <= limit->bytes)
    return success();
  InFlightDiagnostic error = emitError(fwd.getLoc())
                             << "@" << plan.name << "'s predicted peak is " << plan.peakBytes
                             << " bytes, above the memory limit of " << limit->bytes << " bytes ("
                             << limit->source << "): it would run out of memory";
  std::string budget = "memory_budget(" + std::to_string(limit->bytes) + ")";
  if (!undifferentiated) {
    error << "; recompute more: --vjp with --function-policy=" << budget;
    return error;
  }
  for (const Policies &policies :
       {Policies{budget, defaultPolicy}, Policies{"", "nothing_saveable"}}) {
    std::optional<int64_t> peak = peakUnder(undifferentiated, plan.name, policies);
    if (peak && *peak <= limit->bytes) {
      error << "; "
            << (policies.function.empty() ? "--default-policy=" + policies.byDefault
                                          : "--function-policy=" + policies.function)
            << " fits: its predicted peak is " << *peak << " bytes";
      return error;
    }
  }
  std::optional<int64_t> least = peakUnder(undifferentiated, plan.name, {"", "nothing_saveable"});
  error << "; no policy fits";
  if (least)
    error << ": recomputing everything (--default-policy=nothing_saveable) still peaks at "
          << *least << " bytes";
  return error;
}

static LogicalResult run(MLIRContext &ctx, llvm::SourceMgr &sourceMgr) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return failure();
  Location loc = module->getLoc();
  if (defaultPolicy.getNumOccurrences() && !vjp)
    return emitError(loc) << "--default-policy is for --vjp (it is --jx-remat's)";
  if (raiseComposites.getNumOccurrences() && !vjp)
    return emitError(loc) << "--raise-composites is for --vjp (it runs before --jx-vjp)";
  if (memoryLimit < 0)
    return emitError(loc) << "--memory-limit must be a number of bytes, got "
                          << static_cast<int64_t>(memoryLimit.getValue());
  // Before the VJP: where the plan does not fit, other policies are tried on it.
  OwningOpRef<ModuleOp> undifferentiated = vjp ? module->clone() : nullptr;
  if (functionPolicy.getNumOccurrences() && !vjp)
    return emitError(loc) << "--function-policy is for --vjp (it is --jx-remat-function's)";
  if (vjp && failed(differentiate(*module, fnName, {functionPolicy, defaultPolicy})))
    return failure();
  // With --split, @NAME names the pair: its forward takes the arguments.
  std::optional<jx::SplitPair> pair;
  if (split && !fnName.empty()) {
    pair = jx::lookupSplitPair(*module, fnName);
    if (!pair)
      return emitError(loc) << "no forward/backward pair of @" << fnName << " in " << inputFile
                            << (vjp ? "" : " (pass --vjp to make it)") << "; "
                            << ::cotangent::tools::describeFunctions(*module);
  }
  std::string entry = pair ? pair->fwd.getSymName().str() : fnName.getValue();
  func::FuncOp fn;
  if (!fnName.empty()) {
    fn = module->lookupSymbol<func::FuncOp>(entry);
    if (!fn)
      return emitError(loc) << "no function @" << entry << " in " << inputFile << "; "
                            << ::cotangent::tools::describeFunctions(*module);
  } else if (emitObject.empty() && emitHeader.empty()) {
    return emitError(loc) << "nothing to do: give --fn NAME, --emit-object or --emit-header";
  }

  // Arguments: .npy files in order, or seeded random values.
  std::vector<Tensor> args;
  if (fn) {
    auto argTypes = fn.getArgumentTypes();
    if (!inputs.empty() && inputs.size() != argTypes.size())
      return emitError(fn.getLoc()) << "@" << entry << " takes " << argTypes.size()
                                    << " arguments, " << inputs.size() << " --input files given";
    std::mt19937_64 rng(seed);
    for (auto [i, t] : llvm::enumerate(argTypes)) {
      auto type = dyn_cast<RankedTensorType>(t);
      if (!type || !::cotangent::interp::isSupportedType(type))
        return emitError(fn.getLoc()) << "argument " << i << " has unsupported type " << t;
      if (inputs.empty()) {
        args.push_back(randomTensor(type, rng));
        continue;
      }
      auto buffer = llvm::MemoryBuffer::getFile(inputs[i], /*IsText=*/false);
      Location fileLoc = FileLineColLoc::get(&ctx, inputs[i], 0, 0);
      if (!buffer)
        return emitError(fileLoc) << "cannot read: " << buffer.getError().message();
      auto tensor = ::cotangent::npy::parse(&ctx, (*buffer)->getBuffer());
      if (!tensor)
        return emitError(fileLoc) << llvm::toString(tensor.takeError());
      if (tensor->getType() != type)
        return emitError(fileLoc) << "holds " << tensor->getType() << " but argument " << i
                                  << " of @" << entry << " is " << type;
      args.push_back(*tensor);
    }
  }

  // One compiled module, CPU or GPU: everything after compiling (the run, the
  // plan, what is printed and written) is the same on both.
  std::unique_ptr<::cotangent::host::CompiledModule> compiled;
  mlir::cotangent::MemoryPlanTarget planTarget = mlir::cotangent::MemoryPlanTarget::Cpu;
  if (target == Target::Cuda) {
#ifdef COTANGENT_HAVE_CUDA
    if (!emitHeader.empty())
      return emitError(loc) << "--emit-header is for --target=cpu: a GPU step's object "
                               "describes itself (cotangent_manifest(), see cotangent-step)";
    if (mlirTiming)
      return emitError(loc) << "--mlir-timing is for --target=cpu (the GPU pipeline: "
                               "cotangent-opt --jx-to-nvvm --mlir-timing)";
    ::cotangent::cuda::CompileOptions gpu{
        .vectorBytes = static_cast<int64_t>(vectorBytes.getValue())};
    // A step for another machine: nothing runs here, no device is needed.
    if (!emitObject.empty()) {
      gpu.chip = chips;
      return ::cotangent::cuda::emitStepObject(*module, emitObject, gpu);
    }
    if (!fn)
      return emitError(loc) << "--target=cuda needs --fn NAME";
    auto gpuModule = ::cotangent::cuda::CudaModule::compile(*module, gpu);
    if (failed(gpuModule))
      return failure();
    compiled = std::move(*gpuModule);
    planTarget = mlir::cotangent::MemoryPlanTarget::Cuda;
#else
    return emitError(loc)
           << "--target=cuda: this build has no CUDA runtime (CUDA toolkit not found)";
#endif
  } else if (vectorBytes.getNumOccurrences() || chips.getNumOccurrences()) {
    return emitError(loc) << "--vector-bytes and --chip are for --target=cuda";
  }
  // The memory plan is predicted before anything runs, on the same module,
  // as the target's runtime lowers it.
  std::optional<mlir::cotangent::MemoryPlan> plan;
  if (split && pair) {
    module->getContext()->loadAllAvailableDialects(); // registered in main
    auto plans =
        mlir::cotangent::predictMemoryPlans(*module, jx::getSplitName(*pair), planTarget);
    if (failed(plans))
      return failure();
    if (!plans->empty())
      plan = plans->front();
    // The memory limit is the host's (the device's runs out with an error).
    if (plan && !compiled && failed(checkFits(*plan, pair->fwd, undifferentiated.get())))
      return failure();
  }
  if (!compiled) {
    // What runs is all that is compiled; an object file or header holds
    // every public function.
    ::cotangent::cpu::CompileOptions options;
    options.timePasses = mlirTiming;
    if (fn && emitObject.empty() && emitHeader.empty())
      options.entryPoints = split && pair
                                ? std::vector<std::string>{pair->fwd.getSymName().str(),
                                                           pair->bwd.getSymName().str()}
                                : std::vector<std::string>{entry};
    auto cpuModule = ::cotangent::cpu::CpuModule::compile(*module, options);
    if (failed(cpuModule))
      return failure();
    if (threads->getNumOccurrences())
      ::cotangent::cpu::setThreads(*threads);
    if (!emitObject.empty() && failed((*cpuModule)->emitObject(emitObject)))
      return failure();
    if (!emitHeader.empty() && failed((*cpuModule)->emitHeader(emitHeader)))
      return failure();
    if (!fn)
      return success();
    compiled = std::move(*cpuModule);
  }

  llvm::raw_ostream &os = llvm::outs();
  if (!split) {
    auto repeated = ::cotangent::host::runRepeated(
        warmup, repeat,
        [&] { return compiled->call(entry, compiled->freshArguments(entry, args)); });
    if (failed(repeated))
      return failure();
    auto *result = &repeated->first;
    os << "@" << entry << ": " << result->results.size() << " results\n";
    for (auto [i, t] : llvm::enumerate(result->results))
      printSummary(os, ("result " + llvm::Twine(i)).str(), t);
    ::cotangent::host::printTiming(os, repeated->second, warmup);
    os << "live bytes at return: " << result->stats.liveBytes << "\n";
    os << "peak bytes: " << result->stats.peakBytes << "\n";
    if (failed(writeOutputs("result", result->results, loc)))
      return failure();
    return success(!checkFiniteValues ||
                   succeeded(::cotangent::tools::checkFinite(fn.getLoc(), args, "result",
                                                             result->results)));
  }

  // Cotangents of ones for every primal output.
  std::vector<Tensor> cotangents;
  for (Type t : fn.getResultTypes().take_front(jx::numPrimalResults(pair->fwd))) {
    auto type = cast<RankedTensorType>(t);
    cotangents.push_back(
        Tensor::fromDoubles(type, std::vector<double>(type.getNumElements(), 1.0)));
  }
  auto repeated = ::cotangent::host::runRepeated(warmup, repeat, [&] {
    return compiled->runSplit(jx::getSplitName(*pair), args, cotangents);
  });
  if (failed(repeated))
    return failure();
  auto *result = &repeated->first;
  os << "@" << pair->fwd.getSymName() << " / @" << pair->bwd.getSymName() << ": "
     << result->outputs.size()
     << " outputs, " << result->numResiduals << " residuals, " << result->gradients.size()
     << " gradients\n";
  for (auto [i, t] : llvm::enumerate(result->outputs))
    printSummary(os, ("output " + llvm::Twine(i)).str(), t);
  for (auto [i, t] : llvm::enumerate(result->gradients))
    printSummary(os, ("gradient " + llvm::Twine(i)).str(), t);
  ::cotangent::host::printTiming(os, repeated->second, warmup);
  os << ::cotangent::core::splitBytesReport(*result);
  if (plan) {
    os << "predicted peak bytes: " << plan->peakBytes;
    if (plan->paths > 1)
      os << " (the largest of " << plan->paths << " paths through data-dependent branches; "
         << "the smallest " << plan->minPeakBytes << ")";
    os << "\n";
  }
  if (failed(writeOutputs("output", result->outputs, loc)) ||
      failed(writeOutputs("gradient", result->gradients, loc)))
    return failure();
  if (!checkFiniteValues)
    return success();
  bool outputs = succeeded(::cotangent::tools::checkFinite(fn.getLoc(), args, "output", result->outputs));
  bool gradients = succeeded(::cotangent::tools::checkFinite(fn.getLoc(), {}, "gradient", result->gradients));
  return success(outputs && gradients);
}

int main(int argc, char **argv) {
  // OpenBLAS's own detection can fall back to much narrower kernels than the
  // CPU runs; unless OPENBLAS_CORETYPE says otherwise, run with the CPU's.
  if (!::cotangent::cpu::reexecWithWiderBlasKernels(argv))
    return 1;
  llvm::InitLLVM init(argc, argv);
  if (cl::Option *taken = cl::getRegisteredOptions().lookup("threads"))
    taken->removeArgument();
  static ::cotangent::tools::UnsignedOpt<1, 4096> threadsOpt(
      cl::cat(toolOptions), "threads",
      cl::desc("CPU threads for parallel loops and BLAS, 1 to 4096 (default: "
               "COTANGENT_NUM_THREADS, else the cores this process may use)"),
      cl::init(1));
  threads = &threadsOpt;
  ::cotangent::tools::setUpCommandLine(toolOptions);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "CPU matmuls: " << ::cotangent::cpu::matmulLibraryName() << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "Cotangent: run jx functions compiled for the CPU\n");

  DialectRegistry registry;
  registry.insert<jx::JxDialect, func::FuncDialect>();
  // memory_budget policies are solved against the memory plan.
  mlir::cotangent::registerPeakOracle(registry);
  ::cotangent::host::loweringRegistry().appendTo(registry);
  MLIRContext ctx(registry);
  llvm::SourceMgr sourceMgr;
  std::string error;
  auto file = mlir::openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "cotangent-run: " << error << "\n";
    return 1;
  }
  if (!::cotangent::tools::checkNestingDepth(*file, llvm::errs()))
    return 1;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  return failed(run(ctx, sourceMgr)) ? 1 : 0;
}
