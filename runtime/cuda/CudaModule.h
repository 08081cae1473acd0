//===- CudaModule.h - jx functions compiled for NVIDIA GPUs -----*- C++ -*-===//
//
// Compiles a module of jx functions with jx-to-nvvm for the current device's
// architecture and JIT-compiles the host side with the runtime's entry
// points bound to the GPU runtime wrappers' names. Calls, the split and
// their memory figures are runtime/host's CompiledModule; what is the GPU's
// own is here: arguments are copied into counted device buffers and results
// back, every call is waited for and checked for driver errors, and
// residuals marked `pinned_host` wait in pinned host memory (CudaRuntime.h).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CUDA_CUDAMODULE_H
#define COTANGENT_RUNTIME_CUDA_CUDAMODULE_H

#include "runtime/host/CompiledModule.h"


#include <memory>
#include <string>

namespace cotangent::cuda {

using interp::Tensor;

struct CompileOptions {
  /// Target chip, or a comma-separated list (one fat binary); empty: the
  /// device's own (sm_<major><minor>).
  std::string chip;
  bool cublas = true;
  /// jx-to-nvvm's `vector-bytes`: each elementwise kernel's loads and stores
  /// (0: one element per thread).
  int64_t vectorBytes = 16;
};

class CudaModule : public host::CompiledModule {
public:
  /// Fails with "no CUDA device: ..." on a machine without one.
  static llvm::FailureOr<std::unique_ptr<CudaModule>> compile(mlir::ModuleOp module,
                                                            const CompileOptions &options = {});

protected:
  /// A counted managed copy (its bytes are live before the measurement
  /// starts, so they are excluded from the figures, as on the CPU).
  llvm::FailureOr<host::MemRefDescriptor> upload(const Tensor &t) override;
  void release(void *block) override;
  /// Copies the result's block to the host and reads the view from there.
  Tensor download(mlir::RankedTensorType type, const host::MemRefDescriptor &descriptor) override;
  /// With setDeviceResident(): the result's block as an array on the GPU.
  std::optional<Tensor> adopt(mlir::RankedTensorType type,
                              const host::MemRefDescriptor &descriptor) override;
  /// Runs the initializers, which load the kernels.
  llvm::LogicalResult initialize(host::JitEngine &engine) override;
  void wait() override;
  llvm::LogicalResult checkDevice(const llvm::Twine &what) override;
  bool offloads(host::MemoryKind kind) const override;
  /// Copies the residual into pinned host memory on the offload stream.
  llvm::FailureOr<host::MemRefDescriptor> offload(mlir::RankedTensorType type,
                                                  const host::MemRefDescriptor &residual,
                                                  host::MemoryKind kind) override;
  /// The pinned copy itself: the backward copies it in right before its
  /// first use (jx-gpu-reload-residuals).
  llvm::FailureOr<host::MemRefDescriptor> reload(mlir::RankedTensorType type,
                                                 const host::MemRefDescriptor &offloaded) override;
  void discard(const host::MemRefDescriptor &offloaded) override;

private:
  CudaModule();
};

/// jax.device_put: `t` copied into the GPU's memory (t itself when it is
/// there), an array calls of every CudaModule read in place; an error at
/// `loc` without a GPU.
llvm::FailureOr<Tensor> devicePut(const Tensor &t, mlir::Location loc);

/// How the JIT compiles for the GPU: jx-to-nvvm with `options` (its chip
/// set), the runtime's bindings.
host::JitTarget gpuTarget(const CompileOptions &options);

/// What `--emit-object` with `--target=cuda` writes: one object file with
/// the host code of every public function of `module` (kernels embedded as
/// a fat binary of `chips`), a packed entry per function and the manifest
/// (runtime/host/ObjectFile.h). Its calls are renamed to CudaRuntime.h's
/// functions, so it links against the runtime alone (cotangent-step, or
/// the CotangentCudaDriver library): no MLIR, LLVM or JIT at run time.
/// Needs no device.
llvm::LogicalResult emitStepObject(mlir::ModuleOp module, llvm::StringRef path,
                                   const CompileOptions &options = {.chip = "sm_80,sm_90"});

/// Lowers `module` with jx-to-nvvm (cubin for `chip`) and JIT-compiles the
/// host code without running it: needs no device (for tests).
llvm::LogicalResult compileHostCode(mlir::ModuleOp module, llvm::StringRef chip);

} // namespace cotangent::cuda

#endif // COTANGENT_RUNTIME_CUDA_CUDAMODULE_H
