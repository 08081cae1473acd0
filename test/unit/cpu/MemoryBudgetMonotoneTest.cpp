// memory_budget on a real model: a pre-LN transformer block
// (bench/TransformerModel.h, one budget region) swept over budgets from
// below its smallest peak to above its peak without remat. A smaller budget
// never gives a larger peak (PyTorch's activation_memory_budget can:
// pytorch#197838) nor fewer recomputed FLOPs, every schedule fits its
// budget, a budget below the smallest peak is refused naming it, above the
// peak without remat nothing is rebuilt, and at every frontier point's
// budget the solve recomputes no more than the frontier.
#include "test/unit/cpu/PlanningContext.h"

#include "analysis/MemoryPlan.h"
#include "bench/TransformerModel.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"
#include "passes/remat/MemoryBudget.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <chrono>

using mlir::cotangent::MemoryBudgetProblem;
namespace bench = cotangent::bench;

TEST_CASE("memory_budget on a transformer block: the peak and the FLOPs are monotone in the "
          "budget",
          "[cpu][memory][budget]") {
  mlir::MLIRContext &ctx = planningContext();
  auto module = bench::traceTransformer(ctx, {.blocks = 1, .seq = 16, .width = 32, .heads = 2},
                                        cotangent::policies::memory_budget(1.0))
                    .takeModule();
  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::cotangent::createJxVjpPass());
  REQUIRE(mlir::succeeded(pm.run(*module)));
  auto pair = mlir::jx::lookupSplitPair(*module, "transformer");
  REQUIRE(pair);
  auto problem = MemoryBudgetProblem::build(pair->fwd, pair->bwd,
                                            mlir::cotangent::getBudgetRegions(pair->fwd));
  REQUIRE(mlir::succeeded(problem));
  REQUIRE(problem->numCandidates() > 10);

  // The range of peaks: the frontier's lowest, and the peak without remat.
  auto frontier = problem->frontier(60);
  REQUIRE(mlir::succeeded(frontier));
  REQUIRE(frontier->has_value());
  int64_t smallest = (*frontier)->points.back().peakBytes;
  int64_t largest = (*frontier)->noRematPeakBytes;
  REQUIRE(smallest < largest);
  // The solve can go below the frontier's lowest point: a schedule off the
  // elimination's Pareto sets peaks below its bound when its rebuilt ops
  // fuse into the backward's loops. The smallest peak: below each answer
  // until the solve refuses.
  for (int lowered = 0; lowered < 8; ++lowered) {
    mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
    auto lower = problem->solve(smallest - 1, std::nullopt, 60, /*prove=*/false,
                                /*findSmallestPeak=*/false);
    if (mlir::failed(lower))
      break;
    CHECK(lower->peakBytes < smallest);
    smallest = lower->peakBytes;
  }

  std::vector<int64_t> budgets{smallest - 1, smallest};
  for (int i = 1; i < 5; ++i)
    budgets.push_back(smallest + (largest - smallest) * i / 5);
  budgets.push_back(largest + 4096);

  int64_t previousPeak = 0, previousFlops = INT64_MAX;
  for (int64_t budget : budgets) {
    INFO("budget " << budget << " bytes (smallest peak " << smallest << ", without remat "
                   << largest << ")");
    std::string message;
    mlir::ScopedDiagnosticHandler quiet(&ctx, [&](mlir::Diagnostic &d) {
      message = d.str();
      return mlir::success();
    });
    // Below the smallest peak the search stops after its rejections, long
    // before its time, and refuses; the smallest peak's proof is
    // MemoryBudgetTest's, on small programs.
    bool feasible = budget >= smallest;
    auto start = std::chrono::steady_clock::now();
    auto schedule = problem->solve(budget, std::nullopt, 60, /*prove=*/false,
                                   /*findSmallestPeak=*/feasible);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!feasible) {
      CHECK(mlir::failed(schedule));
      CHECK(message.find("no schedule of this step peaks within " + std::to_string(budget)) !=
            std::string::npos);
      CHECK(seconds < 30); // not the time limit
      continue;
    }
    REQUIRE(mlir::succeeded(schedule));
    CHECK(schedule->peakBytes <= budget);
    CHECK(schedule->peakBytes >= previousPeak);
    CHECK(schedule->recomputedFlops <= previousFlops);
    previousPeak = schedule->peakBytes;
    previousFlops = schedule->recomputedFlops;
  }
  CHECK(previousFlops == 0); // above the peak without remat nothing is rebuilt
  CHECK(previousPeak == largest);

  // The same schedules run as one value-and-grad step (jit's): each residual
  // is freed after its last use in the backward, so the step never peaks
  // above the split, which holds them all until the backward returns; with
  // nothing rebuilt it is the module's own step.
  auto step = mlir::cotangent::predictCallPlan(*module, "transformer_value_and_grad");
  REQUIRE(mlir::succeeded(step));
  problem->setTarget(mlir::cotangent::PeakTarget::Step);
  auto noRematStep = problem->predict(llvm::BitVector(problem->numCandidates()));
  REQUIRE(mlir::succeeded(noRematStep));
  CHECK(noRematStep->peakBytes == step->peakBytes);
  for (size_t i : {size_t(0), (*frontier)->points.size() / 2, (*frontier)->points.size() - 1}) {
    const mlir::cotangent::FrontierPoint &point = (*frontier)->points[i];
    auto peak = problem->predict(point.rebuilt);
    REQUIRE(mlir::succeeded(peak));
    CHECK(peak->peakBytes <= point.peakBytes);
  }
  // Under the step's peak the budget's answers fit it, none is called
  // proven (but the one rebuilding nothing), and the smallest step fits
  // where the split's smallest does not.
  auto stepFrontier = problem->frontier(60);
  REQUIRE(mlir::succeeded(stepFrontier));
  REQUIRE(stepFrontier->has_value());
  const auto &lowest = (*stepFrontier)->points.back();
  CHECK(lowest.peakBytes < smallest);
  for (const auto &point : (*stepFrontier)->points) // but rebuilding nothing
    CHECK((point.optimality != mlir::cotangent::FrontierOptimality::Proven ||
           point.recomputedFlops == 0));
  auto stepSchedule = problem->solve(lowest.peakBytes, std::nullopt, 60, /*prove=*/false,
                                     /*findSmallestPeak=*/true, /*maxRejections=*/4);
  REQUIRE(mlir::succeeded(stepSchedule));
  CHECK(stepSchedule->peakBytes <= lowest.peakBytes);
  CHECK(stepSchedule->recomputedFlops <= lowest.recomputedFlops);
  CHECK(stepSchedule->optimal == (stepSchedule->recomputedFlops == 0));
  problem->setTarget(mlir::cotangent::PeakTarget::Split);

  // The solve starts from the frontier's answer at its budget: at a
  // frontier point's budget it recomputes no more than that point. Every
  // eighth point, and the last six, where the tight bound is furthest
  // below the peak (each solve predicts dozens of schedules there).
  const auto &points = (*frontier)->points;
  for (size_t i = 0; i < points.size(); ++i) {
    if (i % 8 != 0 && i + 6 < points.size())
      continue;
    const mlir::cotangent::FrontierPoint &point = points[i];
    INFO("frontier point: budget " << point.budgetBytes << ", peak " << point.peakBytes << ", "
                                   << point.recomputedFlops << " FLOPs");
    auto schedule = problem->solve(point.budgetBytes, std::nullopt, 60, /*prove=*/false,
                                   /*findSmallestPeak=*/true, /*maxRejections=*/2);
    REQUIRE(mlir::succeeded(schedule));
    CHECK(schedule->peakBytes <= point.budgetBytes);
    CHECK(schedule->recomputedFlops <= point.recomputedFlops);
  }
}
