//===- HostTensors.h - host tensors of memref descriptors -------*- C++ -*-===//
//
// The runtime core's memref descriptor (runtime/core/MemRefDescriptor.h) in
// the host runtime's terms: a buffer's bytes by tensor type, and a host
// tensor of the elements a descriptor views.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_HOSTTENSORS_H
#define COTANGENT_RUNTIME_HOST_HOSTTENSORS_H

#include "runtime/core/MemRefDescriptor.h"
#include "runtime/interpreter/Tensor.h"

namespace cotangent::host {

using core::MemRefDescriptor;
using interp::Tensor;

/// Bytes of a dense row-major buffer of `type` (i1: one byte an element).
int64_t bufferBytes(mlir::RankedTensorType type);
/// Bytes of one element of `type`.
int64_t elementBytes(mlir::RankedTensorType type);

/// A host tensor of `type` holding the elements `descriptor` views; the
/// buffer must be readable from the host.
Tensor readTensor(const MemRefDescriptor &descriptor, mlir::RankedTensorType type);

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_HOSTTENSORS_H
