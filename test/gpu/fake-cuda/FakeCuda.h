//===- FakeCuda.h - what the fake cuBLAS asks of the fake driver ----------===//
//
// The fake driver (FakeCudaDriver.cpp, libcuda.so.1) exports these besides
// the driver's API, for the fake cuBLAS (FakeCublas.cpp) to check its
// operands and to run in stream order like any launch.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_GPU_FAKE_CUDA_H
#define COTANGENT_TEST_GPU_FAKE_CUDA_H

#include <cuda.h>

#include <cstddef>

extern "C" {
/// Runs fn(arg) in `s`'s order (recorded while `s` is captured).
void fakeCudaEnqueue(CUstream s, void (*fn)(void *), void *arg);
/// Copies between device memory and the host's (pageable or pinned) so
/// far: {to the device, their bytes, to the host, their bytes}.
void fakeCudaCopies(unsigned long long counts[4]);
/// Whether [p, p + bytes) lies in one live device or pinned block.
int fakeCudaIsLive(const void *p, size_t bytes);
}

#endif // COTANGENT_TEST_GPU_FAKE_CUDA_H
