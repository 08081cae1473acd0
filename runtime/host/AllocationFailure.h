//===- AllocationFailure.h - compiled code that runs out of memory -*- C++ -*-===//
//
// Compiled code writes through what the allocation hook returns; a null
// block would make it crash. A hook that cannot allocate calls
// allocationFailed() instead, which unwinds to the innermost
// runCatchingAllocationFailure() (compiled code has no destructors to skip),
// so the call fails with a diagnostic; without one the process ends with a
// message and exit status 1.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_ALLOCATIONFAILURE_H
#define COTANGENT_RUNTIME_HOST_ALLOCATIONFAILURE_H

#include <cstdint>
#include <optional>

namespace cotangent::host {

/// Calls `fn(context)`; the bytes of the allocation that failed inside it,
/// or nullopt when none did.
std::optional<uint64_t> runCatchingAllocationFailure(void (*fn)(void *), void *context);

/// What an allocation hook calls when it cannot allocate `bytes`.
[[noreturn]] void allocationFailed(uint64_t bytes);

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_ALLOCATIONFAILURE_H
