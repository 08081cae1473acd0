//===- CudaModule.h - jx functions compiled for NVIDIA GPUs -----*- C++ -*-===//
//
// Compiles a module of jx functions with jx-to-nvvm for the current device's
// architecture, JIT-compiles the host side (mlir::ExecutionEngine) with the
// runtime's entry points bound to the GPU runtime wrappers' names, and calls
// its functions on host tensors. Buffers are counted (CudaRuntime.h), so each
// call reports the device bytes live at return and the peak.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CUDA_CUDAMODULE_H
#define COTANGENT_RUNTIME_CUDA_CUDAMODULE_H

#include "dialects/jx/JxSplit.h"
#include "runtime/interpreter/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
}

namespace cotangent::cuda {

using interp::Tensor;

struct CallResult {
  std::vector<Tensor> results;
  int64_t liveBytes = 0; ///< device bytes of the results at return
  int64_t peakBytes = 0; ///< the peak of device bytes during the call (arguments excluded)
  double seconds = 0;
};

struct SplitResult {
  std::vector<Tensor> outputs, gradients;
  int64_t numResiduals = 0;
  int64_t residualBytes = 0;  ///< device bytes held between @f_fwd and @f_bwd
  int64_t offloadedBytes = 0; ///< residual bytes held in pinned host memory instead
  int64_t peakBytes = 0;      ///< the device peak over both calls
  double seconds = 0;
};

struct CompileOptions {
  /// Target chip; empty: the device's own (sm_<major><minor>).
  std::string chip;
  bool cublas = true;
};

class CudaModule {
public:
  /// Fails with "no CUDA device: ..." on a machine without one.
  static llvm::FailureOr<std::unique_ptr<CudaModule>> compile(mlir::ModuleOp module,
                                                            const CompileOptions &options = {});
  ~CudaModule();

  llvm::FailureOr<CallResult> call(llvm::StringRef name, llvm::ArrayRef<Tensor> args);
  /// The forward of the split of @<base>, then its backward on the residuals
  /// and `cotangents`; residuals whose #jx.residual says memory_kind =
  /// "pinned_host" wait in pinned host memory (asynchronous copies on the
  /// offload stream).
  llvm::FailureOr<SplitResult> runSplit(llvm::StringRef base, llvm::ArrayRef<Tensor> args,
                                        llvm::ArrayRef<Tensor> cotangents);

private:
  CudaModule() = default;
  struct Signature {
    std::vector<mlir::RankedTensorType> inputs, results;
    std::vector<bool> offloadedResults;
  };
  llvm::LogicalResult invoke(llvm::StringRef name, std::vector<std::vector<int64_t>> &args,
                             std::vector<int64_t> &results, double *seconds);
  mlir::Location loc() const;

  mlir::MLIRContext *context = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> lowered;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  llvm::StringMap<Signature> signatures;
  /// The module's split pairs, by their primal's name.
  llvm::StringMap<mlir::jx::SplitSymbols> splits;
  llvm::StringMap<void (*)(void **)> entries;
};

/// Lowers `module` with jx-to-nvvm (cubin for `chip`) and JIT-compiles the
/// host code without running it: needs no device (for tests).
llvm::LogicalResult compileHostCode(mlir::ModuleOp module, llvm::StringRef chip);

/// `cotangent-run --target=cuda`: runs @fn (or, with split, @fn_fwd then
/// @fn_bwd on cotangents of ones) and prints the results' summaries and the
/// device bytes. Returns the process exit code (1 with a message on stderr
/// when there is no device).
int runOnCuda(mlir::ModuleOp module, llvm::StringRef fn, llvm::ArrayRef<Tensor> args, bool split,
              llvm::raw_ostream &os);

} // namespace cotangent::cuda

#endif // COTANGENT_RUNTIME_CUDA_CUDAMODULE_H
