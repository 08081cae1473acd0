//===- CudaBindings.h - what compiled GPU code calls ------------*- C++ -*-===//
//
// The names code lowered by jx-to-nvvm calls (the allocation hooks of
// finalize-memref-to-llvm, jx-matmul-to-blas's batched matmuls, MLIR's GPU
// runtime wrappers, the host's scalar read) and the function of
// CudaRuntime.h each is bound to: by address in the JIT, by renaming the
// call in an object file.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CUDA_CUDABINDINGS_H
#define COTANGENT_RUNTIME_CUDA_CUDABINDINGS_H

#include "llvm/ADT/ArrayRef.h"

namespace cotangent::cuda {

struct Binding {
  const char *name;        ///< what compiled code calls
  const char *runtimeName; ///< the CudaRuntime.h function it means
  void *address;
};

llvm::ArrayRef<Binding> runtimeBindings();

} // namespace cotangent::cuda

#endif // COTANGENT_RUNTIME_CUDA_CUDABINDINGS_H
