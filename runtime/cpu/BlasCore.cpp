//===- BlasCore.cpp - which OpenBLAS kernels this process runs ------------===//

#include "runtime/cpu/BlasCore.h"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace cotangent;

namespace {

/// Set in the environment of the re-execution, so that it does not re-execute.
constexpr const char *kReexecuted = "COTANGENT_BLAS_CORE_CHOSEN";

/// OpenBLAS's x86-64 kernel families without AVX2, where its CPU detection
/// falls back to for a model it does not know.
constexpr std::array<std::string_view, 6> kPreAvx2 = {"prescott",   "core2",   "penryn",
                                                      "dunnington", "nehalem", "sandybridge"};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

} // namespace

cpu::BlasCore cpu::blasCore() {
  BlasCore core{.loaded = openblas_get_corename(), .better = std::nullopt};
#if defined(__x86_64__)
  std::string name = lower(core.loaded);
  bool preAvx2 = std::find(kPreAvx2.begin(), kPreAvx2.end(), name) != kPreAvx2.end();
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (avx512 && (preAvx2 || name == "haswell"))
    core.better = "SkylakeX";
  else if (preAvx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    core.better = "Haswell";
#endif
  return core;
}

std::optional<std::string> cpu::widerCoreToSet(const BlasCore &core, const char *coretype,
                                               bool reexecuted) {
  if (reexecuted || (coretype && *coretype))
    return std::nullopt;
  return core.better;
}

bool cpu::reexecWithWiderBlasKernels(char **argv, const char *note) {
  BlasCore core = blasCore();
  std::optional<std::string> wider =
      widerCoreToSet(core, std::getenv("OPENBLAS_CORETYPE"), std::getenv(kReexecuted));
  if (!wider)
    return true;
  if (note)
    std::printf("%s: OpenBLAS detected '%s' kernels on a CPU that runs '%s'; setting "
                "OPENBLAS_CORETYPE=%s for this process only\n",
                note, core.loaded.c_str(), wider->c_str(), wider->c_str());
  setenv("OPENBLAS_CORETYPE", wider->c_str(), 1);
  setenv(kReexecuted, "1", 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  std::perror("re-executing with wider OpenBLAS kernels failed");
  unsetenv("OPENBLAS_CORETYPE");
  return false;
}
