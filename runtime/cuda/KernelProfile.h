//===- KernelProfile.h - where a GPU step's time goes -----------*- C++ -*-===//
//
// Times every kernel launch and cuBLAS call of eager steps with a pair of
// events around it on the compute stream, so a user sees which kernels a
// step spends its time in without a profiler (ncu replays each kernel; this
// costs two event records per launch and perturbs nothing else). Not while
// a CUDA graph is being recorded: profile eager steps.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CUDA_KERNELPROFILE_H
#define COTANGENT_RUNTIME_CUDA_KERNELPROFILE_H

#include <string>
#include <vector>

namespace cotangent::cuda {

/// One kernel (or cuBLAS call shape) over the profiled launches.
struct KernelTime {
  /// `<function>`, `<function>_0`, `<function>_1`, ... for the modules
  /// holding a kernel function of that name, in the order of their first
  /// launch (gpu-kernel-outlining's module names for straight-line code),
  /// with the launch's grid and block; `cublas gemm MxNxK x B` for a matmul.
  std::string name;
  int launches = 0;
  double microseconds = 0; ///< summed over its launches
};

/// Starts timing launches; false (see cotangent_cuda_last_error()) without a
/// device or while recording a graph.
bool beginKernelProfile();
/// Waits for the device and returns the times since beginKernelProfile,
/// slowest kernel first; stops timing.
std::vector<KernelTime> endKernelProfile();

} // namespace cotangent::cuda

#endif // COTANGENT_RUNTIME_CUDA_KERNELPROFILE_H
