// The segment schedules of memory_budget (MemoryBudgetSegments.cpp) on a
// chain of residual layers under one budget over the whole function:
// between layers one buffer is live (the narrow cuts), inside each four, so
// the schedules save the cuts and rebuild the layers between them. They
// come cheapest first; the cheapest keeps every product; every one peaks
// below saving everything; the one saving every cut is per-layer
// nothing_saveable, and the lowest (every other cut) peaks below it and
// below rebuilding the whole forward at once. A budget at that lowest peak
// is met within it.
#include "test/unit/cpu/PlanningContext.h"

#include "dialects/jx/JxOps.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"
#include "passes/remat/MemoryBudget.h"

#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

#include <string>

using mlir::cotangent::MemoryBudgetProblem;

namespace {

constexpr int kLayers = 8;

/// f(h0, w0..w7) = sum(h8), h{i+1} = exp(tanh(h{i} @ w{i})^2) + h{i}: 256 x
/// 256 f32 each, each layer under `layerPolicy` when given.
std::string chain(const std::string &layerPolicy) {
  const std::string t = "tensor<256x256xf32>";
  auto layer = [&](const std::string &h, const std::string &w, const std::string &out,
                   const std::string &tag) {
    return "  %d" + tag + " = jx.dot_general " + h + ", " + w +
           ", contracting_dims = [1] x [0], batch_dims = [] x [] : " + t + ", " + t + " -> " + t +
           "\n  %a" + tag + " = jx.tanh %d" + tag + " : " + t + "\n  %b" + tag + " = jx.mul %a" +
           tag + ", %a" + tag + " : " + t + "\n  %c" + tag + " = jx.exp %b" + tag + " : " + t +
           "\n  " + out + " = jx.add %c" + tag + ", " + h + " : " + t + "\n";
  };
  std::string text = "func.func @f(%h0: " + t;
  for (int i = 0; i < kLayers; ++i)
    text += ", %w" + std::to_string(i) + ": " + t;
  text += ") -> tensor<f32> {\n";
  for (int i = 0; i < kLayers; ++i) {
    std::string k = std::to_string(i), h = "%h" + k, w = "%w" + k,
                next = "%h" + std::to_string(i + 1);
    if (layerPolicy.empty()) {
      text += layer(h, w, next, k);
      continue;
    }
    text += "  " + next + " = jx.remat(" + h + ", " + w + ") : (" + t + ", " + t + ") -> " + t +
            " policy = #jx.policy<" + layerPolicy + "> {\n  ^bb0(%in" + k + ": " + t + ", %win" +
            k + ": " + t + "):\n" + layer("%in" + k, "%win" + k, "%out" + k, k) +
            "    jx.yield %out" + k + " : " + t + "\n  }\n";
  }
  text += "  %s = jx.reduce_sum %h" + std::to_string(kLayers) + ", axes = [0, 1] : " + t +
          " -> tensor<f32>\n  return %s : tensor<f32>\n}\n";
  return text;
}

/// `text` after --jx-remat-function (when `functionPolicy` is given),
/// --jx-vjp and, with `remat`, --jx-remat.
mlir::OwningOpRef<mlir::ModuleOp> differentiated(const std::string &text,
                                                  const std::string &functionPolicy,
                                                  bool remat = false) {
  auto module = autodiff::parse(text);
  REQUIRE(module);
  mlir::PassManager pm(module->getContext());
  if (!functionPolicy.empty())
    pm.addPass(mlir::cotangent::createJxRematFunctionPass({.policy = functionPolicy}));
  pm.addPass(mlir::cotangent::createJxVjpPass());
  if (remat)
    pm.addPass(mlir::cotangent::createJxRematPass());
  REQUIRE(mlir::succeeded(pm.run(*module)));
  return module;
}

} // namespace

TEST_CASE("memory_budget: segment schedules checkpoint a chain of layers at its narrow cuts",
          "[cpu][memory][budget]") {
  planningContext();
  auto module = differentiated(chain(""), "memory_budget(1.0)");
  auto pair = mlir::jx::lookupSplitPair(*module, "f");
  REQUIRE(pair);
  auto problem = MemoryBudgetProblem::build(pair->fwd, pair->bwd,
                                            mlir::cotangent::getBudgetRegions(pair->fwd));
  REQUIRE(mlir::succeeded(problem));
  const size_t n = problem->numCandidates();
  std::vector<llvm::BitVector> schedules = problem->segmentSchedules();
  REQUIRE(schedules.size() >= 2);

  auto peakOf = [&](const llvm::BitVector &rebuilt) {
    auto peak = problem->predict(rebuilt);
    REQUIRE(mlir::succeeded(peak));
    return peak->peakBytes;
  };
  const int64_t saveAll = peakOf(llvm::BitVector(n));
  const int64_t rebuildAll = peakOf(problem->effective(llvm::BitVector(n, true)));
  int64_t smallest = saveAll;
  for (size_t i = 0; i < schedules.size(); ++i) {
    INFO("schedule " << i << " rebuilds " << schedules[i].count() << " of " << n << " ops");
    if (i > 0)
      CHECK(problem->flops(schedules[i - 1]) <= problem->flops(schedules[i]));
    const int64_t peak = peakOf(schedules[i]);
    CHECK(peak < saveAll);
    smallest = std::min(smallest, peak);
  }
  // The cheapest rebuilds the tanh layers and keeps the products.
  for (int o : schedules.front().set_bits())
    CHECK(!mlir::isa<mlir::jx::DotGeneralOp>(problem->candidate(o)));
  CHECK(schedules.front().any());

  // Per-layer nothing_saveable is among them, or beaten: a schedule that
  // rebuilds every layer from its input peaks no higher (lower since the
  // lowering rebuilds cheap shared values in each consumer: the per-layer
  // regions' barriers keep a layer's input apart from its rebuilt copy).
  auto perLayer = differentiated(chain("nothing_saveable"), "", /*remat=*/true);
  auto *oracle = module->getContext()
                     ->getLoadedDialect<mlir::jx::JxDialect>()
                     ->getRegisteredInterface<mlir::cotangent::PeakOracle>();
  auto nothingSaveable = oracle->predict(*perLayer, "f");
  REQUIRE(mlir::succeeded(nothingSaveable));
  CHECK(llvm::any_of(schedules, [&](const llvm::BitVector &s) {
    return peakOf(s) <= nothingSaveable->peakBytes;
  }));
  // Saving every other cut holds fewer cuts for one more layer rebuilt at a
  // time: lower than per-layer nothing_saveable here.
  CHECK(smallest < nothingSaveable->peakBytes);
  // Rebuilding the whole forward at once keeps every layer's buffers live.
  CHECK(smallest < rebuildAll);

  // A budget at the smallest of their peaks is met (by one of them, or by a
  // schedule as cheap found below it), within it.
  auto solved = problem->solve(smallest, std::nullopt, 30);
  REQUIRE(mlir::succeeded(solved));
  CHECK(solved->peakBytes <= smallest);
  CHECK(peakOf(solved->rebuilt) == solved->peakBytes);
}
