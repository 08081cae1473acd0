// memory_budget through the tracer's Split: by default a budget bounds the
// split's peak (forward and backward as two calls, every residual held until
// the backward returns); with SplitOptions::budgetStep the fused
// value-and-grad step's (one call, each residual freed after its last use),
// which is lower. Three layers of sin(h @ W), 64x16 activations against a
// 16x16 weight (test/passes/remat/memory-budget-step.mlir's program): under
// 19000 bytes the split has no schedule, the step has one.
#include "test/unit/cpu/PlanningContext.h"

#include "analysis/MemoryPlan.h"
#include "tracer/Autodiff.h"
#include "tracer/Checkpoint.h"
#include "tracer/Errors.h"
#include "tracer/Numpy.h"

#include <catch2/catch.hpp>

using namespace cotangent;

namespace {

Traced traceLayers(mlir::MLIRContext &ctx, int64_t budget) {
  auto layers = [](const Tensor &x, const Tensor &w) {
    Tensor h = x;
    for (int i = 0; i < 3; ++i)
      h = np::sin(np::matmul(h, w));
    return np::sum(h);
  };
  return trace({.name = "deep", .arg_names = {"x", "w"}, .context = &ctx},
               checkpoint(layers, {.policy = policies::memory_budget(budget)}), f32({64, 16}),
               f32({16, 16}));
}

} // namespace

TEST_CASE("memory_budget bounds the fused step's peak with SplitOptions::budgetStep",
          "[cpu][memory][budget]") {
  mlir::MLIRContext &ctx = planningContext();
  constexpr int64_t kBudget = 19000;
  try {
    // Proving the smallest peak takes seconds of wall-clock time (46
    // predictions), twice as many on a loaded 2-core machine: time enough
    // that the message is exact.
    Split split(traceLayers(ctx, kBudget), {.budgetSeconds = 120});
    FAIL("the split's peak cannot fit " << kBudget << " bytes");
  } catch (const TraceError &e) {
    CHECK_THAT(e.what(), Catch::Contains("no schedule of this step peaks within 19000 bytes") &&
                             Catch::Contains("the smallest peak is 19456 bytes"));
  }

  // A search time that is not a positive number is refused, naming the flag.
  CHECK_THROWS_WITH(Split(traceLayers(ctx, kBudget), {.budgetSeconds = -1}),
                    Catch::Contains("budget-seconds must be a positive number of seconds"));

  Split step(traceLayers(ctx, kBudget), {.budgetStep = true});
  auto plan = mlir::cotangent::predictCallPlan(step.module(), step.value_and_grad().getSymName());
  REQUIRE(mlir::succeeded(plan));
  CHECK(plan->peakBytes <= kBudget);
  CHECK(plan->peakBytes == 18436);
  // The split of the same schedule holds every residual to the end.
  auto splitPlans = mlir::cotangent::predictMemoryPlans(step.module(), "deep");
  REQUIRE(mlir::succeeded(splitPlans));
  REQUIRE(splitPlans->size() == 1);
  CHECK(splitPlans->front().peakBytes > kBudget);
}
