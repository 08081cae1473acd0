//===- Jit.cpp - jit: compile a traced function for the CPU ---------------===//

#include "tracer/Jit.h"
#include "runtime/cpu/CpuRuntime.h"

#include "mlir/IR/Diagnostics.h"

namespace cotangent::detail {

struct CompiledFunction::Compiled {
  std::unique_ptr<cpu::CpuModule> module;
};

CompiledFunction::CompiledFunction(Traced traced, std::string entry)
    : traced_(std::make_unique<Traced>(std::move(traced))), entry_(std::move(entry)) {
  compile(traced_->module());
}

CompiledFunction::CompiledFunction(Split split, std::string entry)
    : split_(std::make_unique<Split>(std::move(split))), entry_(std::move(entry)) {
  compile(split_->module());
}

CompiledFunction::~CompiledFunction() = default;

void CompiledFunction::compile(mlir::ModuleOp module) {
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &diag) {
    errors += (errors.empty() ? "" : "\n") + diag.str();
    return mlir::success();
  });
  // Only the function called is compiled: a split's halves and primal are
  // dropped once inlined into the step.
  auto compiled = cpu::CpuModule::compile(module, {.entryPoints = {entry_}});
  if (mlir::failed(compiled))
    throw TraceError("jit: compilation failed: " + errors);
  compiled_ = std::make_unique<Compiled>(Compiled{std::move(*compiled)});
}

std::vector<interp::Tensor> CompiledFunction::call(const std::vector<interp::Tensor> &args,
                                                   interp::MemoryStats &stats, double &seconds) {
  auto result = compiled_->module->call(entry_, args);
  if (mlir::failed(result))
    throw TraceError("jit: calling @" + entry_ + " failed");
  stats.liveBytes = result->stats.liveBytes;
  stats.peakBytes = result->stats.peakBytes;
  seconds = result->seconds;
  return std::move(result->results);
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
