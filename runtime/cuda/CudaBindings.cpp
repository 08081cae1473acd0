//===- CudaBindings.cpp - what compiled GPU code calls --------------------===//

#include "runtime/cuda/CudaBindings.h"

#include "runtime/cuda/CudaRuntime.h"

namespace cotangent::cuda {

#define COTANGENT_BIND(entry, fn)                                                             \
  Binding{core::abi::Entry::entry, #fn, reinterpret_cast<void *>(&fn)}

llvm::ArrayRef<Binding> runtimeBindings() {
  static const Binding bindings[] = {
      COTANGENT_BIND(Alloc, cotangent_cuda_alloc),
      COTANGENT_BIND(Free, cotangent_cuda_free),
      COTANGENT_BIND(BatchMatmulF32, cotangent_cuda_batch_matmul_f32),
      COTANGENT_BIND(BatchMatmulF64, cotangent_cuda_batch_matmul_f64),
      COTANGENT_BIND(BatchMatmulBF16, cotangent_cuda_batch_matmul_bf16),
      COTANGENT_BIND(BatchMatmulF16, cotangent_cuda_batch_matmul_f16),
      COTANGENT_BIND(CudaReadScalar, cotangent_cuda_read_scalar),
      COTANGENT_BIND(CudaMultiprocessors, cotangent_cuda_multiprocessors),
      COTANGENT_BIND(CudaDeviceGlobal, cotangent_cuda_device_global),
      COTANGENT_BIND(CollectiveStart, cotangent_cuda_collective_start),
      COTANGENT_BIND(CollectiveWait, cotangent_cuda_collective_wait),
      COTANGENT_BIND(MgpuModuleLoad, cotangent_mgpuModuleLoad),
      COTANGENT_BIND(MgpuModuleLoadJIT, cotangent_mgpuModuleLoadJIT),
      COTANGENT_BIND(MgpuModuleUnload, cotangent_mgpuModuleUnload),
      COTANGENT_BIND(MgpuModuleGetFunction, cotangent_mgpuModuleGetFunction),
      COTANGENT_BIND(MgpuLaunchKernel, cotangent_mgpuLaunchKernel),
      COTANGENT_BIND(MgpuStreamCreate, cotangent_mgpuStreamCreate),
      COTANGENT_BIND(MgpuStreamDestroy, cotangent_mgpuStreamDestroy),
      COTANGENT_BIND(MgpuStreamSynchronize, cotangent_mgpuStreamSynchronize),
      COTANGENT_BIND(MgpuStreamWaitEvent, cotangent_mgpuStreamWaitEvent),
      COTANGENT_BIND(MgpuEventCreate, cotangent_mgpuEventCreate),
      COTANGENT_BIND(MgpuEventDestroy, cotangent_mgpuEventDestroy),
      COTANGENT_BIND(MgpuEventSynchronize, cotangent_mgpuEventSynchronize),
      COTANGENT_BIND(MgpuEventRecord, cotangent_mgpuEventRecord),
      COTANGENT_BIND(MgpuMemAlloc, cotangent_mgpuMemAlloc),
      COTANGENT_BIND(MgpuMemFree, cotangent_mgpuMemFree),
      COTANGENT_BIND(MgpuMemcpy, cotangent_mgpuMemcpy),
      COTANGENT_BIND(MgpuMemset32, cotangent_mgpuMemset32),
      COTANGENT_BIND(MgpuMemset16, cotangent_mgpuMemset16),
      COTANGENT_BIND(MgpuSetDefaultDevice, cotangent_mgpuSetDefaultDevice),
  };
  return bindings;
}

} // namespace cotangent::cuda
