//===- Threads.cpp - the one pool of threads compiled CPU code runs on ----===//

#include "runtime/cpu/Threads.h"

#include <cblas.h>
#include <sched.h>

#include <cstdlib>
#include <mutex>
#include <thread>

// libomp's C API (omp.h lives among clang's builtin headers, which are not
// GCC's to include).
extern "C" {
void omp_set_num_threads(int);
void kmp_set_blocktime(int);
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
