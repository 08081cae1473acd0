//===- BlasCore.cpp - which OpenBLAS kernels this process runs ------------===//

#include "runtime/cpu/BlasCore.h"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

using namespace cotangent;

namespace {

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
