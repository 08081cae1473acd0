//===- HostAllocations.h - counting the bench's host allocations -*- C++ -*-===//
//
// cotangent-bench replaces the global operator new (HostAllocations.cpp) to
// count the host allocations a call makes outside compiled code: the
// training step's bookkeeping (trees, names, descriptors), which the
// optimizer issue wants to be none in steady state. Compiled code's buffers
// go through the runtime's allocation hooks, not operator new, and are not
// counted here; neither are C allocations (malloc) of libraries. What
// libraries allocate with operator new while compiled code runs is counted
// apart.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_HOSTALLOCATIONS_H
#define COTANGENT_BENCH_HOSTALLOCATIONS_H

#include <cstdint>

namespace cotangent::bench {

/// operator new calls in this process so far (all threads).
uint64_t hostAllocations();
/// Those of them made by a thread while it ran compiled code
/// (host::runningCompiledCode(): libraries a step calls, e.g. oneDNN's
/// execute), not by the host's bookkeeping around it.
uint64_t compiledCodeAllocations();

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_HOSTALLOCATIONS_H
