//===- BlasCore.h - which OpenBLAS kernels this process runs ----*- C++ -*-===//
//
// OpenBLAS picks its kernels once, when it loads, from OPENBLAS_CORETYPE or
// its own CPU detection. Debian's 0.3.21 does not know newer Intel server
// models (seen: a Sapphire Rapids VM) and falls back to its SSE3 "Prescott"
// kernels, an eighth of the GEMM rate the CPU has (32 against 275 GFLOP/s
// on 1024^3, 2 threads). Only a new process can change the choice, so this
// says what was chosen and what this CPU could run instead.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_BLASCORE_H
#define COTANGENT_RUNTIME_CPU_BLASCORE_H

#include <optional>
#include <string>

namespace cotangent::cpu {

struct BlasCore {
  /// The kernels OpenBLAS loaded (openblas_get_corename()).
  std::string loaded;
  /// An OPENBLAS_CORETYPE whose kernels this CPU runs and that are wider than
  /// the loaded ones (SkylakeX for AVX-512, Haswell for AVX2 + FMA); empty
  /// when the loaded kernels are already the widest.
  std::optional<std::string> better;
};

BlasCore blasCore();

/// The OPENBLAS_CORETYPE a program should set for itself before OpenBLAS
/// loads again: the wider family of `core`, unless the environment already
/// names kernels (`coretype`: the user's choice stands) or this process is
/// already the re-execution that set them (`reexecuted`).
std::optional<std::string> widerCoreToSet(const BlasCore &core, const char *coretype,
                                          bool reexecuted);

/// For programs (cotangent-run, cotangent-demo, the bench; a user's own main
/// may call it first thing): where widerCoreToSet says so, sets
/// OPENBLAS_CORETYPE and re-executes this program (/proc/self/exe, `argv`)
/// once, after printing `note` with the kernels' names to stdout when given
/// ("<note>: OpenBLAS detected ..."). Returns only when nothing was to be
/// changed, or with false when the re-execution failed.
bool reexecWithWiderBlasKernels(char **argv, const char *note = nullptr);

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_BLASCORE_H
