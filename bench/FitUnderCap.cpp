//===- FitUnderCap.cpp - the largest GPT-2 batch under a memory cap -------===//

#include "bench/FitUnderCap.h"
#include "bench/Gpt2Model.h"
#include "bench/JaxComparison.h"
#include "bench/TorchGpt2.h"

#include "models/gpt2/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>

using namespace cotangent;

namespace {

const char *const kPolicies[] = {"none", "nothing_saveable", "dots_saveable"};

/// Cotangent's row for the whole step under one memory_budget (what
/// --jx-remat-function does), the budget being the cap less the arguments.
const char *const kBudget = "memory_budget";

double gib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 30); }

/// The largest power-of-two batch whose memory fits `cap`, from `memory`
/// per batch (0 when even batch 1 does not).
int64_t largestBatch(const std::map<int64_t, int64_t> &memory, int64_t cap) {
  int64_t best = 0;
  for (auto [batch, bytes] : memory)
    if (bytes >= 0 && bytes <= cap)
      best = std::max(best, batch);
  return best;
}

/// A side's answer at one cap: its best choice's largest batch and rate.
struct Fit {
  std::string choice;
  int64_t batch = 0, bytes = 0;
  double tokensPerSecond = 0;
};

/// One side of the table (Cotangent, JAX or PyTorch): its memory per
/// choice (a policy, a budget) and batch, and how to time a choice at a
/// batch (tokens/s; 0 when it failed). Each (choice, batch) runs once.
struct Side {
  std::string name;
  std::map<std::string, std::map<int64_t, int64_t>> memory;
  std::function<double(const std::string &, int64_t)> time;
  std::map<std::pair<std::string, int64_t>, double> rates;

  double rate(const std::string &choice, int64_t batch) {
    auto key = std::make_pair(choice, batch);
    if (!rates.count(key))
      rates[key] = time(choice, batch);
    return rates[key];
  }
  /// The choice with the most tokens/s at its largest batch under `cap`,
  /// among those `considered`.
  Fit best(int64_t cap, llvm::function_ref<bool(llvm::StringRef)> considered) {
    Fit fit;
    for (auto &[choice, perBatch] : memory)
      if (int64_t batch = considered(choice) ? largestBatch(perBatch, cap) : 0) {
        double r = rate(choice, batch);
        if (r > fit.tokensPerSecond)
          fit = {choice, batch, perBatch[batch], r};
      }
    return fit;
  }
};

std::string describe(const Fit &f) {
  if (f.batch == 0)
    return llvm::formatv("{0,-17} {1,6} {2,6} {3,8}", "no batch fits", "-", "-", "-").str();
  return llvm::formatv("{0,-17} {1,6} {2,6:f2} {3,8:f0}", f.choice, f.batch, gib(f.bytes),
                       f.tokensPerSecond)
      .str();
}

std::string torchChoice(double budget) { return llvm::formatv("budget {0:f2}", budget).str(); }

} // namespace

bool bench::benchFitUnderCaps(mlir::MLIRContext &ctx, const FitOptions &options) {
  std::optional<gpt2::Config> config = gpt2::preset(options.preset);
  if (!config) {
    std::fprintf(stderr, "cotangent-bench: no GPT-2 preset '%s'\n", options.preset.c_str());
    return true;
  }
  const int64_t largestCap =
      static_cast<int64_t>(*std::max_element(options.capsGiB.begin(), options.capsGiB.end()) *
                           (int64_t(1) << 30));
  const int64_t seq = options.seq;
  std::string why;
  std::optional<std::string> jaxPy = jaxPython(options.python, why);
  if (!jaxPy)
    std::printf("JAX's side is skipped: %s\n", why.c_str());
  std::optional<std::string> torchPy = torchPython(options.torchPython, why);
  if (!torchPy)
    std::printf("PyTorch's side is skipped: %s\n", why.c_str());

  // Cotangent: the plan's peak per named policy per block, no run needed.
  bool failed = false;
  std::map<std::pair<std::string, int64_t>, int64_t> budgetBytes; // of memory_budget choices
  Side ours{.name = "Cotangent"};
  ours.time = [&](const std::string &choice, int64_t batch) {
    bench::Gpt2Variant variant{.blockPolicy = policyOf(choice)};
    if (auto budget = budgetBytes.find({choice, batch}); budget != budgetBytes.end())
      variant = {.wholePolicy = policies::memory_budget(budget->second)};
    std::string stepWhy;
    auto step = bench::runGpt2Step(ctx, *config, batch, seq, variant, options.repeats, stepWhy);
    if (!step) {
      std::fprintf(stderr, "cotangent-bench: GPT-2 %s batch %lld: %s\n", choice.c_str(),
                   static_cast<long long>(batch), stepWhy.c_str());
      failed = true;
      return 0.0;
    }
    if (step->peakBytes != step->predictedPeakBytes)
      std::printf("note: %s batch %lld measured %lld bytes, planned %lld\n", choice.c_str(),
                  static_cast<long long>(batch), static_cast<long long>(step->peakBytes),
                  static_cast<long long>(step->predictedPeakBytes));
    return static_cast<double>(batch * seq) / step->seconds;
  };
  std::map<int64_t, int64_t> argumentsAt; // Cotangent's argument bytes per batch
  for (const char *policy : kPolicies)
    for (int64_t batch = 1; batch <= options.maxBatch; batch *= 2) {
      auto step = planGpt2Step(ctx, *config, batch, seq, {.blockPolicy = policyOf(policy)}, why);
      if (!step) {
        std::fprintf(stderr, "cotangent-bench: GPT-2 batch %lld: %s\n",
                     static_cast<long long>(batch), why.c_str());
        return true;
      }
      argumentsAt[batch] = step->argumentBytes;
      ours.memory[policy][batch] = step->argumentBytes + step->predictedPeakBytes;
      if (ours.memory[policy][batch] > largestCap)
        break;
    }
  // The whole step under memory_budget(cap - arguments), one choice per cap:
  // from the largest batch that fits with no checkpoint (where the budget
  // recomputes nothing), doubling while a schedule fits.
  auto budgetChoice = [](double capGiB) {
    return llvm::formatv("{0}({1:f1} GiB)", kBudget, capGiB).str();
  };
  for (double capGiB : options.capsGiB) {
    const int64_t cap = static_cast<int64_t>(capGiB * (int64_t(1) << 30));
    const std::string choice = budgetChoice(capGiB);
    for (int64_t batch = std::max<int64_t>(1, largestBatch(ours.memory["none"], cap));
         batch <= options.maxBatch && argumentsAt.count(batch) && argumentsAt[batch] < cap;
         batch *= 2) {
      auto step = planGpt2Step(ctx, *config, batch, seq,
                               {.wholePolicy = policies::memory_budget(cap - argumentsAt[batch])},
                               why);
      if (!step)
        break; // no schedule fits: the diagnostic names the smallest peak found
      ours.memory[choice][batch] = step->argumentBytes + step->predictedPeakBytes;
      budgetBytes[{choice, batch}] = cap - argumentsAt[batch];
    }
  }

  // JAX: XLA's memory_analysis per named policy per block, compiled only.
  Side jax{.name = "JAX"};
  jax.time = [&](const std::string &policy, int64_t batch) {
    std::string rowWhy;
    auto figures = runJaxGpt2(*jaxPy, options.preset, policy, batch, seq,
                              /*compileOnly=*/false, options.repeats, 1, rowWhy);
    double ms = figures ? figures->getNumber("median_ms").value_or(0) : 0;
    return ms > 0 ? static_cast<double>(batch * seq) / (ms / 1e3) : 0.0;
  };
  for (const char *policy : kPolicies)
    for (int64_t batch = 1; jaxPy && batch <= options.maxBatch; batch *= 2) {
      auto figures = runJaxGpt2(*jaxPy, options.preset, policy, batch, seq,
                                /*compileOnly=*/true, 1, 0, why);
      if (!figures) {
        std::printf("JAX %s batch %lld: %s\n", policy, static_cast<long long>(batch),
                    why.c_str());
        break;
      }
      int64_t bytes = figures->getInteger("argument_bytes").value_or(0) +
                      figures->getInteger("peak_bytes").value_or(0);
      jax.memory[policy][batch] = bytes;
      if (bytes > largestCap)
        break;
    }

  // PyTorch: each budget compiled by inductor (what it runs; its peak is
  // 10-30% below the eager-kernel partition's) at each batch, measured and
  // timed in one process. Compiles take tens of seconds and a step over a
  // second per sequence here, so a batch whose memory, doubled from the
  // last (activations grow with the batch), would pass the largest cap by a
  // quarter is not run.
  Side torch{.name = "PyTorch"};
  torch.time = [](const std::string &, int64_t) { return 0.0; }; // every row timed below
  for (double budget : options.torchBudgets) {
    const std::string choice = torchChoice(budget);
    for (int64_t batch = 1; torchPy && batch <= options.maxBatch; batch *= 2) {
      auto figures = runTorchGpt2(*torchPy,
                                  {.preset = options.preset, .batch = batch, .seq = seq,
                                   .budget = budget, .backend = "inductor",
                                   .repeats = options.repeats, .warmup = 0},
                                  why);
      if (!figures) {
        std::printf("PyTorch budget %.2f batch %lld: %s\n", budget,
                    static_cast<long long>(batch), why.c_str());
        break;
      }
      const int64_t arguments = figures->getInteger("argument_bytes").value_or(0);
      const int64_t bytes = arguments + figures->getInteger("peak_bytes").value_or(0);
      const double ms = figures->getNumber("median_ms").value_or(0);
      torch.memory[choice][batch] = bytes;
      torch.rates[{choice, batch}] = ms > 0 ? static_cast<double>(batch * seq) / (ms / 1e3) : 0;
      std::printf("PyTorch %s batch %lld: %.2f GiB, %.0f tokens/s\n", choice.c_str(),
                  static_cast<long long>(batch), gib(bytes), torch.rates[{choice, batch}]);
      std::fflush(stdout);
      if (bytes > largestCap)
        break;
      if (arguments + 2 * (bytes - arguments) > largestCap * 5 / 4) {
        std::printf("PyTorch %s batch %lld: not run (twice the activations pass the largest "
                    "cap by a quarter)\n",
                    choice.c_str(), static_cast<long long>(2 * batch));
        break;
      }
    }
  }

  std::printf("\nGPT-2 %s value-and-grad step (f32), sequences of %lld tokens: the largest "
              "power-of-two batch\nwhose arguments + peak fit each cap, and tokens/s there "
              "(median of %u after a warm-up): Cotangent per\npolicy per block or the whole "
              "step under memory_budget(cap - arguments), JAX per policy per block,\nPyTorch "
              "per activation_memory_budget; the best of each\n",
              options.preset.c_str(), static_cast<long long>(seq), options.repeats);
  std::printf("%7s | %-17s %6s %6s %8s | %-17s %6s %6s %8s | %-17s %6s %6s %8s | %6s\n",
              "cap GiB", "Cotangent best", "batch", "GiB", "tokens/s", "JAX best", "batch",
              "GiB", "tokens/s", "PyTorch best", "batch", "GiB", "tokens/s", "x best");
  llvm::json::Array capRows;
  for (double capGiB : options.capsGiB) {
    const int64_t cap = static_cast<int64_t>(capGiB * (int64_t(1) << 30));
    // A budget chosen for another cap is not this cap's choice.
    Fit o = ours.best(cap, [&](llvm::StringRef choice) {
      return !choice.starts_with(kBudget) || choice == budgetChoice(capGiB);
    });
    if (failed)
      return true;
    auto all = [](llvm::StringRef) { return true; };
    Fit j = jaxPy ? jax.best(cap, all) : Fit{}, t = torchPy ? torch.best(cap, all) : Fit{};
    double anchor = std::max(j.tokensPerSecond, t.tokensPerSecond);
    std::string ratio =
        o.batch && anchor > 0 ? llvm::formatv("{0:f2}", o.tokensPerSecond / anchor).str() : "-";
    std::printf("%7.3g | %s | %s | %s | %6s\n", capGiB, describe(o).c_str(),
                describe(j).c_str(), describe(t).c_str(), ratio.c_str());
    std::fflush(stdout);
    auto json = [](const Fit &f) {
      return llvm::json::Object{{"choice", f.choice}, {"batch", f.batch}, {"bytes", f.bytes},
                                {"tokens_per_second", f.tokensPerSecond}};
    };
    capRows.push_back(llvm::json::Object{
        {"cap_gib", capGiB}, {"cotangent", json(o)}, {"jax", json(j)}, {"pytorch", json(t)}});
  }

  // Between the powers of two: Cotangent's largest batch on a grid of
  // eighths above each choice's largest power of two under the cap (planned,
  // not run; the table above compares powers of two on every side).
  std::printf("Cotangent's largest batch on a grid of eighths between powers of two (planned, "
              "not run; GiB):\n");
  llvm::json::Array fineRows;
  for (double capGiB : options.capsGiB) {
    const int64_t cap = static_cast<int64_t>(capGiB * (int64_t(1) << 30));
    std::printf("%7.3g |", capGiB);
    llvm::json::Object row{{"cap_gib", capGiB}};
    std::vector<std::string> choices(std::begin(kPolicies), std::end(kPolicies));
    choices.push_back(budgetChoice(capGiB));
    for (const std::string &choice : choices) {
      const bool isBudget = choice.starts_with(kBudget);
      auto planned = ours.memory.find(choice);
      int64_t base = planned == ours.memory.end() ? 0 : largestBatch(planned->second, cap);
      int64_t batch = base, bytes = base ? planned->second[base] : 0;
      for (int64_t k = 1; base >= 8 && k < 8; ++k) {
        const int64_t next = base + base * k / 8;
        // Arguments grow by a sequence's ids and targets a row: linear in
        // the batch through the first two planned (1 and 2, as base >= 8).
        const auto [b0, a0] = *argumentsAt.begin();
        const auto [b1, a1] = *std::next(argumentsAt.begin());
        const int64_t arguments = a0 + (next - b0) * (a1 - a0) / (b1 - b0);
        if (arguments >= cap)
          break;
        Gpt2Variant variant{.blockPolicy = policyOf(choice)};
        if (isBudget)
          variant = {.wholePolicy = policies::memory_budget(cap - arguments)};
        auto step = planGpt2Step(ctx, *config, next, seq, variant, why);
        if (!step || step->argumentBytes + step->predictedPeakBytes > cap)
          break;
        batch = next;
        bytes = step->argumentBytes + step->predictedPeakBytes;
      }
      std::printf(" %s %lld (%.2f) |", isBudget ? kBudget : choice.c_str(),
                  static_cast<long long>(batch), gib(bytes));
      row[isBudget ? kBudget : choice] = llvm::json::Object{{"batch", batch}, {"bytes", bytes}};
    }
    std::printf("\n");
    std::fflush(stdout);
    fineRows.push_back(std::move(row));
  }

  std::printf("memory per batch (GiB; arguments + peak):\n");
  llvm::json::Object memoryJson;
  for (Side *side : {&ours, &jax, &torch}) {
    llvm::json::Object perChoice;
    for (auto &[choice, perBatch] : side->memory) {
      std::printf("  %-9s %-28s", side->name.c_str(), choice.c_str());
      llvm::json::Object batches;
      for (auto [batch, bytes] : perBatch) {
        std::printf(" b%lld %.2f", static_cast<long long>(batch), gib(bytes));
        batches[std::to_string(batch)] = bytes;
      }
      std::printf("\n");
      perChoice[choice] = std::move(batches);
    }
    memoryJson[side->name] = std::move(perChoice);
  }
  if (!options.dataPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.dataPath, ec);
    if (ec) {
      std::fprintf(stderr, "cotangent-bench: cannot write %s: %s\n", options.dataPath.c_str(),
                   ec.message().c_str());
      return true;
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"preset", options.preset},
                                     {"seq", seq},
                                     {"caps", std::move(capRows)},
                                     {"eighths", std::move(fineRows)},
                                     {"memory", std::move(memoryJson)}}))
       << "\n";
    std::printf("data: %s\n", options.dataPath.c_str());
  }
  return false;
}
