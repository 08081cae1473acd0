//===- Threads.h - the one pool of threads compiled CPU code runs on -*- C++ -*-===//
//
// Compiled code runs its large parallel loops on libomp's threads
// (--jx-parallel-loops, convert-scf-to-openmp) and its dots in OpenBLAS.
// Both get the same thread count, and libomp's threads sleep as soon as a
// loop ends (block time 0) instead of spinning, so that they never take the
// cores from a BLAS call that follows: the two take turns on the same cores.
// The runtime's own kernels (Attention.h) fork their loops on the same libomp
// threads, through parallelFor().
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_THREADS_H
#define COTANGENT_RUNTIME_CPU_THREADS_H

#include <cstdint>
#include <functional>
#include <string>

namespace cotangent::cpu {

/// The thread count compiled code uses: set by setThreads(), else
/// COTANGENT_NUM_THREADS, else the cores this process may run on.
unsigned threads();

/// Uses `n` threads (>= 1) from now on, for loops and BLAS alike.
void setThreads(unsigned n);

/// Applies the thread count once per process (CpuModule does, before its
/// first call). An invalid COTANGENT_NUM_THREADS is reported in `error` and
/// the default is kept.
void configureThreads(std::string *error = nullptr);

/// Calls `body(begin, end)` on contiguous, non-empty chunks that together
/// cover [0, n) exactly once, one chunk per libomp thread (at most threads(),
/// at most n of them); the caller's thread takes the first chunk and the call
/// returns when all have run. No call when n <= 0; one, body(0, n), on the
/// caller's thread when n == 1 or threads() == 1, and on a team of one inside
/// another parallel region. `body` must not throw.
void parallelFor(int64_t n, const std::function<void(int64_t begin, int64_t end)> &body);

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_THREADS_H
