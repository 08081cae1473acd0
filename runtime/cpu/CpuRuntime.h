//===- CpuRuntime.h - JIT-compiled jx functions on the CPU ------*- C++ -*-===//
//
// Compiles a module of jx functions once (jx-lower-to-llvm, then LLVM -O3
// through runtime/host's JitEngine) and calls its functions by name on host
// tensors (the reference interpreter's Tensor, so results compare directly
// with it). Calls, the forward/backward split and their memory figures are
// runtime/host's CompiledModule; what is the CPU's own is here: arguments
// are passed in place, every buffer the compiled code allocates goes
// through `_mlir_memref_to_llvm_alloc` / `_free` (MemoryHooks.h), and the
// compiled module can be written out ahead of time (Aot.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_CPURUNTIME_H
#define COTANGENT_RUNTIME_CPU_CPURUNTIME_H

#include "runtime/host/CompiledModule.h"

#include <memory>

namespace cotangent::cpu {

using host::CallResult;
using host::MemoryStats;
using host::SplitResult;
using interp::Tensor;

struct CompileOptions {
  unsigned optLevel = 3;
  /// Keep the lowered LLVM-dialect module (for AOT emission and debugging).
  bool keepLoweredModule = true;
  /// The public functions to compile (host::JitTarget::entryPoints); empty:
  /// all of them.
  std::vector<std::string> entryPoints;
  /// host::JitTarget::verifyEachPass.
  bool verifyEachPass = host::kVerifyEachPassByDefault;
  /// host::JitTarget::timePasses.
  bool timePasses = false;
  /// host::JitTarget::codegenThreads (0: the cores this process may use).
  unsigned codegenThreads = 0;
};

/// The CPU's target of runtime/host's JIT: jx-lower-to-llvm, LLVM at
/// `options.optLevel`, and the allocation hooks and BLAS entry points of
/// MemoryHooks.h.
host::JitTarget cpuTarget(const CompileOptions &options = {});
/// The CPU runtime's function for each runtime ABI entry it is called on
/// (runtime/core/RuntimeAbi.def, targets Cpu and Both).
host::RuntimeSymbols cpuRuntimeSymbols();

class CpuModule : public host::CompiledModule {
public:
  /// Lowers a clone of `module` (jx IR) and JIT-compiles it. Diagnostics go to
  /// the module's context; returns failure on any error.
  static llvm::FailureOr<std::unique_ptr<CpuModule>> compile(mlir::ModuleOp module,
                                                           const CompileOptions &options = {});

  /// Writes an object file of the compiled module for the host (AOT).
  llvm::LogicalResult emitObject(llvm::StringRef path) const;
  /// Writes a C header declaring the C interface of every public function.
  llvm::LogicalResult emitHeader(llvm::StringRef path) const;

protected:
  CpuModule();

  /// A descriptor over the host tensor's own buffer: compiled code never
  /// writes its arguments, and the caller's bytes are not counted.
  llvm::FailureOr<host::MemRefDescriptor> upload(const Tensor &t) override;
  void release(void *block) override;
  /// The result's block becomes the tensor's: the hooks stop counting it
  /// (it is the caller's now, as an argument's buffer is) and the block
  /// cache gets it back when the tensor goes, so a step called again in a
  /// loop neither copies its results nor touches fresh pages for them.
  std::optional<Tensor> adopt(mlir::RankedTensorType type,
                              const host::MemRefDescriptor &descriptor) override;
};

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_CPURUNTIME_H
