//===- CudaBindings.h - what compiled GPU code calls ------------*- C++ -*-===//
//
// The runtime ABI entries code lowered by jx-to-nvvm calls
// (runtime/core/RuntimeAbi.def, targets Cuda and Both: the allocation hooks,
// the batched matmuls, collectives, MLIR's GPU runtime wrappers, the host's
// scalar read) and the function of CudaRuntime.h each is bound to: by
// address in the JIT, by renaming the call in an object file.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CUDA_CUDABINDINGS_H
#define COTANGENT_RUNTIME_CUDA_CUDABINDINGS_H

#include "runtime/core/RuntimeAbi.h"

#include "llvm/ADT/ArrayRef.h"

namespace cotangent::cuda {

struct Binding {
  core::abi::Entry entry;  ///< what compiled code calls (its symbol)
  const char *runtimeName; ///< the CudaRuntime.h function it means
  void *address;
};

llvm::ArrayRef<Binding> runtimeBindings();

} // namespace cotangent::cuda

#endif // COTANGENT_RUNTIME_CUDA_CUDABINDINGS_H
