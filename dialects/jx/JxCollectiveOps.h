//===- JxCollectiveOps.h - which jx ops are collectives ---------*- C++ -*-===//
//
// The one list of the collectives (JxCollectiveOps.td): what the
// interpreter hands to its simulated ranks and the lowerings compile or
// refuse, and whether a program's collectives fit a group of ranks.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_H
#define COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>

namespace mlir {
class Operation;
namespace jx {

/// Whether `op` is one of jx's collectives (psum, pmean, all_gather,
/// psum_scatter, ppermute, axis_index).
bool isCollective(Operation *op);

/// Whether every collective under `root` can run on a group of `ranks`:
/// all_gather's and psum_scatter's axis_size is `ranks`, ppermute's pairs
/// name ranks below it. Fails with an error at the first that cannot
/// (`launch`: how the group was started, for the message).
llvm::LogicalResult checkGroupSize(Operation *root, int64_t ranks, const char *launch);

} // namespace jx
} // namespace mlir

#endif // COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_H
