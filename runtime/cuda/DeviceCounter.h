//===- DeviceCounter.h - the counter behind cotangent_cuda_alloc -*- C++ -*-===//
//
// The C API (CudaRuntime.h) reports the managed blocks' live and peak bytes
// one figure at a time; CudaModule hands runtime/host the counter itself,
// as the CPU runtime hands it its hooks' counter.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CUDA_DEVICECOUNTER_H
#define COTANGENT_RUNTIME_CUDA_DEVICECOUNTER_H

#include "runtime/host/ByteCounter.h"

namespace cotangent::cuda {

/// The counter of cotangent_cuda_alloc's managed blocks (CudaDriver.cpp).
host::ByteCounter &deviceByteCounter();

} // namespace cotangent::cuda

#endif // COTANGENT_RUNTIME_CUDA_DEVICECOUNTER_H
