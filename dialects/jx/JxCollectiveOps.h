//===- JxCollectiveOps.h - which jx ops are collectives ---------*- C++ -*-===//
//
// The one list of the collectives (JxCollectiveOps.td): what the
// interpreter hands to its simulated ranks and the lowerings stop at.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_H
#define COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_H

namespace mlir {
class Operation;
namespace jx {

/// Whether `op` is one of jx's collectives (psum, pmean, all_gather,
/// psum_scatter, ppermute, axis_index).
bool isCollective(Operation *op);

} // namespace jx
} // namespace mlir

#endif // COTANGENT_DIALECTS_JX_JXCOLLECTIVEOPS_H
