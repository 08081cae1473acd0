//===- RevolveSchedule.cpp - binomial checkpointing of a scan -------------===//
//
// The schedule splits L iterations at m: advance m, save, reverse the last
// L-m with one snapshot fewer, restore, reverse the first m with all of
// them. Every m in
//   [max(beta(s, r-2), L - beta(s-1, r)), min(beta(s, r-1), L - beta(s-1, r-1))]
// reaches the optimum (checked against the exhaustive recursion in
// test/unit/remat/RevolveScheduleTest.cpp); the largest is taken.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/RevolveSchedule.h"

#include <algorithm>
#include <limits>

using namespace mlir::cotangent;

static constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t mlir::cotangent::binomialReach(int64_t snapshots, int64_t repetitions) {
  if (snapshots < 0 || repetitions < 0)
    return 0;
  // C(s+r, r) built as prod_{k=1..r} (s+k)/k; each partial product is an
  // integer (a binomial coefficient), so the division is exact.
  __int128 value = 1;
  for (int64_t k = 1; k <= repetitions; ++k) {
    value = value * (snapshots + k) / k;
    if (value > kMax)
      return kMax;
  }
  return static_cast<int64_t>(value);
}

/// The least r with beta(s, r) >= length, with beta(s, r-1) and
/// beta(s-1, r-1) (built up term by term: O(r)).
struct Repetitions {
  int64_t r, reachBelow, tailReachBelow;
};
static Repetitions repetitions(int64_t length, int64_t snapshots) {
  if (snapshots == 1) // beta(1, r) = r + 1
    return {std::max<int64_t>(length - 1, 0), std::max<int64_t>(length - 1, 1), 1};
  // beta(s, r) = beta(s, r-1) * (s+r) / r, and beta(s-1, r) = beta(s, r) * s / (s+r).
  __int128 reach = 1, below = 1, tailBelow = 1;
  int64_t r = 0;
  while (reach < length) {
    ++r;
    below = reach;
    tailBelow = below * snapshots / (snapshots + r - 1);
    reach = reach * (snapshots + r) / r;
  }
  return {r, static_cast<int64_t>(std::min<__int128>(below, kMax)),
          static_cast<int64_t>(std::min<__int128>(tailBelow, kMax))};
}

int64_t mlir::cotangent::revolveAdvances(int64_t length, int64_t snapshots) {
  if (length <= 1)
    return 0;
  int64_t r = repetitions(length, snapshots).r;
  __int128 advances = static_cast<__int128>(r) * length - binomialReach(snapshots + 1, r - 1);
  return advances > kMax ? kMax : static_cast<int64_t>(advances);
}

/// Where to split `length` >= 2 iterations reversed with `snapshots` >= 1.
static int64_t splitPoint(int64_t length, int64_t snapshots) {
  Repetitions reps = repetitions(length, snapshots);
  int64_t head = std::min(reps.reachBelow, length - reps.tailReachBelow);
  return std::clamp<int64_t>(head, 1, length - 1);
}

namespace {
struct Emitter {
  llvm::SmallVector<RevolveAction> actions;
  int64_t maxActions;

  bool push(RevolveAction action) {
    if (static_cast<int64_t>(actions.size()) >= maxActions)
      return false;
    actions.push_back(action);
    return true;
  }

  /// Reverses [start, start+length) from the current carry, which is
  /// iteration `start`'s and saved in `slot`; `snapshots` slots from `slot` up.
  bool reverse(int64_t start, int64_t length, int64_t slot, int64_t snapshots) {
    while (length > 1) {
      int64_t head = splitPoint(length, snapshots);
      // A tail of one iteration is reversed at once: no snapshot needed.
      if (!push({RevolveAction::Advance, 0, head}) ||
          (length - head > 1 && !push({RevolveAction::Save, slot + 1, 0})) ||
          !reverse(start + head, length - head, slot + 1, snapshots - 1) ||
          !push({RevolveAction::Restore, slot, start}))
        return false;
      length = head;
    }
    return push({RevolveAction::Reverse, 0, 0});
  }
};
} // namespace

std::optional<llvm::SmallVector<RevolveAction>>
mlir::cotangent::revolveSchedule(int64_t length, int64_t snapshots, int64_t maxActions) {
  if (length < 1 || snapshots < 1)
    return std::nullopt;
  Emitter emitter{{}, maxActions};
  if (!emitter.push({RevolveAction::Save, 0, 0}) || !emitter.reverse(0, length, 0, snapshots))
    return std::nullopt;
  return std::move(emitter.actions);
}

std::optional<int64_t> mlir::cotangent::replayRevolveSchedule(llvm::ArrayRef<RevolveAction> actions,
                                                              int64_t length, int64_t snapshots) {
  llvm::SmallVector<int64_t> slots(snapshots, -1); // the iteration each snapshot holds
  int64_t current = 0, next = length - 1, advanced = 0;
  for (const RevolveAction &a : actions) {
    switch (a.kind) {
    case RevolveAction::Advance:
      if (a.count < 1 || current + a.count > next)
        return std::nullopt;
      current += a.count;
      advanced += a.count;
      break;
    case RevolveAction::Save:
      if (a.slot < 0 || a.slot >= snapshots)
        return std::nullopt;
      slots[a.slot] = current;
      break;
    case RevolveAction::Restore:
      if (a.slot < 0 || a.slot >= snapshots || slots[a.slot] != a.count)
        return std::nullopt;
      current = a.count;
      break;
    case RevolveAction::Reverse:
      if (current != next)
        return std::nullopt;
      --next;
      break;
    }
  }
  if (next != -1)
    return std::nullopt;
  return advanced;
}
