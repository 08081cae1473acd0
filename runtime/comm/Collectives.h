//===- Collectives.h - what compiled collectives call -----------*- C++ -*-===//
//
// The two entry points compiled code calls for a jx collective
// (conversion/llvm/CollectiveBufferization.cpp emits them): start hands the
// collective to the communication thread and returns a ticket, wait returns
// once it is done; --jx-defer-collective-waits moves each wait down to the
// first use of the buffers, so that a gradient's reduction runs while the
// backward goes on. Buffers are contiguous, shapes come as the two extents
// the collective's layout needs, and the work runs on the job's group
// (comm::world()), in the order started (one thread: every rank issues the
// same sequence). What each kind computes is the reference interpreter's
// (runtime/interpreter/Spmd.cpp); every mesh axis is the whole group, whose
// size the caller checked against the program's axis sizes before running.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_COMM_COLLECTIVES_H
#define COTANGENT_RUNTIME_COMM_COLLECTIVES_H

#include <cstdint>

namespace cotangent::comm {

/// Which collective a call runs (the first argument of cotangent_collective_start).
enum class CollectiveKind : int64_t {
  Psum = 0,
  Pmean = 1,
  AllGather = 2,
  PsumScatter = 3,
  Ppermute = 4,
  AxisIndex = 5,
};

} // namespace cotangent::comm

/// Starts `kind` on `in` into `out` (`element`: a comm::ElementKind for the sums,
/// `elementBytes` each element's size). Extents, in elements:
/// - psum, pmean, ppermute: `outer * inner` elements;
/// - all_gather: `in` is [outer][inner], `out` [outer][ranks][inner];
/// - psum_scatter: `in` is [outer][ranks][inner], `out` [outer][inner];
/// - axis_index: `out` is one i32.
/// `perm` holds `pairs` (source, destination) pairs (ppermute's). Neither
/// buffer may be used until cotangent_collective_wait(the ticket) returned.
extern "C" int64_t cotangent_collective_start(int64_t kind, int64_t element, int64_t elementBytes,
                                              intptr_t in, intptr_t out, int64_t outer,
                                              int64_t inner, intptr_t perm, int64_t pairs);
/// Returns once the collective of `ticket` (and every one started before it) is done.
extern "C" void cotangent_collective_wait(int64_t ticket);

#endif // COTANGENT_RUNTIME_COMM_COLLECTIVES_H
