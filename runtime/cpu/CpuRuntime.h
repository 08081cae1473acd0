//===- CpuRuntime.h - JIT-compiled jx functions on the CPU ------*- C++ -*-===//
//
// Compiles a module of jx functions once (jx-lower-to-llvm, then LLVM -O3
// through mlir::ExecutionEngine) and calls its functions by name on host
// tensors (the reference interpreter's Tensor, so results compare directly
// with it). Every buffer the compiled code allocates goes through
// `_mlir_memref_to_llvm_alloc` / `_free` (MemoryHooks.h), so each call
// reports the bytes live when it returns and the peak over the call.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_CPURUNTIME_H
#define COTANGENT_RUNTIME_CPU_CPURUNTIME_H

#include "dialects/jx/JxSplit.h"
#include "runtime/interpreter/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
}

namespace cotangent::cpu {

using interp::Tensor;

/// Bytes allocated by compiled code (arguments passed in are not counted).
struct MemoryStats {
  /// Live when the call returned: the results' buffers.
  int64_t liveBytes = 0;
  /// The maximum of the live bytes during the call.
  int64_t peakBytes = 0;
};

struct CallResult {
  std::vector<Tensor> results;
  MemoryStats stats;
  double seconds = 0; ///< wall time of the compiled call alone
};

/// The forward/backward split run by `CpuModule::runSplit`.
struct SplitResult {
  std::vector<Tensor> outputs;  ///< @f_fwd's primal outputs
  std::vector<Tensor> gradients; ///< @f_bwd's results (argument cotangents)
  int64_t numResiduals = 0;
  /// Bytes of the residual buffers held between @f_fwd and @f_bwd, as the
  /// allocation hooks measured them.
  int64_t residualBytes = 0;
  /// The peak of live bytes over both calls (the residuals included).
  int64_t peakBytes = 0;
  double seconds = 0;
};

struct CompileOptions {
  unsigned optLevel = 3;
  /// Keep the lowered LLVM-dialect module (for AOT emission and debugging).
  bool keepLoweredModule = true;
};

class CpuModule {
public:
  /// Lowers a clone of `module` (jx IR) and JIT-compiles it. Diagnostics go to
  /// the module's context; returns failure on any error.
  static llvm::FailureOr<std::unique_ptr<CpuModule>> compile(mlir::ModuleOp module,
                                                           const CompileOptions &options = {});
  ~CpuModule();

  /// Calls the public function `name` on `args` (types must match its
  /// signature; a mismatch is an error at `loc`-less diagnostics on the module).
  llvm::FailureOr<CallResult> call(llvm::StringRef name, llvm::ArrayRef<Tensor> args);

  /// Runs the forward of the split of `@<base>` (made by --jx-vjp) on `args`,
  /// keeps its residual results in compiled-code buffers, then runs the
  /// backward on them and `cotangents` (one per primal output).
  llvm::FailureOr<SplitResult> runSplit(llvm::StringRef base, llvm::ArrayRef<Tensor> args,
                                        llvm::ArrayRef<Tensor> cotangents);

  /// The signature of a public function: tensor argument and result types.
  struct Signature {
    std::vector<mlir::RankedTensorType> inputs, results;
  };
  const Signature *getSignature(llvm::StringRef name) const;

  /// Writes an object file of the compiled module for the host (AOT).
  llvm::LogicalResult emitObject(llvm::StringRef path) const;
  /// Writes a C header declaring the C interface of every public function.
  llvm::LogicalResult emitHeader(llvm::StringRef path) const;

  mlir::ModuleOp getLoweredModule() const { return const_cast<CpuModule *>(this)->lowered.get(); }

private:
  CpuModule() = default;
  struct Invocation;
  llvm::FailureOr<std::vector<void *>> invoke(llvm::StringRef name, llvm::ArrayRef<void *> inputs,
                                              Invocation &invocation, double *seconds);

  mlir::MLIRContext *context = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> lowered;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  llvm::StringMap<Signature> signatures;
  /// The module's split pairs, by their primal's name.
  llvm::StringMap<mlir::jx::SplitSymbols> splits;
  /// The packed entry point of each public function, compiled up front.
  llvm::StringMap<void (*)(void **)> entries;
};

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_CPURUNTIME_H
