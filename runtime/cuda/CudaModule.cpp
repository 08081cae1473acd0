//===- CudaModule.cpp - compile with jx-to-nvvm, JIT the host, call -------===//
//
// compile(): the device must exist (its compute capability picks the chip);
// a clone of the module is lowered with jx-to-nvvm (cubin), and the host
// LLVM IR is JIT-compiled with the runtime's entry points bound to the names
// compiled code calls: the GPU runtime wrappers' mgpu* functions, the
// allocation hooks of finalize-memref-to-llvm and the batched matmuls of
// jx-matmul-to-blas (here cuBLAS). The engine's initializers then load the
// embedded kernels. This is the only file that includes the LLVM IR
// translations and the ExecutionEngine.
//
// call(): arguments are copied into counted managed buffers (their bytes
// are excluded from the reported peak), results are copied back to host
// tensors and freed. runSplit() offloads the residuals that --jx-remat
// marked pinned_host: after @f_fwd each is copied to pinned host memory on
// the offload stream and its device buffer freed; before @f_bwd it is
// copied back into a fresh device buffer.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/CudaRuntime.h"

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstring>
#include <set>

using namespace mlir;
using namespace ::cotangent::cuda;

namespace {

DialectRegistry &loweringRegistry() {
  static DialectRegistry registry = [] {
    DialectRegistry r;
    registerAllDialects(r);
    registerAllExtensions(r);
    registerAllToLLVMIRTranslations(r);
    registerAllGPUToLLVMIRTranslations(r);
    return r;
  }();
  return registry;
}

LogicalResult lower(ModuleOp module, StringRef chip, bool cublas) {
  MLIRContext *ctx = module->getContext();
  ctx->appendDialectRegistry(loweringRegistry());
  ctx->loadAllAvailableDialects();
  PassManager pm(ctx, ModuleOp::getOperationName());
  mlir::cotangent::JxToNVVMOptions options;
  options.chip = chip.str();
  options.format = "bin";
  options.cublas = cublas;
  mlir::cotangent::buildJxToNVVMPipeline(pm, options);
  return pm.run(module);
}

llvm::Expected<std::unique_ptr<ExecutionEngine>> makeEngine(ModuleOp lowered) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  // The options hold a function_ref: the transformer must outlive create().
  static auto transformer = makeOptimizingTransformer(2, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  llvm::SmallVector<llvm::StringRef> libs{COTANGENT_C_RUNNER_UTILS};
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(lowered, engineOptions);
  if (!engine)
    return engine.takeError();
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](const char *name, auto *fn) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(reinterpret_cast<void *>(fn)),
                             llvm::JITSymbolFlags::Exported};
    };
    add("_mlir_memref_to_llvm_alloc", &cotangent_cuda_alloc);
    add("_mlir_memref_to_llvm_free", &cotangent_cuda_free);
    add("_mlir_ciface_cotangent_batch_matmul_f32", &cotangent_cuda_batch_matmul_f32);
    add("_mlir_ciface_cotangent_batch_matmul_f64", &cotangent_cuda_batch_matmul_f64);
#define COTANGENT_MGPU(name) add(#name, &cotangent_##name);
    COTANGENT_MGPU(mgpuModuleLoad)
    COTANGENT_MGPU(mgpuModuleLoadJIT)
    COTANGENT_MGPU(mgpuModuleUnload)
    COTANGENT_MGPU(mgpuModuleGetFunction)
    COTANGENT_MGPU(mgpuLaunchKernel)
    COTANGENT_MGPU(mgpuStreamCreate)
    COTANGENT_MGPU(mgpuStreamDestroy)
    COTANGENT_MGPU(mgpuStreamSynchronize)
    COTANGENT_MGPU(mgpuStreamWaitEvent)
    COTANGENT_MGPU(mgpuEventCreate)
    COTANGENT_MGPU(mgpuEventDestroy)
    COTANGENT_MGPU(mgpuEventSynchronize)
    COTANGENT_MGPU(mgpuEventRecord)
    COTANGENT_MGPU(mgpuMemAlloc)
    COTANGENT_MGPU(mgpuMemFree)
    COTANGENT_MGPU(mgpuMemcpy)
    COTANGENT_MGPU(mgpuMemset32)
    COTANGENT_MGPU(mgpuMemset16)
    COTANGENT_MGPU(mgpuSetDefaultDevice)
#undef COTANGENT_MGPU
    return map;
  });
  return engine;
}

int64_t descriptorWords(int64_t rank) { return 3 + 2 * rank; }

/// A counted managed buffer holding `t`, as descriptor words.
std::vector<int64_t> upload(const Tensor &t) {
  int64_t rank = t.getRank();
  std::vector<int64_t> words(descriptorWords(rank));
  void *data = cotangent_cuda_alloc(t.getByteSize());
  if (data && t.getByteSize() > 0)
    std::memcpy(data, t.data(), t.getByteSize());
  words[0] = words[1] = reinterpret_cast<int64_t>(data);
  for (int64_t i = rank - 1, stride = 1; i >= 0; --i) {
    words[3 + i] = t.getShape()[i];
    words[3 + rank + i] = stride;
    stride *= t.getShape()[i];
  }
  return words;
}

Tensor download(RankedTensorType type, const int64_t *words) {
  Tensor t(type);
  int64_t width = ::cotangent::interp::getElementByteWidth(t.getElementKind());
  int64_t rank = type.getRank();
  const char *base = reinterpret_cast<const char *>(words[1]) + words[2] * width;
  for (int64_t flat = 0, n = type.getNumElements(); flat < n; ++flat) {
    int64_t rest = flat, offset = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      offset += (rest % type.getDimSize(i)) * words[3 + rank + i];
      rest /= type.getDimSize(i);
    }
    std::memcpy(t.data() + flat * width, base + offset * width, width);
  }
  return t;
}

void freeAll(const std::set<void *> &blocks) {
  for (void *p : blocks)
    if (cotangent_cuda_block_size(p) >= 0)
      cotangent_cuda_free(p);
}

LogicalResult runtimeError(Location loc, StringRef what) {
  std::string message = cotangent_cuda_last_error();
  cotangent_cuda_clear_error();
  return emitError(loc) << what << ": " << message;
}

} // namespace

CudaModule::~CudaModule() = default;

Location CudaModule::loc() const { return const_cast<CudaModule *>(this)->lowered->getLoc(); }

LogicalResult(::cotangent::cuda::compileHostCode)(ModuleOp module, StringRef chip) {
  OwningOpRef<ModuleOp> lowered = module.clone();
  if (failed(lower(*lowered, chip, /*cublas=*/true)))
    return failure();
  auto engine = makeEngine(*lowered);
  if (!engine)
    return emitError(module.getLoc(), "JIT compilation failed: ")
           << llvm::toString(engine.takeError());
  // Compiles the host code; the initializers (which load kernels) do not run.
  for (auto fn : lowered->getOps<LLVM::LLVMFuncOp>())
    if (fn.getName().starts_with("_mlir_ciface_") && !fn.isExternal())
      if (auto entry = (*engine)->lookupPacked(fn.getName()); !entry)
        return emitError(module.getLoc(), "JIT lookup failed: ")
               << llvm::toString(entry.takeError());
  return success();
}

llvm::FailureOr<std::unique_ptr<CudaModule>> CudaModule::compile(ModuleOp module,
                                                                 const CompileOptions &options) {
  if (cotangent_cuda_init() != 0)
    return runtimeError(module.getLoc(), "cannot run on the GPU");
  std::unique_ptr<CudaModule> result(new CudaModule());
  result->context = module->getContext();
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isDeclaration() || !fn.isPublic())
      continue;
    Signature sig;
    for (Type t : fn.getArgumentTypes())
      sig.inputs.push_back(dyn_cast<RankedTensorType>(t));
    for (auto [i, t] : llvm::enumerate(fn.getResultTypes())) {
      sig.results.push_back(dyn_cast<RankedTensorType>(t));
      sig.offloadedResults.push_back(mlir::jx::getResultMemoryKind(fn, i) == "pinned_host");
    }
    for (RankedTensorType t : llvm::concat<RankedTensorType>(sig.inputs, sig.results))
      if (!t || !::cotangent::interp::isSupportedType(t))
        return fn.emitError("cannot compile for the GPU: arguments and results must be "
                            "ranked static tensors of jx element types"),
               failure();
    result->signatures[fn.getName()] = std::move(sig);
  }
  result->splits = mlir::jx::getSplitSymbols(module);
  std::string chip = options.chip;
  if (chip.empty())
    chip = "sm_" + std::to_string(cotangent_cuda_compute_capability());
  result->lowered = module.clone();
  if (failed(lower(*result->lowered, chip, options.cublas)))
    return failure();
  auto engine = makeEngine(*result->lowered);
  if (!engine)
    return emitError(module.getLoc(), "JIT compilation failed: ")
           << llvm::toString(engine.takeError());
  result->engine = std::move(*engine);
  result->engine->initialize(); // loads the kernels
  if (*cotangent_cuda_last_error())
    return runtimeError(module.getLoc(), "loading the kernels failed");
  for (const auto &entry : result->signatures) {
    auto fn = result->engine->lookupPacked(("_mlir_ciface_" + entry.first()).str());
    if (!fn)
      return emitError(module.getLoc(), "JIT compilation failed: ")
             << llvm::toString(fn.takeError());
    result->entries[entry.first()] = *fn;
  }
  return result;
}

LogicalResult CudaModule::invoke(StringRef name, std::vector<std::vector<int64_t>> &args,
                                 std::vector<int64_t> &results, double *seconds) {
  const Signature &sig = signatures.find(name)->second;
  int64_t words = 0;
  for (RankedTensorType t : sig.results)
    words += descriptorWords(t.getRank());
  results.assign(std::max<int64_t>(words, 1), 0);
  void *resultPtr = results.data();
  std::vector<void *> descriptors;
  for (auto &a : args)
    descriptors.push_back(a.data());
  llvm::SmallVector<void *> packed;
  if (!sig.results.empty())
    packed.push_back(&resultPtr);
  for (void *&p : descriptors)
    packed.push_back(&p);
  auto start = std::chrono::steady_clock::now();
  entries.lookup(name)(packed.data());
  cotangent_cuda_synchronize();
  *seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (*cotangent_cuda_last_error())
    return runtimeError(loc(), ("@" + name + " failed on the GPU").str());
  return success();
}

llvm::FailureOr<CallResult> CudaModule::call(StringRef name, llvm::ArrayRef<Tensor> args) {
  auto it = signatures.find(name);
  if (it == signatures.end())
    return emitError(loc()) << "no public function @" << name << " to call", failure();
  if (failed(interp::checkArguments(loc(), name, it->second.inputs, args)))
    return failure();
  std::vector<std::vector<int64_t>> argWords;
  std::set<void *> blocks;
  for (const Tensor &t : args) {
    argWords.push_back(upload(t));
    blocks.insert(reinterpret_cast<void *>(argWords.back()[0]));
  }
  cotangent_cuda_reset_peak();
  int64_t before = cotangent_cuda_live_bytes();
  CallResult out;
  std::vector<int64_t> results;
  LogicalResult ran = invoke(name, argWords, results, &out.seconds);
  out.liveBytes = cotangent_cuda_live_bytes() - before;
  out.peakBytes = cotangent_cuda_peak_bytes() - before;
  int64_t offset = 0;
  for (RankedTensorType t : it->second.results) {
    if (succeeded(ran))
      out.results.push_back(download(t, results.data() + offset));
    blocks.insert(reinterpret_cast<void *>(results[offset]));
    offset += descriptorWords(t.getRank());
  }
  freeAll(blocks);
  if (failed(ran))
    return failure();
  return out;
}

llvm::FailureOr<SplitResult> CudaModule::runSplit(StringRef base, llvm::ArrayRef<Tensor> args,
                                                  llvm::ArrayRef<Tensor> cotangents) {
  auto split = splits.find(base);
  std::string fwdName = split == splits.end() ? "" : split->second.fwd;
  std::string bwdName = split == splits.end() ? "" : split->second.bwd;
  auto fwdIt = signatures.find(fwdName), bwdIt = signatures.find(bwdName);
  if (fwdIt == signatures.end() || bwdIt == signatures.end())
    return emitError(loc()) << "no forward/backward pair of @" << base
                            << " (run --jx-vjp first)",
           failure();
  const Signature &fwd = fwdIt->second, &bwd = bwdIt->second;
  size_t numOutputs = cotangents.size();
  if (numOutputs > fwd.results.size())
    return emitError(loc()) << "more cotangents than @" << fwdName << " has results", failure();
  size_t numResiduals = fwd.results.size() - numOutputs;
  if (failed(interp::checkArguments(loc(), fwdName, fwd.inputs, args)) ||
      failed(interp::checkArguments(loc(), bwdName, bwd.inputs, cotangents, numResiduals)))
    return failure();

  SplitResult out;
  out.numResiduals = static_cast<int64_t>(numResiduals);
  std::set<void *> blocks;
  std::vector<std::vector<int64_t>> fwdArgs;
  for (const Tensor &t : args) {
    fwdArgs.push_back(upload(t));
    blocks.insert(reinterpret_cast<void *>(fwdArgs.back()[0]));
  }
  std::vector<std::vector<int64_t>> bwdArgs;
  std::vector<void *> pinned;
  cotangent_cuda_reset_peak();
  int64_t before = cotangent_cuda_live_bytes();
  auto finish = [&](LogicalResult status) -> llvm::FailureOr<SplitResult> {
    freeAll(blocks);
    for (void *p : pinned)
      cotangent_cuda_host_free(p);
    if (failed(status))
      return failure();
    return out;
  };
  std::vector<int64_t> fwdResults;
  if (failed(invoke(fwdName, fwdArgs, fwdResults, &out.seconds)))
    return finish(failure());

  // Outputs to the host; residuals stay on the device or go to pinned memory.
  int64_t offset = 0;
  std::set<void *> residualBlocks;
  for (size_t i = 0; i < fwd.results.size(); ++i) {
    RankedTensorType t = fwd.results[i];
    const int64_t *words = fwdResults.data() + offset;
    offset += descriptorWords(t.getRank());
    void *block = reinterpret_cast<void *>(words[0]);
    if (i < numOutputs) {
      out.outputs.push_back(download(t, words));
      blocks.insert(block);
      continue;
    }
    std::vector<int64_t> residual(words, words + descriptorWords(t.getRank()));
    if (fwd.offloadedResults[i]) {
      // Contiguous copy of the viewed elements through pinned memory.
      Tensor host = download(t, words);
      void *staging = cotangent_cuda_host_alloc(host.getByteSize());
      if (!staging)
        return finish(runtimeError(loc(), "pinned host allocation failed"));
      pinned.push_back(staging);
      std::vector<int64_t> contiguous = upload(host);
      void *device = reinterpret_cast<void *>(contiguous[0]);
      if (cotangent_cuda_copy_async(staging, device, host.getByteSize()) != 0 ||
          cotangent_cuda_offload_wait() != 0)
        return finish(runtimeError(loc(), "offloading a residual failed"));
      cotangent_cuda_free(device);
      out.offloadedBytes += host.getByteSize();
      residual = contiguous;
      residual[0] = residual[1] = reinterpret_cast<int64_t>(staging);
    } else {
      residualBlocks.insert(block);
    }
    bwdArgs.push_back(residual);
  }
  // Free the outputs' and offloaded residuals' device blocks now (unless a
  // residual on the device shares them).
  for (auto it = blocks.begin(); it != blocks.end();) {
    bool isArg = llvm::any_of(fwdArgs, [&](auto &w) { return reinterpret_cast<void *>(w[0]) == *it; });
    if (!isArg && !residualBlocks.count(*it)) {
      cotangent_cuda_free(*it);
      it = blocks.erase(it);
    } else {
      ++it;
    }
  }
  out.residualBytes = cotangent_cuda_live_bytes() - before;

  // Offloaded residuals come back into fresh device buffers.
  for (size_t i = 0; i < numResiduals; ++i) {
    if (!fwd.offloadedResults[numOutputs + i])
      continue;
    std::vector<int64_t> &words = bwdArgs[i];
    void *staging = reinterpret_cast<void *>(words[0]);
    int64_t bytes = fwd.results[numOutputs + i].getNumElements() *
                    ::cotangent::interp::getElementByteWidth(
                        *::cotangent::interp::getElementKind(
                            fwd.results[numOutputs + i].getElementType()));
    void *device = cotangent_cuda_alloc(bytes);
    if (!device || cotangent_cuda_copy_async(device, staging, bytes) != 0 ||
        cotangent_cuda_offload_wait() != 0)
      return finish(runtimeError(loc(), "reloading an offloaded residual failed"));
    words[0] = words[1] = reinterpret_cast<int64_t>(device);
    blocks.insert(device);
  }
  for (void *b : residualBlocks)
    blocks.insert(b);
  for (const Tensor &t : cotangents) {
    bwdArgs.push_back(upload(t));
    blocks.insert(reinterpret_cast<void *>(bwdArgs.back()[0]));
  }
  std::vector<int64_t> bwdResults;
  if (failed(invoke(bwdName, bwdArgs, bwdResults, &out.seconds)))
    return finish(failure());
  out.peakBytes = cotangent_cuda_peak_bytes() - before;
  offset = 0;
  for (RankedTensorType t : bwd.results) {
    out.gradients.push_back(download(t, bwdResults.data() + offset));
    blocks.insert(reinterpret_cast<void *>(bwdResults[offset]));
    offset += descriptorWords(t.getRank());
  }
  return finish(success());
}

static void printSummary(llvm::raw_ostream &os, const llvm::Twine &label, const Tensor &t) {
  os << label << ": " << t.getType() << " [";
  double sum = 0;
  for (int64_t i = 0, n = t.getNumElements(); i < n; ++i) {
    double v = t.isFloat() ? t.getDouble(i) : static_cast<double>(t.getInt(i));
    sum += v;
    if (i < 4)
      os << (i ? ", " : "") << llvm::format("%.6g", v);
  }
  os << (t.getNumElements() > 4 ? ", ...] sum=" : "] sum=") << llvm::format("%.6g", sum) << "\n";
}

int ::cotangent::cuda::runOnCuda(ModuleOp module, StringRef fn, llvm::ArrayRef<Tensor> args,
                               bool split, llvm::raw_ostream &os) {
  if (cotangent_cuda_init() != 0) {
    llvm::errs() << "cotangent-run: --target=cuda: " << cotangent_cuda_last_error() << "\n";
    return 1;
  }
  auto compiled = CudaModule::compile(module);
  if (failed(compiled))
    return 1;
  if (!split) {
    auto result = (*compiled)->call(fn, args);
    if (failed(result))
      return 1;
    os << "@" << fn << " on the GPU: " << result->results.size() << " results\n";
    for (auto [i, t] : llvm::enumerate(result->results))
      printSummary(os, "result " + llvm::Twine(i), t);
    os << "device live bytes at return: " << result->liveBytes << "\n";
    os << "device peak bytes: " << result->peakBytes << "\n";
    return 0;
  }
  std::string base = fn.str();
  std::optional<mlir::jx::SplitPair> pair = mlir::jx::lookupSplitPair(module, base);
  if (!pair) {
    emitError(module.getLoc()) << "--split: no forward/backward pair of @" << base
                               << " (pass --vjp to make it)";
    return 1;
  }
  std::vector<Tensor> cotangents;
  for (Type t : pair->fwd.getResultTypes().take_front(mlir::jx::numPrimalResults(pair->fwd))) {
    auto type = cast<RankedTensorType>(t);
    cotangents.push_back(
        Tensor::fromDoubles(type, std::vector<double>(type.getNumElements(), 1.0)));
  }
  auto result = (*compiled)->runSplit(base, args, cotangents);
  if (failed(result))
    return 1;
  os << "@" << pair->fwd.getSymName() << " / @" << pair->bwd.getSymName()
     << " on the GPU: " << result->numResiduals
     << " residuals\n";
  for (auto [i, t] : llvm::enumerate(result->outputs))
    printSummary(os, "output " + llvm::Twine(i), t);
  for (auto [i, t] : llvm::enumerate(result->gradients))
    printSummary(os, "gradient " + llvm::Twine(i), t);
  os << "device residual bytes: " << result->residualBytes << "\n";
  os << "offloaded bytes (pinned host): " << result->offloadedBytes << "\n";
  os << "device peak bytes: " << result->peakBytes << "\n";
  return 0;
}
