//===- PartitionerComparison.cpp - the budget against PyTorch's partitioner ===//

#include "bench/PartitionerComparison.h"
#include "bench/Gpt2Model.h"
#include "bench/MlpModel.h"
#include "bench/PlotScript.h"
#include "bench/PythonSide.h"
#include "bench/TorchGpt2.h"

#include "dialects/jx/JxOps.h"
#include "dialects/jx/JxSplit.h"
#include "models/gpt2/Config.h"
#include "passes/Passes.h"
#include "passes/remat/MemoryBudget.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <functional>

using namespace cotangent;

namespace {

/// One graph both sides differentiate: PyTorch's row and Cotangent's trace.
struct Graph {
  std::string id, title, split;
  llvm::json::Object torchRow;
  std::function<Traced(const Policy &)> trace;
};

/// What FlopCounterMode counts of `op`: a product's 2 m n k, and for
/// attention its two products over every (query, key) pair, causal or not
/// (PyTorch's sdpa_flop_count); nothing for other ops.
int64_t matmulFlops(mlir::Operation *op) {
  if (auto dot = llvm::dyn_cast<mlir::jx::DotGeneralOp>(op))
    return dot.estimateFlops();
  if (auto attention = llvm::dyn_cast<mlir::jx::DotProductAttentionOp>(op)) {
    auto q = llvm::cast<mlir::RankedTensorType>(attention.getQuery().getType()).getShape();
    int64_t keys =
        llvm::cast<mlir::RankedTensorType>(attention.getKey().getType()).getDimSize(1);
    return 4 * q[0] * q[1] * q[2] * q[3] * keys; // q: [batch, seq, heads, head size]
  }
  return 0;
}

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

} // namespace

int bench::benchPartitioner(mlir::MLIRContext &ctx, const PartitionerOptions &options) {
  std::printf("memory_budget against PyTorch's min-cut partitioner (activation_memory_budget)\n");
  std::string why;
  std::optional<std::string> python = torchPython(options.torchPython, why);
  if (!python) {
    std::printf("  skipped: %s\n", why.c_str());
    return 0;
  }
  const gpt2::Config config = *gpt2::preset("124M");
  const int64_t batch = 4, seq = 256;
  const MlpConfig mlp{.layers = 8, .width = 1024, .batch = 256};
  auto budgets = [&] {
    llvm::json::Array list;
    for (double b : options.budgets)
      list.push_back(b);
    return list;
  };
  std::vector<Graph> graphs;
  graphs.push_back(
      {"gpt2_block",
       llvm::formatv("GPT-2 block, d {0}, {1} heads, batch {2} x {3}", config.n_embd,
                     config.n_head, batch, seq)
           .str(),
       "gpt2_block",
       llvm::json::Object{{"id", "gpt2_block"}, {"model", "gpt2_block"},
                          {"width", config.n_embd}, {"heads", config.n_head},
                          {"batch", batch}, {"seq", seq}, {"budgets", budgets()}},
       [&](const Policy &policy) { return traceGpt2Block(ctx, config, batch, seq, policy); }});
  graphs.push_back(
      {"mlp",
       llvm::formatv("MLP, {0} x {1} tanh, batch {2}", mlp.layers, mlp.width, mlp.batch).str(),
       "mlp",
       llvm::json::Object{{"id", "mlp"}, {"model", "mlp"}, {"layers", mlp.layers},
                          {"width", mlp.width}, {"batch", mlp.batch}, {"budgets", budgets()}},
       [&](const Policy &policy) { return traceMlp(ctx, mlp, policy); }});

  llvm::json::Array rows;
  for (const Graph &graph : graphs)
    rows.push_back(llvm::json::Object(graph.torchRow));
  std::optional<llvm::json::Object> out =
      runRows(*python, "torch_partitioner.py", std::move(rows), why);
  if (!out) {
    std::fprintf(stderr, "cotangent-bench: PyTorch's side: %s\n", why.c_str());
    return 1;
  }

  llvm::json::Array data;
  int held = 0, compared = 0;
  for (const Graph &graph : graphs) {
    std::optional<llvm::json::Object> figures =
        rowFigures(*out, graph.id, "torch_partitioner.py", why);
    if (!figures) {
      std::fprintf(stderr, "cotangent-bench: %s: %s\n", graph.title.c_str(), why.c_str());
      return 1;
    }
    // Cotangent: the graph under one budget region (a region per layer for
    // the MLP), differentiated; a budget solved per PyTorch point.
    Traced traced = graph.trace(policies::memory_budget(1.0));
    mlir::ModuleOp module = traced.module();
    mlir::PassManager pm(&ctx);
    pm.addPass(mlir::cotangent::createJxVjpPass());
    if (mlir::failed(pm.run(module)))
      return 1;
    auto pair = mlir::jx::lookupSplitPair(module, graph.split);
    if (!pair)
      return 1;
    auto problem = mlir::cotangent::MemoryBudgetProblem::build(
        pair->fwd, pair->bwd, mlir::cotangent::getBudgetRegions(pair->fwd));
    if (mlir::failed(problem))
      return 1;
    // The budget's frontier under the split's peak (two calls), for the
    // record, then under the fused step's (what jit runs, and what PyTorch's
    // step is: each residual freed after its last use), which is compared.
    auto splitFrontier = problem->frontier(60);
    problem->setTarget(mlir::cotangent::PeakTarget::Step);
    auto start = std::chrono::steady_clock::now();
    auto frontier = problem->frontier(60);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (mlir::failed(splitFrontier) || !splitFrontier->has_value() || mlir::failed(frontier) ||
        !frontier->has_value()) {
      std::fprintf(stderr, "cotangent-bench: %s: no frontier\n", graph.title.c_str());
      return 1;
    }
    const std::vector<mlir::cotangent::FrontierPoint> &schedules = (*frontier)->points;
    struct StepPoint {
      int64_t peak = 0, matmul = 0;
    };
    std::vector<StepPoint> steps;
    for (const mlir::cotangent::FrontierPoint &point : schedules) {
      StepPoint step{point.peakBytes, 0};
      for (int op : point.rebuilt.set_bits())
        step.matmul += matmulFlops(problem->candidate(op));
      steps.push_back(step);
    }
    const llvm::json::Object *eager = figures->getObject("eager");
    const auto &splitPoints = (*splitFrontier)->points;
    std::printf("\n%s: PyTorch %s, eager peak %.1f MiB; Cotangent's step without remat %.1f MiB, "
                "smallest %.1f (split into two calls: %.1f, smallest %.1f); arguments (%.1f MiB) "
                "not counted on either side; the step's frontier, %zu schedules, in %.1f s\n",
                graph.title.c_str(), out->getString("torch").value_or("?").str().c_str(),
                eager ? mib(eager->getInteger("peak_bytes").value_or(0)) : 0.0,
                mib((*frontier)->noRematPeakBytes), mib(schedules.back().peakBytes),
                mib(splitPoints.front().peakBytes), mib(splitPoints.back().peakBytes),
                mib(figures->getInteger("argument_bytes").value_or(0)), schedules.size(), seconds);
    std::printf("  %6s | %9s %9s %9s | %9s %9s %9s | %s\n", "budget", "peak MiB", "saved MiB",
                "GFLOP", "peak MiB", "GFLOP", "all GFLOP", "holds");
    std::printf("  %6s | %-29s | %-29s |\n", "", "PyTorch (recomputed matmul)",
                "Cotangent's step (recomputed)");
    const llvm::json::Array *points = figures->getArray("points");
    for (const llvm::json::Value &value : points ? *points : llvm::json::Array()) {
      const llvm::json::Object &point = *value.getAsObject();
      double budget = point.getNumber("budget").value_or(-1);
      if (auto error = point.getString("error")) {
        std::printf("  %6.2f | PyTorch failed: %s\n", budget, error->str().c_str());
        continue;
      }
      int64_t torchPeak = *point.getInteger("peak_bytes");
      int64_t torchFlops = *point.getInteger("recomputed_flops");
      int64_t torchSaved = point.getInteger("saved_bytes_excluding_arguments").value_or(0);
      ++compared;
      llvm::json::Object row{{"graph", graph.id},
                             {"budget", budget},
                             {"torch_peak_bytes", torchPeak},
                             {"torch_saved_bytes", torchSaved},
                             {"torch_recomputed_flops", torchFlops}};
      // The step frontier's schedule that fits PyTorch's peak with the
      // fewest recomputed matmul FLOPs.
      std::optional<size_t> best;
      for (size_t i = 0; i < steps.size(); ++i)
        if (steps[i].peak <= torchPeak && (!best || steps[i].matmul < steps[*best].matmul))
          best = i;
      if (!best) {
        std::printf("  %6.2f | %9.1f %9.1f %9.3f | no schedule's step peaks within it (smallest "
                    "%.1f MiB) | no\n",
                    budget, mib(torchPeak), mib(torchSaved), torchFlops / 1e9,
                    mib(steps.back().peak));
        row["holds"] = false;
        data.push_back(std::move(row));
        continue;
      }
      const StepPoint &ours = steps[*best];
      bool holds = ours.matmul <= torchFlops;
      held += holds;
      std::printf("  %6.2f | %9.1f %9.1f %9.3f | %9.1f %9.3f %9.3f | %s\n", budget,
                  mib(torchPeak), mib(torchSaved), torchFlops / 1e9, mib(ours.peak),
                  ours.matmul / 1e9, schedules[*best].recomputedFlops / 1e9,
                  holds ? "yes" : "no");
      row["peak_bytes"] = ours.peak;
      row["recomputed_matmul_flops"] = ours.matmul;
      row["recomputed_flops"] = schedules[*best].recomputedFlops;
      row["holds"] = holds;
      data.push_back(std::move(row));
    }
  }
  std::printf("\nAt %d of %d PyTorch points a schedule of Cotangent's budget peaks no higher and recomputes no "
              "more matmul FLOPs\n(GFLOP: the recomputed products and attention as "
              "FlopCounterMode counts them; all GFLOP: Cotangent's own count, elementwise "
              "ops included)\n",
              held, compared);
  const std::string path = inBuildDir("cotangent-bench-partitioner.json");
  std::error_code error;
  llvm::raw_fd_ostream file(path, error, llvm::sys::fs::OF_Text);
  if (error) {
    std::fprintf(stderr, "cotangent-bench: %s: %s\n", path.c_str(), error.message().c_str());
    return 1;
  }
  file << llvm::formatv("{0:2}", llvm::json::Value(std::move(data))) << "\n";
  std::printf("  data: %s\n", path.c_str());
  return 0;
}
