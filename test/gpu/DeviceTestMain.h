//===- DeviceTestMain.h - the main of the GPU's Catch2 tests ----*- C++ -*-===//
//
// The GPU test executables run in three ways (test/gpu/CMakeLists.txt):
// without flags, their [host] cases (no device needed); with
// `--device-tests`, their [device] cases on a GPU (exit 77, SKIPPED by
// ctest, without one); with `--driver-double` as well, the [device] cases
// on test/gpu/fake-cuda's driver (first on LD_LIBRARY_PATH), where kernels
// compute nothing: `kernelsRun` is false, and values are not compared.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_GPU_DEVICETESTMAIN_H
#define COTANGENT_TEST_GPU_DEVICETESTMAIN_H

#include <catch2/catch.hpp>

#include "runtime/cuda/CudaRuntime.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace cotangent::test {

/// Runs the Catch2 session the flags ask for; sets `kernelsRun`.
inline int runDeviceTests(int argc, char **argv, bool &kernelsRun) {
  std::vector<char *> args(argv, argv + argc);
  bool device = false;
  for (auto it = args.begin(); it != args.end();)
    if (std::strcmp(*it, "--device-tests") == 0 || std::strcmp(*it, "--driver-double") == 0) {
      device = device || std::strcmp(*it, "--device-tests") == 0;
      kernelsRun = kernelsRun && std::strcmp(*it, "--driver-double") != 0;
      it = args.erase(it);
    } else {
      ++it;
    }
  if (device && cotangent_cuda_init() != 0) {
    std::printf("SKIPPED: %s\n", cotangent_cuda_last_error());
    return 77;
  }
  std::string tag = device ? "[device]" : "[host]";
  if (args.size() == 1)
    args.push_back(tag.data());
  return Catch::Session().run(static_cast<int>(args.size()), args.data());
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_GPU_DEVICETESTMAIN_H
