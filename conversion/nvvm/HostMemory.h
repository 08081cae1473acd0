//===- HostMemory.h - which buffers of GPU host code are the host's -*- C++ -*-===//
//
// After bufferization for the GPU, buffers are device memory except the
// stack buffers jx-gpu-host-buffers made (memref.alloca: small scalars the
// host branches on) and what functions called only with those receive.
// A kernel cannot reach them: the passes that move host code onto the
// device (jx-gpu-kernelize-host-code, jx-gpu-parallel-scatters) ask here.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CONVERSION_NVVM_HOSTMEMORY_H
#define COTANGENT_CONVERSION_NVVM_HOSTMEMORY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::cotangent {

/// Private functions whose every call passes stack buffers for every buffer
/// argument (the deallocation pipeline's alias-check helper): host code.
llvm::DenseSet<Operation *> hostFunctions(ModuleOp module);

/// Whether `buffer` (through casts) is a stack buffer, or an argument of one
/// of `hostFunctions`.
bool isHostMemory(Value buffer, const llvm::DenseSet<Operation *> &hostFunctions);

} // namespace mlir::cotangent

#endif // COTANGENT_CONVERSION_NVVM_HOSTMEMORY_H
