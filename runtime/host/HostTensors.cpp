//===- HostTensors.cpp - host tensors of memref descriptors ---------------===//

#include "runtime/host/HostTensors.h"

namespace cotangent::host {

int64_t elementBytes(mlir::RankedTensorType type) {
  return interp::getElementByteWidth(*interp::getElementKind(type.getElementType()));
}

int64_t bufferBytes(mlir::RankedTensorType type) {
  return type.getNumElements() * elementBytes(type);
}

Tensor readTensor(const MemRefDescriptor &descriptor, mlir::RankedTensorType type) {
  Tensor t(type);
  descriptor.copyElements(t.data(), elementBytes(type));
  return t;
}

} // namespace cotangent::host
