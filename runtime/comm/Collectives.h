//===- Collectives.h - what compiled collectives call -----------*- C++ -*-===//
//
// The one entry point compiled code calls for a jx collective
// (conversion/llvm/CollectiveBufferization.cpp emits the calls): buffers are
// contiguous, shapes come as the two extents the collective's layout needs,
// and the work runs on the job's group (comm::world()). What each kind
// computes is the reference interpreter's (runtime/interpreter/Spmd.cpp);
// every mesh axis is the whole group, whose size the caller checked against
// the program's axis sizes before running it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_COMM_COLLECTIVES_H
#define COTANGENT_RUNTIME_COMM_COLLECTIVES_H

#include <cstdint>

namespace cotangent::comm {

/// Which collective a call runs (the first argument of cotangent_collective).
enum class CollectiveKind : int64_t {
  Psum = 0,
  Pmean = 1,
  AllGather = 2,
  PsumScatter = 3,
  Ppermute = 4,
  AxisIndex = 5,
};

} // namespace cotangent::comm

/// `kind` on `in` into `out` (`element`: a comm::ElementKind for the sums,
/// `elementBytes` each element's size). Extents, in elements:
/// - psum, pmean, ppermute: `outer * inner` elements;
/// - all_gather: `in` is [outer][inner], `out` [outer][ranks][inner];
/// - psum_scatter: `in` is [outer][ranks][inner], `out` [outer][inner];
/// - axis_index: `out` is one i32.
/// `perm` holds `pairs` (source, destination) pairs (ppermute's).
extern "C" void cotangent_collective(int64_t kind, int64_t element, int64_t elementBytes,
                                     intptr_t in, intptr_t out, int64_t outer, int64_t inner,
                                     intptr_t perm, int64_t pairs);

#endif // COTANGENT_RUNTIME_COMM_COLLECTIVES_H
