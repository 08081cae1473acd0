//===- MatmulChoice.h - the faster matmul library, measured per machine -*- C++ -*-===//
//
// Which of oneDNN and OpenBLAS runs f32 products faster depends on the CPU:
// oneDNN's kernels are ahead on the AVX-512 machine, OpenBLAS's on an
// AVX2-only one (docs/performance.md). So neither is fixed: the first
// product a process runs on a machine kind it has not met (CPU model, the
// kernels OpenBLAS picked, ONEDNN_MAX_CPU_ISA, the thread count) times both
// on a few shapes of a training step, and the faster is kept, for the
// process and in a file per machine kind, so that every later process runs
// where this one did without measuring. One library for every layout, not
// one per layout: within a step, OpenBLAS's own threads and the loops'
// libomp threads (which oneDNN shares) spin against each other, so a step
// mixing them ran slower than either alone (GPT-2 124M: 731-743 ms mixed,
// 610-647 on oneDNN, 836 on OpenBLAS), though each layout alone had timed
// faster on its library. The file is locked while read and written:
// processes measuring at once agree on the first answer written.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_MATMULCHOICE_H
#define COTANGENT_RUNTIME_CPU_MATMULCHOICE_H

#include "runtime/cpu/OneDnnMatmul.h"

#include <cstdint>
#include <optional>
#include <string>

namespace cotangent::cpu {

/// Runs C = A * B on one library; false where that library does not take
/// it (oneDNN not loaded, or only its reference kernels would).
using MatmulRunner = bool (*)(MatmulLibrary library, const CotangentMemRef3 &a,
                              const CotangentMemRef3 &b, const CotangentMemRef3 &c);

/// The library measured faster on this machine kind: this process's answer,
/// else the file's, else measured now with `run` on the calibration shapes
/// (each library's runs back to back, the best of three after a warm-up)
/// and written down. OpenBLAS must take at most kOpenBlasShare of oneDNN's
/// time to be chosen: the loops' threads are oneDNN's.
MatmulLibrary measuredLibrary(MatmulRunner run);

/// The share of oneDNN's time below which OpenBLAS is chosen.
inline constexpr double kOpenBlasShare = 0.9;

/// The file measurements are kept in: COTANGENT_MATMUL_CACHE (a path, or
/// "off"), else $XDG_CACHE_HOME/cotangent or ~/.cache/cotangent, a file
/// named after the machine kind; empty when there is none (measured per
/// process).
std::string matmulCachePath();

/// Keeps measurements in `path` from now on ("" for none), forgetting this
/// process's answers: a shared file for machines of one kind, or a test's.
void setMatmulCachePath(const std::string &path);

/// The machine kind a file's answers hold for (its first line).
std::string matmulMachineKind();

/// How many times this process measured, and read the answer from the file.
struct MatmulChoiceCounts {
  int measured = 0, fromFile = 0;
};
MatmulChoiceCounts matmulChoiceCounts();

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_MATMULCHOICE_H
