//===- CpuRuntime.cpp - compile once, call by name on host tensors --------===//
//
// compile(): register what the lowering needs on the module's context
// (all dialects and extensions: bufferization and deallocation interfaces,
// inliner interfaces, LLVM IR translations), lower a clone with
// jx-lower-to-llvm, and build an ExecutionEngine at -O3 whose symbol table
// holds this runtime's allocation hooks and BLAS entry points.
//
// call(): pass each argument as a strided memref descriptor pointing at the
// host tensor's buffer (arguments are not writable for compiled code, so
// they are never modified), invoke the `_mlir_ciface_` wrapper, copy each
// result into a host Tensor and free its buffer through the hook.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/MemoryHooks.h"

#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstring>
#include <set>

using namespace mlir;
using namespace ::cotangent::cpu;

namespace {

void initializeOnce() {
  static bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)done;
}

/// Words of a rank-r memref descriptor: allocated, aligned, offset, sizes, strides.
int64_t descriptorWords(int64_t rank) { return 3 + 2 * rank; }

struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

Descriptor readDescriptor(const int64_t *words, int64_t rank) {
  return {reinterpret_cast<void *>(words[0]), reinterpret_cast<void *>(words[1]), words[2],
          words + 3, words + 3 + rank};
}

/// A host Tensor holding the elements the descriptor points at.
Tensor toTensor(RankedTensorType type, const Descriptor &d) {
  Tensor t(type);
  int64_t width = ::cotangent::interp::getElementByteWidth(t.getElementKind());
  const char *base = static_cast<const char *>(d.aligned) + d.offset * width;
  int64_t rank = type.getRank(), n = type.getNumElements();
  bool contiguous = true;
  for (int64_t i = rank - 1, expected = 1; i >= 0; --i) {
    if (type.getDimSize(i) != 1 && d.strides[i] != expected)
      contiguous = false;
    expected *= type.getDimSize(i);
  }
  char *out = t.data();
  if (contiguous) {
    if (n > 0)
      std::memcpy(out, base, n * width);
    return t;
  }
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, offset = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      offset += (rest % type.getDimSize(i)) * d.strides[i];
      rest /= type.getDimSize(i);
    }
    std::memcpy(out + flat * width, base + offset * width, width);
  }
  return t;
}

/// Descriptor words for a host tensor's buffer (row-major strides).
std::vector<int64_t> describe(const Tensor &t) {
  int64_t rank = t.getRank();
  std::vector<int64_t> words(descriptorWords(rank));
  void *data = const_cast<char *>(t.data());
  words[0] = reinterpret_cast<int64_t>(data);
  words[1] = reinterpret_cast<int64_t>(data);
  words[2] = 0;
  for (int64_t i = rank - 1, stride = 1; i >= 0; --i) {
    words[3 + i] = t.getShape()[i];
    words[3 + rank + i] = stride;
    stride *= t.getShape()[i];
  }
  return words;
}

/// Frees every distinct hook-allocated block among `blocks`.
void freeBlocks(llvm::ArrayRef<void *> blocks) {
  std::set<void *> seen;
  for (void *p : blocks)
    if (p && seen.insert(p).second && blockSize(p) >= 0)
      _mlir_memref_to_llvm_free(p);
}

DialectRegistry &loweringRegistry() {
  static DialectRegistry registry = [] {
    DialectRegistry r;
    registerAllDialects(r);
    registerAllExtensions(r);
    registerAllToLLVMIRTranslations(r);
    return r;
  }();
  return registry;
}

} // namespace

/// Storage for one invocation: argument descriptors and the results' struct.
struct CpuModule::Invocation {
  std::vector<std::vector<int64_t>> args;
  std::vector<int64_t> results;
  std::vector<int64_t> resultOffsets; ///< word offset of each result's descriptor
};

CpuModule::~CpuModule() = default;

llvm::FailureOr<std::unique_ptr<CpuModule>> CpuModule::compile(ModuleOp module,
                                                               const CompileOptions &options) {
  initializeOnce();
  MLIRContext *ctx = module->getContext();
  ctx->appendDialectRegistry(loweringRegistry());
  ctx->loadAllAvailableDialects();

  std::unique_ptr<CpuModule> result(new CpuModule());
  result->context = ctx;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isDeclaration() || !fn.isPublic())
      continue;
    Signature sig;
    auto collect = [&](TypeRange types, std::vector<RankedTensorType> &into) {
      for (Type t : types) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        if (!tensor || !::cotangent::interp::isSupportedType(tensor))
          return false;
        into.push_back(tensor);
      }
      return true;
    };
    if (!collect(fn.getArgumentTypes(), sig.inputs) || !collect(fn.getResultTypes(), sig.results))
      return fn.emitError("cannot compile for the CPU: arguments and results must be ranked "
                          "static tensors of jx element types"),
             failure();
    result->signatures[fn.getName()] = std::move(sig);
  }
  result->splits = mlir::jx::getSplitSymbols(module);

  result->lowered = module.clone();
  PassManager pm(ctx, ModuleOp::getOperationName());
  mlir::cotangent::buildLowerToLLVMPipeline(pm);
  if (failed(pm.run(result->lowered.get())))
    return failure();

  auto transformer = makeOptimizingTransformer(options.optLevel, 0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = options.optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                                                           : llvm::CodeGenOptLevel::Default;
  llvm::SmallVector<llvm::StringRef> libs{COTANGENT_C_RUNNER_UTILS};
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(result->lowered.get(), engineOptions);
  if (!engine) {
    std::string message = llvm::toString(engine.takeError());
    return emitError(module.getLoc(), "JIT compilation failed: ") << message, failure();
  }
  result->engine = std::move(*engine);
  result->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](const char *name, void *address) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    };
    add("_mlir_memref_to_llvm_alloc", reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc));
    add("_mlir_memref_to_llvm_free", reinterpret_cast<void *>(&_mlir_memref_to_llvm_free));
    add("_mlir_ciface_cotangent_batch_matmul_f32",
        reinterpret_cast<void *>(&_mlir_ciface_cotangent_batch_matmul_f32));
    add("_mlir_ciface_cotangent_batch_matmul_f64",
        reinterpret_cast<void *>(&_mlir_ciface_cotangent_batch_matmul_f64));
    return map;
  });
  result->engine->initialize();
  // Compile every entry point now, so that calls time the code alone.
  for (const auto &entry : result->signatures) {
    auto fn = result->engine->lookupPacked(("_mlir_ciface_" + entry.first()).str());
    if (!fn) {
      std::string message = llvm::toString(fn.takeError());
      return emitError(module.getLoc(), "JIT compilation failed: ") << message, failure();
    }
    result->entries[entry.first()] = *fn;
  }
  return result;
}

const CpuModule::Signature *CpuModule::getSignature(llvm::StringRef name) const {
  auto it = signatures.find(name);
  return it == signatures.end() ? nullptr : &it->second;
}

/// Invokes `name` on descriptors `inputs` (pointers to descriptor words);
/// returns a pointer to each result's descriptor words.
llvm::FailureOr<std::vector<void *>> CpuModule::invoke(llvm::StringRef name,
                                                       llvm::ArrayRef<void *> inputs,
                                                       Invocation &inv, double *seconds) {
  const Signature *sig = getSignature(name);
  int64_t words = 0;
  for (RankedTensorType t : sig->results) {
    inv.resultOffsets.push_back(words);
    words += descriptorWords(t.getRank());
  }
  inv.results.assign(std::max<int64_t>(words, 1), 0);
  void *resultPtr = inv.results.data();
  std::vector<void *> descriptorPtrs(inputs.begin(), inputs.end());
  llvm::SmallVector<void *> packed;
  if (!sig->results.empty())
    packed.push_back(&resultPtr);
  for (void *&p : descriptorPtrs)
    packed.push_back(&p);
  auto start = std::chrono::steady_clock::now();
  entries.lookup(name)(packed.data());
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<void *> results;
  for (int64_t offset : inv.resultOffsets)
    results.push_back(inv.results.data() + offset);
  return results;
}

llvm::FailureOr<CallResult> CpuModule::call(llvm::StringRef name, llvm::ArrayRef<Tensor> args) {
  Location loc = lowered->getLoc();
  const Signature *sig = getSignature(name);
  if (!sig)
    return emitError(loc) << "no public function @" << name << " to call", failure();
  if (failed(interp::checkArguments(loc, name, sig->inputs, args)))
    return failure();
  Invocation inv;
  std::vector<void *> inputs;
  for (const Tensor &t : args)
    inv.args.push_back(describe(t));
  for (auto &w : inv.args)
    inputs.push_back(w.data());

  resetPeak();
  int64_t before = liveBytes();
  CallResult out;
  auto results = invoke(name, inputs, inv, &out.seconds);
  if (failed(results))
    return failure();
  out.stats.liveBytes = liveBytes() - before;
  out.stats.peakBytes = peakBytes() - before;
  std::vector<void *> blocks;
  for (auto [type, words] : llvm::zip(sig->results, *results)) {
    Descriptor d = readDescriptor(static_cast<int64_t *>(words), type.getRank());
    out.results.push_back(toTensor(type, d));
    blocks.push_back(d.allocated);
  }
  freeBlocks(blocks);
  return out;
}

llvm::FailureOr<SplitResult> CpuModule::runSplit(llvm::StringRef base, llvm::ArrayRef<Tensor> args,
                                                 llvm::ArrayRef<Tensor> cotangents) {
  Location loc = lowered->getLoc();
  auto split = splits.find(base);
  const Signature *fwd = split == splits.end() ? nullptr : getSignature(split->second.fwd);
  const Signature *bwd = split == splits.end() ? nullptr : getSignature(split->second.bwd);
  if (!fwd || !bwd)
    return emitError(loc) << "no forward/backward pair of @" << base
                          << " (run --jx-vjp first)",
           failure();
  std::string fwdName = split->second.fwd, bwdName = split->second.bwd;
  size_t numOutputs = split->second.numPrimalResults;
  if (numOutputs > fwd->results.size() || cotangents.size() != numOutputs)
    return emitError(loc) << "@" << base << " has " << numOutputs << " outputs but "
                          << cotangents.size() << " cotangents were given",
           failure();
  size_t numResiduals = fwd->results.size() - numOutputs;
  if (failed(interp::checkArguments(loc, fwdName, fwd->inputs, args)) ||
      failed(interp::checkArguments(loc, bwdName, bwd->inputs, cotangents, numResiduals)))
    return failure();

  SplitResult out;
  out.numResiduals = static_cast<int64_t>(numResiduals);
  resetPeak();
  int64_t before = liveBytes();
  Invocation fwdInv;
  std::vector<void *> inputs;
  for (const Tensor &t : args)
    fwdInv.args.push_back(describe(t));
  for (auto &w : fwdInv.args)
    inputs.push_back(w.data());
  double fwdSeconds = 0, bwdSeconds = 0;
  auto fwdResults = invoke(fwdName, inputs, fwdInv, &fwdSeconds);
  if (failed(fwdResults))
    return failure();

  // Primal outputs go to the host; residual buffers stay where they are.
  std::set<void *> residualBlocks;
  std::vector<void *> residualBlockList;
  for (size_t i = numOutputs; i < fwd->results.size(); ++i) {
    void *p = readDescriptor(static_cast<int64_t *>((*fwdResults)[i]),
                             fwd->results[i].getRank()).allocated;
    residualBlocks.insert(p);
    residualBlockList.push_back(p);
  }
  std::vector<void *> outputBlocks;
  for (size_t i = 0; i < numOutputs; ++i) {
    Descriptor d = readDescriptor(static_cast<int64_t *>((*fwdResults)[i]),
                                  fwd->results[i].getRank());
    out.outputs.push_back(toTensor(fwd->results[i], d));
    if (!residualBlocks.count(d.allocated))
      outputBlocks.push_back(d.allocated);
  }
  freeBlocks(outputBlocks);
  out.residualBytes = liveBytes() - before;

  Invocation bwdInv;
  std::vector<void *> bwdInputs;
  for (size_t i = numOutputs; i < fwd->results.size(); ++i)
    bwdInputs.push_back((*fwdResults)[i]);
  for (const Tensor &t : cotangents)
    bwdInv.args.push_back(describe(t));
  for (auto &w : bwdInv.args)
    bwdInputs.push_back(w.data());
  auto bwdResults = invoke(bwdName, bwdInputs, bwdInv, &bwdSeconds);
  if (failed(bwdResults)) {
    freeBlocks(residualBlockList);
    return failure();
  }
  out.peakBytes = peakBytes() - before;
  std::vector<void *> blocks = residualBlockList;
  for (auto [type, words] : llvm::zip(bwd->results, *bwdResults)) {
    Descriptor d = readDescriptor(static_cast<int64_t *>(words), type.getRank());
    out.gradients.push_back(toTensor(type, d));
    blocks.push_back(d.allocated);
  }
  freeBlocks(blocks);
  out.seconds = fwdSeconds + bwdSeconds;
  return out;
}
