//===- Jit.cpp - jit: compile a traced function for the CPU ---------------===//

#include "tracer/Jit.h"
#include "runtime/cpu/CpuRuntime.h"
#ifdef COTANGENT_HAVE_CUDA
#include "runtime/cuda/CudaModule.h"
#endif
#include "analysis/MemoryPlan.h"
#include "analysis/PeakOracle.h"
#include "runtime/host/JitEngine.h"
#include "dialects/jx/JxSplit.h"
#include "passes/report/Residuals.h"

#include "llvm/Support/raw_ostream.h"

#include "mlir/IR/Diagnostics.h"

namespace cotangent::detail {

struct CompiledFunction::Compiled {
  std::unique_ptr<host::CompiledModule> module;
};

CompiledFunction::CompiledFunction(Traced traced, std::string entry, std::vector<bool> donated,
                                   Target target)
    : traced_(std::make_unique<Traced>(std::move(traced))), entry_(std::move(entry)) {
  compile(traced_->module(), donated, target);
}

CompiledFunction::CompiledFunction(Split split, std::string entry, Target target)
    : split_(std::make_unique<Split>(std::move(split))), entry_(std::move(entry)) {
  compile(split_->module(), {}, target);
}

CompiledFunction::~CompiledFunction() = default;

mlir::ModuleOp CompiledFunction::module() const {
  return traced_ ? traced_->module() : split_->module();
}

/// Marks each donated argument of `fn` with the first result of its type no
/// earlier one took (XLA matches donated buffers to outputs the same way).
static void markDonated(mlir::func::FuncOp fn, const std::vector<bool> &donated) {
  std::vector<bool> taken(fn.getNumResults(), false);
  for (unsigned i = 0; i < donated.size() && i < fn.getNumArguments(); ++i) {
    if (!donated[i])
      continue;
    for (unsigned k = 0; k < fn.getNumResults(); ++k)
      if (!taken[k] && fn.getResultTypes()[k] == fn.getArgumentTypes()[i]) {
        mlir::jx::setDonatedTo(fn, i, k);
        taken[k] = true;
        break;
      }
  }
}

/// `module` compiled for `target`: only `entry` (with what it calls) on the
/// CPU; the GPU runtime compiles every public function.
static llvm::FailureOr<std::unique_ptr<host::CompiledModule>>
compileFor(mlir::ModuleOp module, const std::string &entry, Target target) {
  auto base = [](auto compiled) -> llvm::FailureOr<std::unique_ptr<host::CompiledModule>> {
    if (mlir::failed(compiled))
      return mlir::failure();
    return std::unique_ptr<host::CompiledModule>(std::move(*compiled));
  };
  if (target == Target::Cpu)
    return base(cpu::CpuModule::compile(module, {.entryPoints = {entry}}));
#ifdef COTANGENT_HAVE_CUDA
  auto compiled = cuda::CudaModule::compile(module);
  if (succeeded(compiled))
    (*compiled)->setDeviceResident(true); // results stay on the GPU; calls do not wait
  return base(std::move(compiled));
#else
  throw TraceError("jit: this build has no CUDA runtime (CMake found no CUDA toolkit), so "
                   "Target::Cuda cannot compile");
#endif
}

void CompiledFunction::compile(mlir::ModuleOp module, const std::vector<bool> &donated,
                               Target target) {
  if (!donated.empty())
    markDonated(module.lookupSymbol<mlir::func::FuncOp>(entry_), donated);
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &diag) {
    errors += (errors.empty() ? "" : "\n") + diag.str();
    return mlir::success();
  });
  // Only the function called is compiled on the CPU: a split's halves and
  // primal are dropped once inlined into the step.
  auto compiled = compileFor(module, entry_, target);
  if (mlir::failed(compiled))
    throw TraceError("jit: compilation failed: " + errors);
  compiled_ = std::make_unique<Compiled>(Compiled{std::move(*compiled)});
}

std::vector<interp::Tensor> CompiledFunction::call(const std::vector<interp::Tensor> &args,
                                                   interp::MemoryStats &stats, double &seconds) {
  std::vector<interp::Tensor> results;
  call(args, stats, seconds, results);
  return results;
}

void CompiledFunction::call(const std::vector<interp::Tensor> &args, interp::MemoryStats &stats,
                            double &seconds, std::vector<interp::Tensor> &results) {
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(module().getContext(), [&](mlir::Diagnostic &diag) {
    errors += (errors.empty() ? "" : "\n") + diag.str();
    return mlir::success();
  });
  host::CallResult out;
  out.results.swap(results); // its capacity, for the results
  mlir::LogicalResult ran = compiled_->module->call(entry_, args, out);
  results.swap(out.results);
  if (mlir::failed(ran))
    throw TraceError("jit: calling @" + entry_ + " failed" + (errors.empty() ? "" : ": " + errors));
  stats.liveBytes = out.stats.liveBytes;
  stats.peakBytes = out.stats.peakBytes;
  seconds = out.seconds;
}


std::vector<mlir::Type> CompiledFunction::resultTypes() const {
  auto fn = module().lookupSymbol<mlir::func::FuncOp>(entry_);
  return fn ? std::vector<mlir::Type>(fn.getResultTypes().begin(), fn.getResultTypes().end())
            : std::vector<mlir::Type>{};
}

interp::Tensor putLeaf(const interp::Tensor &t, Target target) {
  if (target == Target::Cpu)
    return t.toHost();
#ifdef COTANGENT_HAVE_CUDA
  mlir::MLIRContext *context = t.getType().getContext();
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(context, [&](mlir::Diagnostic &diag) {
    errors += (errors.empty() ? "" : "\n") + diag.str();
    return mlir::success();
  });
  auto put = cuda::devicePut(t, mlir::UnknownLoc::get(context));
  if (failed(put))
    throw TraceError(errors);
  return *put;
#else
  throw TraceError("device_put: this build has no CUDA runtime (CMake found no CUDA toolkit)");
#endif
}

std::vector<bool> donatedLeaves(const std::vector<int> &donate, const FlatArguments &flat) {
  size_t numArguments = flat.firstLeaf.size() - 1;
  std::vector<bool> leaves(flat.leaves.size(), false);
  std::vector<bool> named(numArguments, false);
  for (int position : donate) {
    if (position < 0 || static_cast<size_t>(position) >= numArguments)
      throw TraceError("jit: donate names argument " + std::to_string(position) +
                       " but the function is called with " + std::to_string(numArguments));
    if (named[position])
      throw TraceError("jit: donate names argument " + std::to_string(position) + " twice");
    named[position] = true;
    for (size_t leaf = flat.firstLeaf[position]; leaf < flat.firstLeaf[position + 1]; ++leaf)
      leaves[leaf] = true;
  }
  return leaves;
}

std::string CompiledFunction::report(const interp::MemoryStats &measured) const {
  mlir::ModuleOp m = module();
  std::string text;
  llvm::raw_string_ostream os(text);
  auto entry = m.lookupSymbol<mlir::func::FuncOp>(entry_);
  os << "@" << entry_ << ": " << entry.getNumArguments() << " arguments, "
     << entry.getNumResults() << " results\n";
  for (mlir::jx::SplitPair pair : mlir::jx::getSplitPairs(m)) {
    os << "gradient @" << mlir::jx::getSplitName(pair) << " keeps for its backward:\n";
    auto residuals = mlir::cotangent::describeResiduals(pair.fwd);
    if (mlir::succeeded(residuals))
      mlir::cotangent::printResiduals(*residuals, os);
  }
  int64_t donated = 0, donatedBytes = 0;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (mlir::jx::getDonatedTo(entry, i)) {
      ++donated;
      donatedBytes += mlir::jx::getTensorBytes(entry.getArgumentTypes()[i]);
    }
  os << "donated: " << donated << " arguments, " << donatedBytes
     << " bytes (their results written over them)\n";
  os << "measured peak: " << measured.peakBytes << " bytes allocated by the call\n";
  auto plan = mlir::cotangent::predictCallPlan(m, entry_);
  if (mlir::succeeded(plan))
    mlir::cotangent::printMemoryPlan(*plan, os, /*timeline=*/false);
  return text;
}

JitCache::Entry *JitCache::find(const LeafScan &scan) {
  auto it = byFingerprint_.find(scan.fingerprint);
  return it != byFingerprint_.end() && it->second->types == scan.types ? it->second : nullptr;
}

void JitCache::remember(Entry &entry, const LeafScan &scan) {
  entry.types = scan.types;
  byFingerprint_[scan.fingerprint] = &entry;
}

void JitCache::enablePlanning(const std::vector<interp::Tensor> &inputs) {
  if (inputs.empty())
    return;
  mlir::DialectRegistry registry;
  mlir::cotangent::registerPeakOracle(registry);
  host::loweringRegistry().appendTo(registry);
  inputs.front().getType().getContext()->appendDialectRegistry(registry);
}

JitCache::Entry &JitCache::lookup(const std::vector<LeafSignature> &signature) {
  std::string key = signatureKey(signature);
  auto it = cache_.find(key);
  if (it != cache_.end())
    return it->second;
  if (cache_.empty())
    first_ = signature;
  else if (!recompile_)
    throw TraceError("jit: the arguments differ from the tree this function was compiled for "
                     "(recompile is off):\n" +
                     describeMismatch(first_, signature));
  return cache_[key];
}

} // namespace cotangent::detail
