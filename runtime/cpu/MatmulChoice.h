//===- MatmulChoice.h - the faster matmul library, per layout, measured -*- C++ -*-===//
//
// Which of oneDNN and OpenBLAS runs an f32 product faster depends on the CPU
// and on the shape: oneDNN's kernels are ahead on the AVX-512 machine's
// 1024-wide GEMMs, OpenBLAS's on an AVX2-only EPYC (docs/performance.md).
// So neither is fixed: the first time a process meets a layout (sizes and
// strides of the three operands) both libraries run it on the call's own
// operands and the faster is kept, for the process and in a file per machine
// kind (CPU model, kernels each library picked, thread count), so that the
// next process, and every process after, runs the layout where this one did.
// The file is locked while read and written: processes measuring at once
// agree on the first answer written.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_MATMULCHOICE_H
#define COTANGENT_RUNTIME_CPU_MATMULCHOICE_H

#include "runtime/cpu/OneDnnMatmul.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace cotangent::cpu {

/// A product's layout: the operands' element type, the batch, m, n, k and
/// each operand's three strides.
using MatmulLayout = std::array<int64_t, 14>;

/// Runs a product on one library and returns the seconds it took, or
/// std::nullopt where that library does not take the layout.
using MatmulTimer = std::optional<double> (*)(MatmulLibrary library, void *context);

/// The library measured fastest for `layout`: this process's answer, else
/// the file's, else measured now with `time` (each library run a few times,
/// the best time kept) and written down. The caller then runs the product
/// on it, so that the call's result is that library's, as later calls' are.
MatmulLibrary measuredLibrary(const MatmulLayout &layout, MatmulTimer time, void *context);

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

/// How many layouts this process measured itself, and read from the file.
struct MatmulChoiceCounts {
  int measured = 0, fromFile = 0;
};
MatmulChoiceCounts matmulChoiceCounts();

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_MATMULCHOICE_H
