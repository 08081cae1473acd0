//===- Threads.cpp - the one pool of threads compiled CPU code runs on ----===//

#include "runtime/cpu/Threads.h"

#include <cblas.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>

// libomp's C API (omp.h lives among clang's builtin headers, which are not
// GCC's to include), and the entry points clang's OpenMP code calls, which
// parallelFor() calls the same way: a parallel region is a "microtask" that
// every thread of the team runs with the arguments given to the fork.
extern "C" {
void omp_set_num_threads(int);
void kmp_set_blocktime(int);
int omp_get_thread_num();
int omp_get_num_threads();

/// libomp's source location record; only `flags` and `psource` are read.
struct KmpIdent {
  int32_t reserved1;
  int32_t flags;
  int32_t reserved2;
  int32_t reserved3;
  const char *psource;
};
using KmpMicrotask = void (*)(int32_t *globalTid, int32_t *boundTid, ...);
int32_t __kmpc_global_thread_num(KmpIdent *loc);
void __kmpc_push_num_threads(KmpIdent *loc, int32_t globalTid, int32_t threads);
void __kmpc_fork_call(KmpIdent *loc, int32_t argc, KmpMicrotask microtask, ...);
}

using namespace cotangent;

namespace {

unsigned availableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Processes an MPI launcher started on this machine (Open MPI's, MPICH's
/// variable), 1 without one: they share its cores.
unsigned processesHere() {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char *env = std::getenv(name))
      if (long n = std::strtol(env, nullptr, 10); n >= 1)
        return static_cast<unsigned>(n);
  return 1;
}

unsigned &chosen() {
  static unsigned n = 0; // 0: not chosen yet
  return n;
}

void apply(unsigned n) {
  omp_set_num_threads(static_cast<int>(n));
  openblas_set_num_threads(static_cast<int>(n));
}

} // namespace

unsigned cpu::threads() {
  configureThreads();
  return chosen();
}

void cpu::setThreads(unsigned n) {
  configureThreads();
  chosen() = std::max(1u, n);
  apply(chosen());
}

void cpu::configureThreads(std::string *error) {
  static std::once_flag once;
  static std::string envError;
  std::call_once(once, [] {
    // Ranks of one job on one machine split its cores, unless mpirun bound
    // each to cores of its own.
    unsigned n = availableCores();
    if (n == std::max(1u, std::thread::hardware_concurrency()))
      n = std::max(1u, n / processesHere());
    if (const char *env = std::getenv("COTANGENT_NUM_THREADS")) {
      char *end = nullptr;
      long value = std::strtol(env, &end, 10);
      if (end != env && *end == '\0' && value >= 1 && value <= 4096)
        n = static_cast<unsigned>(value);
      else
        envError = std::string("COTANGENT_NUM_THREADS='") + env +
                   "' is not a thread count from 1 to 4096; using " + std::to_string(n);
    }
    // After a loop, libomp's threads spin for 1 ms before they sleep: a
    // step's loops and oneDNN's matmuls (on the same threads) follow each
    // other within microseconds, and waking sleeping threads for each cost
    // more than the loop itself on small tensors (GPT-2 tiny's step: 30 ms
    // sleeping at once, 8 ms spinning). Longer (libomp's 200 ms) would keep
    // cores busy long after a step. A user's KMP_BLOCKTIME still wins.
    if (!std::getenv("KMP_BLOCKTIME"))
      kmp_set_blocktime(1);
    chosen() = n;
    apply(n);
  });
  if (error)
    *error = envError;
}

namespace {

struct ParallelJob {
  int64_t n;
  const std::function<void(int64_t, int64_t)> *body;
};

/// One thread's share of a ParallelJob: the t-th of the team's near-equal
/// contiguous chunks (the first n % team of them one longer).
void runChunk(int32_t *, int32_t *, void *context) {
  const auto *job = static_cast<const ParallelJob *>(context);
  const int64_t t = omp_get_thread_num(), team = omp_get_num_threads();
  const int64_t base = job->n / team, extra = job->n % team;
  const int64_t begin = t * base + std::min(t, extra);
  const int64_t end = begin + base + (t < extra ? 1 : 0);
  if (begin < end)
    (*job->body)(begin, end);
}

} // namespace

void cpu::parallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &body) {
  if (n <= 0)
    return;
  const int64_t team = std::min<int64_t>(threads(), n);
  if (team <= 1) {
    body(0, n);
    return;
  }
  // KMP_IDENT_KMPC (2): a region forked by the C entry points.
  static KmpIdent location{0, 2, 0, 0, ";cotangent;parallelFor;0;0;;"};
  ParallelJob job{n, &body};
  // The count for this one region: omp_set_num_threads() set it only for the
  // thread that called setThreads(). Inside another region libomp runs this
  // one on a team of one (nesting is off by default): one chunk, all of it.
  __kmpc_push_num_threads(&location, __kmpc_global_thread_num(&location),
                          static_cast<int32_t>(team));
  __kmpc_fork_call(&location, 1, reinterpret_cast<KmpMicrotask>(&runChunk), &job);
}
