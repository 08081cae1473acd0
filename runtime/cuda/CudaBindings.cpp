//===- CudaBindings.cpp - what compiled GPU code calls --------------------===//

#include "runtime/cuda/CudaBindings.h"

#include "runtime/cuda/CudaRuntime.h"

namespace cotangent::cuda {

#define COTANGENT_BIND(name, fn) Binding{name, #fn, reinterpret_cast<void *>(&fn)}
#define COTANGENT_MGPU(name) COTANGENT_BIND(#name, cotangent_##name)

llvm::ArrayRef<Binding> runtimeBindings() {
  static const Binding bindings[] = {
      COTANGENT_BIND("_mlir_memref_to_llvm_alloc", cotangent_cuda_alloc),
      COTANGENT_BIND("_mlir_memref_to_llvm_free", cotangent_cuda_free),
      COTANGENT_BIND("_mlir_ciface_cotangent_batch_matmul_f32", cotangent_cuda_batch_matmul_f32),
      COTANGENT_BIND("_mlir_ciface_cotangent_batch_matmul_f64", cotangent_cuda_batch_matmul_f64),
      COTANGENT_BIND("_mlir_ciface_cotangent_batch_matmul_bf16", cotangent_cuda_batch_matmul_bf16),
      COTANGENT_BIND("_mlir_ciface_cotangent_batch_matmul_f16", cotangent_cuda_batch_matmul_f16),
      COTANGENT_BIND("cotangent_cuda_read_scalar", cotangent_cuda_read_scalar),
      COTANGENT_BIND("cotangent_cuda_multiprocessors", cotangent_cuda_multiprocessors),
      COTANGENT_BIND("cotangent_cuda_device_global", cotangent_cuda_device_global),
      COTANGENT_BIND("cotangent_collective_start", cotangent_cuda_collective_start),
      COTANGENT_BIND("cotangent_collective_wait", cotangent_cuda_collective_wait),
      COTANGENT_MGPU(mgpuModuleLoad),
      COTANGENT_MGPU(mgpuModuleLoadJIT),
      COTANGENT_MGPU(mgpuModuleUnload),
      COTANGENT_MGPU(mgpuModuleGetFunction),
      COTANGENT_MGPU(mgpuLaunchKernel),
      COTANGENT_MGPU(mgpuStreamCreate),
      COTANGENT_MGPU(mgpuStreamDestroy),
      COTANGENT_MGPU(mgpuStreamSynchronize),
      COTANGENT_MGPU(mgpuStreamWaitEvent),
      COTANGENT_MGPU(mgpuEventCreate),
      COTANGENT_MGPU(mgpuEventDestroy),
      COTANGENT_MGPU(mgpuEventSynchronize),
      COTANGENT_MGPU(mgpuEventRecord),
      COTANGENT_MGPU(mgpuMemAlloc),
      COTANGENT_MGPU(mgpuMemFree),
      COTANGENT_MGPU(mgpuMemcpy),
      COTANGENT_MGPU(mgpuMemset32),
      COTANGENT_MGPU(mgpuMemset16),
      COTANGENT_MGPU(mgpuSetDefaultDevice),
  };
  return bindings;
}

} // namespace cotangent::cuda
