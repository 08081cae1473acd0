// What cpu::blasCore() says of the OpenBLAS kernels this process loaded.
#include "runtime/cpu/BlasCore.h"

#include <catch2/catch.hpp>
#include <cblas.h>

#include <cctype>
#include <cstdlib>
#include <string>

using namespace cotangent;

TEST_CASE("blasCore names the loaded kernels and only ever suggests wider ones the CPU runs",
          "[cpu][blas]") {
  cpu::BlasCore core = cpu::blasCore();
  CHECK(core.loaded == openblas_get_corename());
  CHECK_FALSE(core.loaded.empty());
#if defined(__x86_64__)
  if (!core.better)
    return;
  CHECK(*core.better != core.loaded);
  if (*core.better == "SkylakeX") {
    CHECK(__builtin_cpu_supports("avx512f"));
    CHECK(__builtin_cpu_supports("avx512bw"));
  } else {
    CHECK(*core.better == "Haswell");
    CHECK(__builtin_cpu_supports("avx2"));
    CHECK_FALSE(__builtin_cpu_supports("avx512f"));
  }
#else
  CHECK_FALSE(core.better); // only x86-64's kernel families are known
#endif
}

TEST_CASE("a program sets wider kernels only when the environment names none and it has not "
          "re-executed yet",
          "[cpu][blas]") {
  cpu::BlasCore fallback{.loaded = "Prescott", .better = "SkylakeX"};
  cpu::BlasCore widest{.loaded = "SkylakeX", .better = std::nullopt};
  CHECK(cpu::widerCoreToSet(fallback, nullptr, false) == "SkylakeX");
  CHECK(cpu::widerCoreToSet(fallback, "", false) == "SkylakeX");
  CHECK_FALSE(cpu::widerCoreToSet(fallback, "Haswell", false)); // the user's choice stands
  CHECK_FALSE(cpu::widerCoreToSet(fallback, nullptr, true));    // once only
  CHECK_FALSE(cpu::widerCoreToSet(widest, nullptr, false));
}

TEST_CASE("the kernel family OPENBLAS_CORETYPE names is the one loaded", "[cpu][blas][numerics]") {
  // The numerics label runs under each family (test/numerics/run-under.sh):
  // this proves it did.
  const char *wanted = std::getenv("OPENBLAS_CORETYPE");
  if (!wanted || !*wanted)
    return;
  auto lower = [](std::string s) {
    for (char &c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  CHECK(lower(openblas_get_corename()) == lower(wanted));
}
