//===- JaxComparison.cpp - the same training steps in Cotangent and JAX ---===//

#include "bench/JaxComparison.h"
#include "bench/Gpt2Model.h"
#include "bench/MlpModel.h"
#include "bench/PolicyFigures.h"
#include "bench/PythonSide.h"
#include "bench/RandomArguments.h"
#include "bench/TransformerModel.h"
#include "passes/Passes.h"
#include "runtime/cpu/BlockCache.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/cpu/Threads.h"
#include "tracer/Autodiff.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <sys/resource.h>

using namespace cotangent;
using bench::ComparisonOptions;

namespace {

/// One program under one policy: the rows JAX and Cotangent both run.
struct Row {
  std::string id, model, policy;
  int64_t layers = 0, width = 0, batch = 0, blocks = 0, seq = 0, heads = 0;
  bool compileOnly = false;
  std::string preset; ///< GPT-2's (models/gpt2)

  std::string label() const {
    if (model == "mlp")
      return llvm::formatv("mlp {0}x{1} batch {2}", layers, width, batch).str();
    if (model == "gpt2")
      return llvm::formatv("gpt2 {0} batch {1}x{2}", preset, batch, seq).str();
    return llvm::formatv("transformer {0}x{1} batch {2}", blocks, width, batch).str();
  }
};

std::vector<Row> comparisonRows(bool small) {
  std::vector<Row> rows;
  const std::vector<std::string> policyNames = {"none", "nothing_saveable", "dots_saveable"};
  auto mlp = [&](int64_t layers, int64_t width, int64_t batch) {
    for (const std::string &p : policyNames)
      rows.push_back({.id = llvm::formatv("mlp-{0}x{1}-b{2}-{3}", layers, width, batch, p).str(),
                      .model = "mlp", .policy = p, .layers = layers, .width = width,
                      .batch = batch});
  };
  auto transformer = [&](int64_t blocks, int64_t width, int64_t heads, int64_t seq,
                         int64_t batch) {
    for (const std::string &p : policyNames)
      rows.push_back(
          {.id = llvm::formatv("transformer-{0}x{1}-b{2}-{3}", blocks, width, batch, p).str(),
           .model = "transformer", .policy = p, .width = width, .batch = batch,
           .blocks = blocks, .seq = seq, .heads = heads});
  };
  auto gpt2 = [&](const std::string &preset, int64_t batch, int64_t seq) {
    for (const std::string &p : policyNames)
      rows.push_back({.id = llvm::formatv("gpt2-{0}-b{1}x{2}-{3}", preset, batch, seq, p).str(),
                      .model = "gpt2", .policy = p, .batch = batch, .seq = seq,
                      .preset = preset});
  };
  auto compileOnly = [&](int64_t layers) {
    rows.push_back({.id = llvm::formatv("compile-mlp-{0}x256", layers).str(), .model = "mlp",
                    .policy = "none", .layers = layers, .width = 256, .batch = 64,
                    .compileOnly = true});
  };
  if (small) {
    mlp(2, 32, 8);
    transformer(1, 16, 2, 8, 2);
    gpt2("tiny", 2, 16);
    compileOnly(2);
    compileOnly(4);
    return rows;
  }
  mlp(8, 1024, 256);
  mlp(8, 1024, 2048);
  mlp(64, 256, 64);
  transformer(4, 512, 8, 256, 8);
  gpt2("tiny", 8, 64);
  gpt2("124M", 2, 128);
  gpt2("124M", 4, 256); // the size the performance issue names
  for (int64_t layers : {16, 32, 64, 128})
    compileOnly(layers);
  // GPT-2's step compiled at 12 and at 48 layers (1558M's depth), batch 4 x 256.
  for (const char *preset : {"124M", "1558M"})
    rows.push_back({.id = llvm::formatv("compile-gpt2-{0}", preset).str(), .model = "gpt2",
                    .policy = "none", .batch = 4, .seq = 256, .compileOnly = true,
                    .preset = preset});
  return rows;
}

struct Figures {
  double compileSeconds = 0;
  std::vector<double> seconds;
  int64_t peakBytes = 0;
  std::string error;
};

/// Cotangent's side: trace, split and compile the value-and-grad step alone
/// (its only entry point: the pipeline drops the split's other functions),
/// then time it. A compile-only row compiles `repeats` times from a fresh
/// trace and reports the median, as jax_cpu.py does for jax.jit.
Figures runOurs(mlir::MLIRContext &ctx, const Row &row, const ComparisonOptions &options) {
  Figures f;
  // JAX runs each row in a fresh process: ours starts without the blocks
  // the earlier rows' steps left for reuse (up to 1 GiB after the
  // transformer's).
  cpu::blockCache().release();
  try {
    std::optional<Policy> policy = bench::policyOf(row.policy);
    std::optional<Split> split;
    std::unique_ptr<cpu::CpuModule> compiled;
    std::vector<double> compileSeconds;
    unsigned compiles = row.compileOnly ? std::max(1u, options.repeats) : 1;
    for (unsigned c = 0; c < compiles; ++c) {
      compiled.reset();
      split.reset();
      auto start = std::chrono::steady_clock::now();
      Traced traced =
          row.model == "gpt2"
              ? bench::traceGpt2(ctx, *gpt2::preset(row.preset), row.batch, row.seq, policy)
          : row.model == "mlp"
              ? bench::traceMlp(ctx,
                                {.layers = row.layers, .width = row.width, .batch = row.batch},
                                policy)
              : bench::traceTransformer(ctx,
                                        {.blocks = row.blocks, .seq = row.seq, .width = row.width,
                                         .heads = row.heads, .batch = row.batch},
                                        policy);
      // Outside the checkpoints, what jax.jit's XLA does: the compile default.
      split.emplace(std::move(traced),
                    SplitOptions{.defaultPolicy = mlir::cotangent::kCompileDefaultPolicy.str()});
      auto result = cpu::CpuModule::compile(
          split->module(), {.entryPoints = {split->value_and_grad().getSymName().str()}});
      if (mlir::failed(result)) {
        f.error = "compile failed";
        return f;
      }
      compiled = std::move(*result);
      compileSeconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    f.compileSeconds = bench::median(compileSeconds);
    if (row.compileOnly)
      return f;
    mlir::func::FuncOp step = split->value_and_grad();
    std::vector<cpu::Tensor> args = bench::randomArguments(step, 2);
    for (unsigned r = 0; r < options.warmup + options.repeats; ++r) {
      auto result = compiled->call(step.getSymName(), args);
      if (mlir::failed(result)) {
        f.error = "run failed";
        return f;
      }
      if (r >= options.warmup)
        f.seconds.push_back(result->seconds);
      f.peakBytes = result->stats.peakBytes;
    }
  } catch (const std::exception &e) {
    f.error = e.what();
  }
  return f;
}

/// The venv's python: options.python, else the last line scripts/jax-venv.sh prints.
std::optional<std::string> findJaxPython(const ComparisonOptions &options) {
  if (!options.python.empty())
    return options.python;
  return bench::venvPython("jax-venv.sh", "jax-venv");
}

/// JAX's version and the cores it sees, or nullopt when `python` cannot
/// import JAX.
std::optional<std::pair<std::string, int64_t>> probeJax(const std::string &python) {
  std::optional<std::string> out = bench::standardOutputOf(
      {python, "-c", "import os, jax; print(jax.__version__, os.cpu_count())"});
  if (!out)
    return std::nullopt;
  auto [version, cores] = llvm::StringRef(*out).trim().split(' ');
  int64_t n = 0;
  if (version.empty() || cores.getAsInteger(10, n))
    return std::nullopt;
  return std::make_pair(version.str(), n);
}

/// JAX's side of one row (bench/jax_cpu.py in its own process), run right
/// before ours, so that both see the machine in the same state and neither
/// competes with the other for the cores. Null, with `why`, on failure.
std::optional<llvm::json::Object> runJax(const Row &row, const std::string &python,
                                         const ComparisonOptions &options, std::string &why) {
  llvm::json::Array spec;
  spec.push_back(llvm::json::Object{
      {"id", row.id}, {"model", row.model}, {"policy", row.policy}, {"layers", row.layers},
      {"width", row.width}, {"batch", row.batch}, {"blocks", row.blocks}, {"seq", row.seq},
      {"heads", row.heads}, {"repeats", options.repeats}, {"warmup", options.warmup},
      {"compile_only", row.compileOnly}});
  if (row.model == "gpt2") {
    const gpt2::Config config = *gpt2::preset(row.preset);
    llvm::json::Object &o = *spec.back().getAsObject();
    o["layers"] = config.n_layer;
    o["width"] = config.n_embd;
    o["heads"] = config.n_head;
    o["vocab"] = config.vocab_size;
    o["context"] = config.block_size;
  }
  return bench::runRows(python, "jax_cpu.py", std::move(spec), why);
}

double mib(int64_t bytes) { return bytes / 1048576.0; }

} // namespace

std::optional<Policy> bench::policyOf(const std::string &name) {
  if (name == "nothing_saveable")
    return policies::nothing_saveable();
  if (name == "dots_saveable")
    return policies::dots_saveable();
  return std::nullopt;
}

std::optional<std::string> bench::jaxPython(const std::string &given, std::string &why) {
  std::optional<std::string> python = findJaxPython({.python = given});
  if (!python) {
    why = "scripts/jax-venv.sh could not make the venv";
    return std::nullopt;
  }
  if (!probeJax(*python)) {
    why = *python + " cannot import jax";
    return std::nullopt;
  }
  return python;
}

std::optional<llvm::json::Object>
bench::runJaxGpt2(const std::string &python, const std::string &preset, const std::string &policy,
                  int64_t batch, int64_t seq, bool compileOnly, unsigned repeats, unsigned warmup,
                  std::string &why) {
  Row row{.id = "gpt2", .model = "gpt2", .policy = policy, .batch = batch, .seq = seq,
          .compileOnly = compileOnly, .preset = preset};
  auto out = runJax(row, python, {.repeats = repeats, .warmup = warmup}, why);
  return out ? bench::rowFigures(*out, "gpt2", "jax_cpu.py", why) : std::nullopt;
}

int bench::compareWithJax(mlir::MLIRContext &ctx, const ComparisonOptions &options) {
  std::vector<Row> rows = comparisonRows(options.small);
  llvm::erase_if(rows, [&](const Row &row) {
    return !llvm::StringRef(row.id).contains(options.filter);
  });
  std::string why;
  std::optional<std::string> python = findJaxPython(options);
  std::optional<std::pair<std::string, int64_t>> jax;
  if (!python)
    why = "scripts/jax-venv.sh could not make the venv";
  else if (!(jax = probeJax(*python)))
    why = *python + " cannot import jax";

  std::printf("Cotangent against JAX/XLA on this CPU: value-and-grad step, median of %u "
              "after %u warm-up\n",
              options.repeats, options.warmup);
  if (jax)
    std::printf("  JAX %s on %lld cores; Cotangent on %u threads (loops and matmuls); each "
                "row runs in JAX, then in Cotangent\n",
                jax->first.c_str(), static_cast<long long>(jax->second), cpu::threads());
  else
    std::printf("  JAX unavailable (%s): Cotangent's figures alone\n", why.c_str());
  std::printf("  Cotangent's matmuls: %s\n", cpu::matmulLibraryName().c_str());
  std::printf("  %-30s %-17s %10s %10s %7s %10s %10s %7s\n", "program", "policy", "ours ms",
              "JAX ms", "time x", "ours MiB", "XLA MiB", "peak x");

  llvm::json::Array out;
  bool failed = false;
  int64_t jaxRss = 0;
  for (const Row &row : rows) {
    std::optional<llvm::json::Object> jaxRun;
    if (jax) {
      std::string rowWhy;
      jaxRun = runJax(row, *python, options, rowWhy);
      if (!jaxRun)
        std::printf("  %-30s %-17s JAX: %s\n", row.label().c_str(), row.policy.c_str(),
                    rowWhy.c_str());
      else
        jaxRss = std::max(jaxRss, jaxRun->getInteger("max_rss_bytes").value_or(0));
    }
    const llvm::json::Object *jaxRows = jaxRun ? jaxRun->getObject("rows") : nullptr;
    const llvm::json::Object *theirs = jaxRows ? jaxRows->getObject(row.id) : nullptr;
    Figures ours = runOurs(ctx, row, options);
    llvm::json::Object record{{"id", row.id},           {"program", row.label()},
                              {"policy", row.policy},   {"compile_only", row.compileOnly},
                              {"compile_s", ours.compileSeconds}};
    if (!ours.error.empty()) {
      failed = true;
      record["error"] = ours.error;
      std::printf("  %-30s %-17s error: %s\n", row.label().c_str(), row.policy.c_str(),
                  ours.error.c_str());
    }
    if (theirs)
      record["jax"] = llvm::json::Object(*theirs);
    if (!row.compileOnly && ours.error.empty()) {
      double ms = bench::median(ours.seconds) * 1e3;
      record["median_ms"] = ms;
      record["min_ms"] = *std::min_element(ours.seconds.begin(), ours.seconds.end()) * 1e3;
      record["peak_bytes"] = ours.peakBytes;
      std::optional<double> jaxMs = theirs ? theirs->getNumber("median_ms") : std::nullopt;
      std::optional<int64_t> jaxPeak = theirs ? theirs->getInteger("peak_bytes") : std::nullopt;
      std::printf("  %-30s %-17s %10.4g %10s %7s %10.3f %10s %7s\n", row.label().c_str(),
                  row.policy.c_str(), ms,
                  jaxMs ? llvm::formatv("{0:g4}", *jaxMs).str().c_str() : "-",
                  jaxMs ? llvm::formatv("{0:f2}", ms / *jaxMs).str().c_str() : "-",
                  mib(ours.peakBytes),
                  jaxPeak ? llvm::formatv("{0:f3}", mib(*jaxPeak)).str().c_str() : "-",
                  jaxPeak ? llvm::formatv("{0:f2}", double(ours.peakBytes) / *jaxPeak).str().c_str()
                          : "-");
      if (jaxMs)
        record["time_ratio"] = ms / *jaxMs;
      if (jaxPeak)
        record["peak_ratio"] = double(ours.peakBytes) / *jaxPeak;
    }
    out.push_back(std::move(record));
    std::fflush(stdout); // a row at a time when the output is a file
  }

  std::printf("  compile: trace + vjp + remat + lower + LLVM, against jax.jit's lower + compile\n");
  std::printf("  %-30s %10s %10s %7s\n", "program", "ours s", "JAX s", "x");
  for (const llvm::json::Value &v : out) {
    const llvm::json::Object &record = *v.getAsObject();
    if (!record.getBoolean("compile_only").value_or(false) || record.get("error"))
      continue;
    double s = record.getNumber("compile_s").value_or(0);
    const llvm::json::Object *theirs = record.getObject("jax");
    std::optional<double> jaxS = theirs ? theirs->getNumber("compile_s") : std::nullopt;
    std::printf("  %-30s %10.3f %10s %7s\n", record.getString("program")->str().c_str(), s,
                jaxS ? llvm::formatv("{0:f3}", *jaxS).str().c_str() : "-",
                jaxS ? llvm::formatv("{0:f2}", s / *jaxS).str().c_str() : "-");
  }

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const int64_t ourRss = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  std::printf("  max RSS: cotangent-bench %.0f MiB", mib(ourRss));
  if (jaxRss > 0)
    std::printf(", JAX's processes at most %.0f MiB", mib(jaxRss));
  std::printf("\n");

  llvm::json::Object document{{"rows", std::move(out)},
                              {"max_rss_bytes", ourRss},
                              {"threads", static_cast<int64_t>(cpu::threads())},
                              {"matmul", cpu::matmulLibraryName()},
                              {"repeats", options.repeats},
                              {"warmup", options.warmup}};
  if (jax) {
    document["jax"] = jax->first;
    document["jax_threads"] = jax->second;
    if (jaxRss > 0)
      document["jax_max_rss_bytes"] = jaxRss;
  } else {
    document["jax_unavailable"] = why;
  }
  if (options.dot)
    document["dot"] = llvm::json::Object{{"n", options.dot->n},
                                         {"compiled_s", options.dot->compiledSeconds},
                                         {"openblas_s", options.dot->blasSeconds}};
  std::error_code ec;
  llvm::raw_fd_ostream file(options.dataPath, ec);
  if (ec) {
    std::fprintf(stderr, "cotangent-bench: cannot write %s: %s\n", options.dataPath.c_str(),
                 ec.message().c_str());
    return 1;
  }
  file << llvm::formatv("{0:2}", llvm::json::Value(std::move(document))) << "\n";
  std::printf("  data: %s\n", options.dataPath.c_str());
  return failed ? 1 : 0;
}
