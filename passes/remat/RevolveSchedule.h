//===- RevolveSchedule.h - binomial checkpointing of a scan -----*- C++ -*-===//
//
// Griewank's revolve: reversing L iterations with at most s carries saved at
// a time (snapshots, the initial carry included). An iteration's tape (its
// residuals) exists only while it is reversed ("reverse": run it forward
// with its residuals, then its backward), so every iteration but the last
// runs at least twice. The schedule re-runs the fewest iterations possible,
// r*L - beta(s+1, r-1) where beta(s, r) = C(s+r, s) and r is the least
// repetition count with beta(s, r) >= L (Griewank and Walther, ACM TOMS
// 26(1), 2000).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REMAT_REVOLVESCHEDULE_H
#define COTANGENT_PASSES_REMAT_REVOLVESCHEDULE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir::cotangent {

/// beta(s, r) = C(s+r, s): the most iterations s snapshots reverse when each
/// iteration may be advanced at most r times; saturates at INT64_MAX.
int64_t binomialReach(int64_t snapshots, int64_t repetitions);

/// The iterations an optimal schedule advances (runs without a tape) to
/// reverse `length` >= 1 iterations with `snapshots` >= 1: the closed form
/// above. This is the recompute count: with the one taped run per
/// iteration, the body runs length + this many times.
int64_t revolveAdvances(int64_t length, int64_t snapshots);

struct RevolveAction {
  enum Kind : int32_t {
    /// Run `count` iterations forward without tape from the current carry.
    Advance = 0,
    /// Save the current carry in snapshot `slot`.
    Save = 1,
    /// Make snapshot `slot` (taken at iteration `count`) the current carry.
    Restore = 2,
    /// Run the current iteration forward with its tape, then its backward.
    Reverse = 3,
  };
  Kind kind;
  int64_t slot = 0;
  int64_t count = 0;
};

/// The whole schedule, from the first Save of the initial carry to the
/// Reverse of iteration 0, or nullopt when it would exceed `maxActions`.
/// Slots are used as a stack, below `snapshots`. The forward sweep is the
/// prefix before the first Reverse (of iteration length-1).
std::optional<llvm::SmallVector<RevolveAction>> revolveSchedule(int64_t length, int64_t snapshots,
                                                                int64_t maxActions);

/// Replays `actions` and checks that they reverse `length` iterations with
/// at most `snapshots` slots: each iteration reversed once, last to first,
/// from its own carry, and every Restore reading a live snapshot. Returns
/// the number of advanced iterations, or nullopt if the schedule is invalid.
std::optional<int64_t> replayRevolveSchedule(llvm::ArrayRef<RevolveAction> actions,
                                             int64_t length, int64_t snapshots);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REMAT_REVOLVESCHEDULE_H
