// The binomial (revolve) schedule of a scan with `snapshots`: for every
// length up to 1000 and every snapshot count up to 10, the schedule is valid
// (a replay reverses every iteration once, last to first, from its own
// carry, within the snapshot slots) and advances exactly Griewank's closed
// form r*L - beta(s+1, r-1); for small cases that closed form is the optimum
// of the exhaustive recursion over every split point.
#include "passes/remat/RevolveSchedule.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

using namespace mlir::cotangent;

namespace {

/// The fewest advances of any split schedule: the recursion over every
/// split m of "advance m, save, reverse the tail with s-1, restore, reverse
/// the head with s", by exhaustive search.
std::vector<std::vector<int64_t>> exhaustiveAdvances(int64_t maxLength, int64_t maxSnapshots) {
  constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;
  std::vector<std::vector<int64_t>> t(maxLength + 1, std::vector<int64_t>(maxSnapshots + 1, kInf));
  for (int64_t s = 0; s <= maxSnapshots; ++s)
    t[1][s] = 0;
  for (int64_t l = 2; l <= maxLength; ++l)
    for (int64_t s = 1; s <= maxSnapshots; ++s)
      for (int64_t m = 1; m < l; ++m)
        t[l][s] = std::min(t[l][s], m + t[l - m][s - 1] + t[m][s]);
  return t;
}

} // namespace

TEST_CASE("revolve: beta(s, r) is the binomial C(s+r, s) and saturates", "[remat][revolve]") {
  CHECK(binomialReach(1, 4) == 5);
  CHECK(binomialReach(3, 2) == 10);
  CHECK(binomialReach(10, 4) == 1001);
  CHECK(binomialReach(0, 7) == 1);
  CHECK(binomialReach(200, 200) == std::numeric_limits<int64_t>::max());
}

TEST_CASE("revolve: the closed form is the exhaustive optimum", "[remat][revolve]") {
  auto t = exhaustiveAdvances(120, 8);
  for (int64_t s = 1; s <= 8; ++s)
    for (int64_t l = 1; l <= 120; ++l) {
      INFO("L = " << l << ", s = " << s);
      REQUIRE(revolveAdvances(l, s) == t[l][s]);
    }
  // One snapshot: every iteration re-run from the start, L(L-1)/2.
  CHECK(revolveAdvances(1000, 1) == 1000 * 999 / 2);
}

TEST_CASE("revolve: schedules for L <= 1000 and s <= 10 replay with the closed-form count",
          "[remat][revolve]") {
  for (int64_t s = 1; s <= 10; ++s)
    for (int64_t l = 1; l <= 1000; ++l) {
      INFO("L = " << l << ", s = " << s);
      auto schedule = revolveSchedule(l, s, /*maxActions=*/int64_t{1} << 22);
      REQUIRE(schedule);
      auto advanced = replayRevolveSchedule(*schedule, l, s);
      REQUIRE(advanced);
      REQUIRE(*advanced == revolveAdvances(l, s));
      // The forward sweep (before the first reverse) runs each iteration
      // but the last exactly once: the primal pass.
      int64_t sweep = 0;
      for (const RevolveAction &a : *schedule) {
        if (a.kind == RevolveAction::Reverse)
          break;
        if (a.kind == RevolveAction::Advance)
          sweep += a.count;
      }
      REQUIRE(sweep == l - 1);
    }
}

TEST_CASE("revolve: the replay rejects invalid schedules", "[remat][revolve]") {
  using A = RevolveAction;
  // Reverse of iteration 1 from iteration 0's carry.
  CHECK_FALSE(replayRevolveSchedule({{A::Save, 0, 0}, {A::Reverse}}, 2, 1));
  // A slot beyond the snapshot count.
  CHECK_FALSE(replayRevolveSchedule({{A::Save, 1, 0}, {A::Reverse}}, 1, 1));
  // Restoring a snapshot that holds another iteration.
  CHECK_FALSE(replayRevolveSchedule(
      {{A::Save, 0, 0}, {A::Advance, 0, 1}, {A::Reverse}, {A::Restore, 0, 1}, {A::Reverse}}, 2, 1));
  // Not every iteration reversed.
  CHECK_FALSE(replayRevolveSchedule({{A::Save, 0, 0}, {A::Advance, 0, 1}, {A::Reverse}}, 2, 1));
  // The valid two-iteration schedule.
  CHECK(replayRevolveSchedule(
            {{A::Save, 0, 0}, {A::Advance, 0, 1}, {A::Reverse}, {A::Restore, 0, 0}, {A::Reverse}},
            2, 1) == 1);
}

TEST_CASE("revolve: a schedule past the action limit is refused", "[remat][revolve]") {
  CHECK_FALSE(revolveSchedule(100000, 1, 1000));
  CHECK(revolveSchedule(100000, 1, int64_t{1} << 22));
  CHECK_FALSE(revolveSchedule(0, 1, 10));
  CHECK_FALSE(revolveSchedule(5, 0, 10));
}
