//===- ScanSchedule.h - checkpoint schedules for long scans -----*- C++ -*-===//
//
// A scan with `checkpoint_lengths = [a, b, ...]` is differentiated as nested
// scans: `a` checkpointed chunks of `b` ..., as Flax's remat_scan. The
// forward then keeps one carry per outer chunk; the backward of each chunk
// re-runs its forward once, level by level.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REMAT_SCANSCHEDULE_H
#define COTANGENT_PASSES_REMAT_SCANSCHEDULE_H

#include "dialects/jx/JxOps.h"

namespace mlir::cotangent {

/// [L/k, k] (every k iterations a snapshot); fails unless k divides L.
FailureOr<SmallVector<int64_t>> everyKLengths(int64_t length, int64_t k);
/// [L/d, d] with d the divisor of L closest to sqrt(L): O(sqrt L) carries.
SmallVector<int64_t> sqrtLengths(int64_t length);
/// L's prime factors, largest first: O(log L) carries for smooth L.
SmallVector<int64_t> recursiveLengths(int64_t length);

/// Rewrites `scan` (which has checkpoint_lengths) into nested checkpointed
/// scans, replacing its uses; nested levels are expanded too.
void expandCheckpointedScan(jx::ScanOp scan);

/// Expands every scheduled scan under `root`.
void expandCheckpointedScans(Operation *root);

/// "at most N carries live, M iterations recomputed" for a schedule of `lengths`.
std::string describeSchedule(ArrayRef<int64_t> lengths);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REMAT_SCANSCHEDULE_H
