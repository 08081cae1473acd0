//===- cotangent-step.cpp - run a compiled GPU training step --------------===//
//
// cotangent-step STEP.so [--fn BASE] [--input a.npy]... [--seed N]
//     [--repeat N] [--warmup K] [--expect DIR] [--rtol R] [--output-dir DIR]
//     [--atol A] [--save-inputs DIR] [--tf32] [--no-graph] [--profile N]
//     [--json FILE] [--check-only]
//
// Loads a step (a shared library made from `cotangent-run --target=cuda
// --emit-object`: host code, embedded kernels, packed entries and the
// manifest), and runs its forward and backward on the GPU through the CUDA
// runtime alone: no MLIR, no LLVM, no JIT. One step is runtime/core's split
// run (the protocol cotangent-run and jit run too): the forward, each
// residual marked pinned_host offloaded (the backward copies it back where
// it needs it), the backward on cotangents of ones. The first step runs
// eagerly and is measured (residual, offloaded and peak device bytes); the
// step is then recorded as a CUDA graph and the timed steps replay it
// (--no-graph: eager), so the time is the device's, not the host's.
// --profile N times each launch of one more eager step (events around each
// kernel and cuBLAS call) and lists the N slowest kernels.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Manifest.h"
#include "runtime/core/SplitReport.h"
#include "runtime/core/SplitRun.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/KernelProfile.h"
#include "tools/cotangent-step/ArrayDifference.h"
#include "tools/cotangent-step/NpyFile.h"
#include "tools/common/Version.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>

using namespace cotangent::step;
using cotangent::core::Function;
using cotangent::core::Manifest;
using cotangent::core::MemRefDescriptor;
using cotangent::core::Split;

namespace {

struct Options {
  std::string library, fn, expect, outputDir, json, saveInputs;
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  int repeat = 20, warmup = 3;
  int profile = 0; ///< kernels listed by --profile (0: no profile)
  double rtol = 1e-5, atol = 0;
  bool tf32 = false, graph = true, checkOnly = false;
};

/// Ends the process without static destructors: once a step library is
/// loaded, exit() would run its destructor (unloading its kernels) after
/// the runtime's own static state was destroyed, and crash.
[[noreturn]] void fail(const std::string &message, int code = 1) {
  std::fprintf(stderr, "cotangent-step: %s\n", message.c_str());
  std::fflush(nullptr);
  std::_Exit(code);
}

void usage() {
  std::printf(
      "usage: cotangent-step STEP.so [options]\n"
      "Runs a training step compiled by `cotangent-run --target=cuda --emit-object` on the GPU.\n"
      "\ncotangent-step options:\n"
      "  --fn BASE          the split to run (default: the only one)\n"
      "  --input FILE.npy   an argument of the forward, all of them in order (default: random)\n"
      "  --seed N           seed of the random arguments (default 0)\n"
      "  --repeat N         timed steps (default 20)\n"
      "  --warmup K         untimed steps before them (default 3)\n"
      "  --expect DIR       compare with DIR/output<i>.npy and DIR/gradient<i>.npy\n"
      "  --rtol R           tolerance of --expect: |a-b| <= R max|b| + A (default 1e-5;\n"
      "                     bf16 and f16 results: at least 2 units in their last place)\n"
      "  --atol A           absolute tolerance of --expect (default 0; for a loss that cancels)\n"
      "  --output-dir DIR   write output<i>.npy and gradient<i>.npy there\n"
      "  --save-inputs DIR  write the arguments used as arg<i>.npy there (also with --check-only)\n"
      "  --tf32             cuBLAS may use TF32 tensor cores for f32 matmuls\n"
      "  --no-graph         time eager steps instead of a replayed CUDA graph\n"
      "  --profile N        time each kernel and cuBLAS call of one more eager step and list\n"
      "                     the N slowest (0: none)\n"
      "  --json FILE        write the figures as JSON\n"
      "  --check-only       check the manifest and the inputs, run nothing\n"
      "  --help             this list\n"
      "  --version          Cotangent's version\n");
}

Options parseOptions(int argc, char **argv) {
  Options o;
  auto value = [&](int &i, const char *flag) -> std::string {
    if (i + 1 >= argc)
      fail(std::string(flag) + " needs a value");
    return argv[++i];
  };
  auto integer = [&](const std::string &text, const char *flag, long long lo) {
    try {
      size_t used = 0;
      long long v = std::stoll(text, &used);
      if (used == text.size() && v >= lo)
        return v;
    } catch (...) {
    }
    fail(std::string(flag) + ": expected an integer >= " + std::to_string(lo) + ", got '" +
         text + "'");
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version") {
      std::printf("cotangent-step (Cotangent) %s\n", COTANGENT_VERSION_STRING);
      std::exit(0);
    } else if (a == "--help" || a == "-h" || a == "--help-hidden") {
      usage();
      std::exit(0);
    } else if (a == "--fn") {
      o.fn = value(i, "--fn");
    } else if (a == "--input") {
      o.inputs.push_back(value(i, "--input"));
    } else if (a == "--seed") {
      o.seed = integer(value(i, "--seed"), "--seed", 0);
    } else if (a == "--repeat") {
      o.repeat = static_cast<int>(integer(value(i, "--repeat"), "--repeat", 1));
    } else if (a == "--warmup") {
      o.warmup = static_cast<int>(integer(value(i, "--warmup"), "--warmup", 0));
    } else if (a == "--profile") {
      o.profile = static_cast<int>(integer(value(i, "--profile"), "--profile", 0));
    } else if (a == "--expect") {
      o.expect = value(i, "--expect");
    } else if (a == "--rtol" || a == "--atol") {
      std::string v = value(i, a.c_str());
      char *end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(x >= 0) || !std::isfinite(x))
        fail(a + ": expected a number >= 0, got '" + v + "'");
      (a == "--rtol" ? o.rtol : o.atol) = x;
    } else if (a == "--output-dir") {
      o.outputDir = value(i, "--output-dir");
    } else if (a == "--save-inputs") {
      o.saveInputs = value(i, "--save-inputs");
    } else if (a == "--json") {
      o.json = value(i, "--json");
    } else if (a == "--tf32") {
      o.tf32 = true;
    } else if (a == "--no-graph") {
      o.graph = false;
    } else if (a == "--check-only") {
      o.checkOnly = true;
    } else if (!a.empty() && a[0] == '-') {
      fail("unknown option " + a + " (see --help)");
    } else if (o.library.empty()) {
      o.library = a;
    } else {
      fail("more than one step library given: " + o.library + ", " + a);
    }
  }
  if (o.library.empty())
    fail("no step library given (see --help)");
  return o;
}

std::string runtimeError() {
  std::string e = cotangent_cuda_last_error();
  cotangent_cuda_clear_error();
  return e.empty() ? "unknown error" : e;
}

/// The elements `desc` views, copied to the host.
Array download(const TensorType &type, const MemRefDescriptor &desc) {
  Array array{type, std::vector<char>(type.bytes())};
  int64_t width = byteWidth(type.dtype), block = cotangent_cuda_block_size(desc.allocated());
  if (block < 0) { // pinned host memory (an offloaded residual): readable as it is
    desc.copyElements(array.data.data(), width);
    return array;
  }
  std::vector<char> host(std::max<int64_t>(block, 1));
  if (block > 0 && cotangent_cuda_copy_to_host(host.data(), desc.allocated(), block) != 0)
    fail("copying a result to the host failed: " + runtimeError());
  desc.rebased(host.data()).copyElements(array.data.data(), width);
  return array;
}

Array randomArray(const TensorType &type, std::mt19937_64 &rng) {
  Array array{type, std::vector<char>(type.bytes())};
  double scale = type.shape.empty() ? 1.0 : 1.0 / std::sqrt(std::max<int64_t>(type.shape.back(), 1));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  bool integer = type.dtype == DType::I32 || type.dtype == DType::I64;
  for (int64_t i = 0, n = type.elements(); i < n; ++i)
    array.set(i, type.dtype == DType::I1 ? static_cast<double>(rng() & 1)
                 : integer               ? static_cast<double>(rng() % 4)
                                         : uniform(rng) * scale);
  return array;
}

Array ones(const TensorType &type) {
  if (type.dtype != DType::F32 && type.dtype != DType::F64 && type.dtype != DType::F16 &&
      type.dtype != DType::BF16)
    fail("cotangents of ones need floating-point outputs, got " + type.str());
  Array array{type, std::vector<char>(type.bytes())};
  for (int64_t i = 0, n = type.elements(); i < n; ++i)
    array.set(i, 1.0);
  return array;
}

using Entry = void (*)(void **);

/// A split loaded from the library, its arguments on the device: the split
/// run's target (runtime/core/SplitRun.h) on the CUDA runtime, run by the
/// protocol every runtime runs.
class Step final : public cotangent::core::SplitTarget {
public:
  Step(const Function &fwd, const Function &bwd, int64_t numOutputs, Entry fwdEntry,
       Entry bwdEntry)
      : fwd(fwd), bwd(bwd), numOutputs(numOutputs), fwdEntry(fwdEntry), bwdEntry(bwdEntry),
        pinned(fwd.results.size(), nullptr) {
    layout.numOutputs = numOutputs;
    for (size_t i = 0; i < fwd.results.size(); ++i) {
      layout.resultBytes.push_back(fwd.results[i].bytes());
      layout.offloaded.push_back(i >= static_cast<size_t>(numOutputs) && fwd.pinnedHost[i]);
    }
  }

  ~Step() override {
    for (void *p : pinned)
      cotangent_cuda_host_free(p);
    for (const auto *given : {&args, &cotangents})
      for (const MemRefDescriptor &d : *given)
        cotangent_cuda_free(d.allocated());
  }

  void upload(const std::vector<Array> &arguments, const std::vector<Array> &seeds) {
    for (const Array &a : arguments)
      args.push_back(toDevice(a));
    for (const Array &a : seeds)
      cotangents.push_back(toDevice(a));
  }

  /// What one step leaves: the outputs and gradients (their blocks freed by
  /// release()), and the bytes measured (eager steps only).
  using Result = cotangent::core::SplitRun;

  /// Enqueues one step; nothing waits for the device (it may be recorded).
  /// The outputs are kept to the step's end, where they are read.
  Result enqueue() {
    Result r;
    if (!cotangent::core::runSplit(*this, layout, args, cotangents, nullptr, r))
      fail("the step failed: " + runtimeError());
    return r;
  }

  /// Frees what a step left (its outputs' and gradients' blocks).
  void releaseResults(const Result &r) {
    for (void *block : r.resultBlocks)
      if (cotangent_cuda_block_size(block) >= 0) // not pinned memory
        cotangent_cuda_free(block);
  }

  const Function &fwd, &bwd;
  const int64_t numOutputs;

  // The split run's target.
  bool invoke(Half half, std::vector<MemRefDescriptor> &callArgs,
              std::vector<MemRefDescriptor> &results, double &) override {
    results = half == Half::Forward ? call(fwdEntry, fwd, callArgs) : call(bwdEntry, bwd, callArgs);
    return true;
  }
  int64_t liveBytes() const override { return cotangent_cuda_live_bytes(); }
  int64_t peakBytes() const override { return cotangent_cuda_peak_bytes(); }
  void resetPeak() override { cotangent_cuda_reset_peak(); }
  int64_t blockBytes(void *block) const override { return cotangent_cuda_block_size(block); }
  void release(void *block) override { cotangent_cuda_free(block); }
  /// Into the pinned buffer this result reuses every step (a recorded
  /// graph replays the same addresses); the forward's own pinned copy
  /// (jx-gpu-offload-residuals) as it is. The backward reads the pinned
  /// buffer itself (jx-gpu-reload-residuals).
  bool offload(size_t result, const MemRefDescriptor &residual, MemRefDescriptor &copy) override {
    if (cotangent_cuda_is_pinned(residual.allocated())) {
      copy = residual;
      return true;
    }
    const TensorType &type = fwd.results[result];
    if (!residual.isContiguous())
      fail("an offloaded residual of " + fwd.name + " is not contiguous");
    if (!pinned[result] && !(pinned[result] = cotangent_cuda_host_alloc(type.bytes())))
      fail("pinned host allocation failed: " + runtimeError());
    if (type.bytes() > 0 &&
        cotangent_cuda_offload(pinned[result], residual.first(byteWidth(type.dtype)),
                               type.bytes()) != 0)
      fail("offloading a residual failed: " + runtimeError());
    copy = MemRefDescriptor::contiguous(pinned[result], type.shape);
    return true;
  }
  /// The forward's own pinned copies go; this step's buffers stay.
  void discard(const MemRefDescriptor &copy) override {
    if (std::find(pinned.begin(), pinned.end(), copy.allocated()) == pinned.end())
      cotangent_cuda_host_free(copy.allocated());
  }

private:
  MemRefDescriptor toDevice(const Array &a) {
    void *p = cotangent_cuda_alloc(a.type.bytes());
    if (!p || (a.type.bytes() > 0 &&
               cotangent_cuda_copy_to_device(p, a.data.data(), a.type.bytes()) != 0))
      fail("copying an argument to the GPU failed: " + runtimeError());
    return MemRefDescriptor::contiguous(p, a.type.shape);
  }

  /// Calls a packed entry: the results come back as one struct of
  /// descriptors written through the first argument.
  static std::vector<MemRefDescriptor> call(Entry entry, const Function &fn,
                                            std::vector<MemRefDescriptor> &args) {
    std::vector<int64_t> words;
    std::vector<size_t> offsets;
    for (const TensorType &t : fn.results) {
      offsets.push_back(words.size());
      words.resize(words.size() + MemRefDescriptor::numWords(t.shape.size()));
    }
    words.resize(std::max<size_t>(words.size(), 1));
    void *resultStruct = words.data();
    std::vector<void *> descriptors;
    for (MemRefDescriptor &d : args)
      descriptors.push_back(d.address());
    std::vector<void *> packed;
    if (!fn.results.empty())
      packed.push_back(&resultStruct);
    for (void *&d : descriptors)
      packed.push_back(&d);
    entry(packed.data());
    std::vector<MemRefDescriptor> results;
    for (size_t i = 0; i < fn.results.size(); ++i)
      results.emplace_back(words.data() + offsets[i], fn.results[i].shape.size());
    return results;
  }

  Entry fwdEntry, bwdEntry;
  cotangent::core::SplitLayout layout;
  std::vector<MemRefDescriptor> args, cotangents; ///< on the device, this tool's
  std::vector<void *> pinned; ///< per forward result, reused by every step
};

/// The device memory the step's plan predicted (cotangent-run --emit-object
/// writes it): the peak counts the outputs until the forward's end, where
/// this tool keeps them to the step's end.
void printPlan(const Split &split) {
  if (split.predictedPeakBytes < 0)
    return;
  std::printf("predicted (memory plan): device peak bytes %lld, residual bytes %lld\n",
              static_cast<long long>(split.predictedPeakBytes),
              static_cast<long long>(split.predictedResidualBytes));
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void printSummary(const char *label, size_t i, const Array &a) {
  std::printf("%s", cotangent::core::valueSummary(std::string(label) + " " + std::to_string(i),
                                                  a.type.str(), a.type.elements(),
                                                  [&](int64_t k) { return a.at(k); })
                        .c_str());
}

/// JSON has no inf or nan.
std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

/// Unloads the step (its destructor unloads its kernels) while the runtime
/// is alive (see fail()); returns `code`.
int unload(void *library, int code) {
  std::fflush(nullptr);
  dlclose(library);
  return code;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parseOptions(argc, argv);
  // A bare name would be searched on the library path, not here.
  if (o.library.find('/') == std::string::npos)
    o.library = "./" + o.library;
  void *library = dlopen(o.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    fail(std::string("cannot load ") + o.library + ": " + dlerror());
  auto manifestFn = reinterpret_cast<const char *(*)()>(dlsym(library, "cotangent_manifest"));
  if (!manifestFn)
    fail(o.library + " is not a Cotangent step (no cotangent_manifest)");
  Manifest manifest;
  std::string error;
  if (!parseManifest(manifestFn(), manifest, error))
    fail(o.library + ": " + error);
  if (manifest.target.rfind("cuda", 0) != 0)
    fail(o.library + ": a step for '" + manifest.target + "'; cotangent-step runs cuda steps");
  const Split *split = nullptr;
  for (const Split &s : manifest.splits)
    if (o.fn.empty() ? manifest.splits.size() == 1 : s.base == o.fn)
      split = &s;
  if (!split) {
    std::string names;
    for (const Split &s : manifest.splits)
      names += " " + s.base;
    fail(o.fn.empty() ? "give --fn: the splits of " + o.library + " are:" + names
                      : "no split " + o.fn + " in " + o.library + "; it has:" + names);
  }
  const Function &fwd = manifest.functions.at(split->fwd), &bwd = manifest.functions.at(split->bwd);
  auto fwdEntry = reinterpret_cast<Entry>(dlsym(library, fwd.entry.c_str()));
  auto bwdEntry = reinterpret_cast<Entry>(dlsym(library, bwd.entry.c_str()));
  if (!fwdEntry || !bwdEntry)
    fail(o.library + ": its manifest names an entry it lacks (" + fwd.entry + ", " + bwd.entry + ")");

  // Arguments: .npy files (checked against the forward), or random.
  std::vector<Array> args;
  if (!o.inputs.empty() && o.inputs.size() != fwd.args.size())
    fail(fwd.name + " takes " + std::to_string(fwd.args.size()) + " arguments, " +
         std::to_string(o.inputs.size()) + " --input files were given");
  std::mt19937_64 rng(o.seed);
  for (size_t i = 0; i < fwd.args.size(); ++i) {
    if (o.inputs.empty()) {
      args.push_back(randomArray(fwd.args[i], rng));
      continue;
    }
    Array a;
    if (!readNpy(o.inputs[i], a, error))
      fail(error);
    if (a.type.dtype != fwd.args[i].dtype || a.type.shape != fwd.args[i].shape)
      fail(o.inputs[i] + ": holds " + a.type.str() + " but argument " + std::to_string(i) +
           " of " + fwd.name + " is " + fwd.args[i].str());
    args.push_back(std::move(a));
  }
  if (!o.saveInputs.empty())
    for (size_t i = 0; i < args.size(); ++i)
      if (!writeNpy(o.saveInputs + "/arg" + std::to_string(i) + ".npy", args[i], error))
        fail(error);
  std::vector<Array> cotangents;
  for (int64_t i = 0; i < split->numOutputs; ++i)
    cotangents.push_back(ones(fwd.results[i]));
  if (o.checkOnly) {
    std::printf("step %s (%s / %s) for %s: %zu arguments, %lld outputs, %zu residuals, %zu "
                "gradients\n",
                split->base.c_str(), fwd.name.c_str(), bwd.name.c_str(), manifest.target.c_str(),
                fwd.args.size(), static_cast<long long>(split->numOutputs),
                fwd.results.size() - split->numOutputs, bwd.results.size());
    for (size_t i = 0; i < fwd.args.size(); ++i)
      std::printf("  argument %zu: %s\n", i, fwd.args[i].str().c_str());
    printPlan(*split);
    return unload(library, 0);
  }

  if (cotangent_cuda_init() != 0)
    fail(cotangent_cuda_last_error(), 77);
  if (o.tf32)
    cotangent_cuda_set_tf32(1);
  int cc = cotangent_cuda_compute_capability();
  Step step(fwd, bwd, split->numOutputs, fwdEntry, bwdEntry);
  step.upload(args, cotangents);
  if (*cotangent_cuda_last_error())
    fail("loading the step failed: " + runtimeError());

  // The measured step: eager, its peak over the whole step.
  int64_t before = cotangent_cuda_live_bytes();
  Step::Result measured = step.enqueue();
  if (cotangent_cuda_synchronize() != 0 || *cotangent_cuda_last_error())
    fail("the step failed on the GPU: " + runtimeError());
  int64_t peak = measured.peakBytes;
  std::vector<Array> outputs, gradients;
  for (int64_t i = 0; i < split->numOutputs; ++i)
    outputs.push_back(download(fwd.results[i], measured.outputs[i]));
  for (size_t i = 0; i < bwd.results.size(); ++i)
    gradients.push_back(download(bwd.results[i], measured.gradients[i]));
  step.releaseResults(measured);
  if (cotangent_cuda_live_bytes() != before)
    fail("a step leaked " + std::to_string(cotangent_cuda_live_bytes() - before) + " device bytes");

  // Timed steps: a recorded graph replayed, or eager steps.
  auto eagerStep = [&] {
    Step::Result r = step.enqueue();
    cotangent_cuda_synchronize();
    return r;
  };
  void *graph = nullptr;
  Step::Result recorded;
  if (o.graph) {
    if (cotangent_cuda_capture_begin() == 0) {
      recorded = step.enqueue();
      graph = cotangent_cuda_capture_end();
    }
    if (!graph) {
      std::printf("note: the step cannot be recorded as a CUDA graph (%s); timing eager steps\n",
                  runtimeError().c_str());
      cotangent_cuda_synchronize();
      cotangent_cuda_clear_error();
    }
  }
  auto timedStep = [&] {
    auto start = std::chrono::steady_clock::now();
    Step::Result r;
    if (graph) {
      cotangent_cuda_graph_launch(graph);
      cotangent_cuda_synchronize();
      r = recorded;
    } else {
      r = eagerStep();
    }
    double s = seconds(start);
    if (*cotangent_cuda_last_error())
      fail("a timed step failed on the GPU: " + runtimeError());
    return std::pair(r, s);
  };
  for (int i = 0; i < o.warmup; ++i)
    step.releaseResults(timedStep().first);
  std::vector<double> times;
  double replayDiff = 0;
  for (int i = 0; i < o.repeat; ++i) {
    auto [r, s] = timedStep();
    times.push_back(s);
    if (i + 1 == o.repeat) // the timed path computes what the measured step did
      for (size_t k = 0; k < bwd.results.size(); ++k)
        replayDiff = std::max(
            replayDiff, difference(download(bwd.results[k], r.gradients[k]), gradients[k])
                            .value_or(Difference{.abs = INFINITY})
                            .relative());
    step.releaseResults(r);
  }
  if (graph)
    cotangent_cuda_graph_destroy(graph);
  // One more eager step with each launch timed.
  std::vector<cotangent::cuda::KernelTime> profile;
  double profiledUs = 0;
  if (o.profile > 0) {
    if (!cotangent::cuda::beginKernelProfile())
      fail("--profile: " + runtimeError());
    step.releaseResults(eagerStep());
    profile = cotangent::cuda::endKernelProfile();
    if (*cotangent_cuda_last_error())
      fail("the profiled step failed on the GPU: " + runtimeError());
    for (const auto &k : profile)
      profiledUs += k.microseconds;
  }
  if (cotangent_cuda_live_bytes() != before)
    fail("the timed steps leaked " + std::to_string(cotangent_cuda_live_bytes() - before) +
         " device bytes");

  std::printf("step %s (%s / %s) on sm_%d: %lld outputs, %zu residuals, %zu gradients\n",
              split->base.c_str(), fwd.name.c_str(), bwd.name.c_str(), cc,
              static_cast<long long>(split->numOutputs), fwd.results.size() - split->numOutputs,
              bwd.results.size());
  double minTime = *std::min_element(times.begin(), times.end()), medianTime = median(times);
  std::printf("time: min %.3f ms, median %.3f ms over %d steps (%d warm-up, %s%s)\n",
              minTime * 1e3, medianTime * 1e3, o.repeat, o.warmup,
              graph ? "CUDA graph" : "eager", o.tf32 ? ", TF32" : "");
  std::printf("%s", cotangent::core::splitBytesReport(measured).c_str());
  printPlan(*split);
  std::printf("timed steps vs the measured step: max relative difference %.3g\n", replayDiff);
  if (o.profile > 0) {
    int launches = 0;
    for (const auto &k : profile)
      launches += k.launches;
    std::printf("profile of one eager step: %d launches of %zu kernels, %.3f ms in them\n",
                launches, profile.size(), profiledUs * 1e-3);
    for (size_t i = 0; i < profile.size() && i < static_cast<size_t>(o.profile); ++i)
      std::printf("  %9.1f us %5.1f%% %4d x  %s\n", profile[i].microseconds,
                  100 * profile[i].microseconds / std::max(profiledUs, 1e-9), profile[i].launches,
                  profile[i].name.c_str());
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    printSummary("output", i, outputs[i]);
  for (size_t i = 0; i < gradients.size(); ++i)
    printSummary("gradient", i, gradients[i]);

  bool ok = replayDiff <= o.rtol;
  // The worst relative and absolute differences, outputs and gradients
  // apart: a loss that sums many terms nearly cancels, so only its absolute
  // difference says how close it is.
  struct Worst {
    double relative = 0, abs = 0;
  } outputWorst, gradientWorst;
  if (!o.expect.empty()) {
    auto compare = [&](const char *prefix, const std::vector<Array> &got, Worst &worst) {
      for (size_t i = 0; i < got.size(); ++i) {
        std::string path = o.expect + "/" + prefix + std::to_string(i) + ".npy";
        Array want;
        if (!readNpy(path, want, error))
          fail("--expect: " + error);
        std::optional<Difference> d = difference(got[i], want);
        if (!d)
          fail(path + ": holds " + want.type.str() + ", the step gives " + got[i].type.str());
        bool within = d->within(o.rtol, o.atol);
        worst.relative = std::max(worst.relative, d->relative());
        worst.abs = std::max(worst.abs, d->abs);
        std::printf("expect %s%zu: max relative difference %.3g (max abs %.3g)%s%s\n", prefix,
                    i, d->relative(), d->abs,
                    d->floor > o.rtol ? (std::string(", ") + dtypeName(want.type.dtype) +
                                         ": rtol at least " + std::to_string(d->floor))
                                            .c_str()
                                      : "",
                    within ? "" : "  (over the tolerance)");
        ok = ok && within;
      }
    };
    compare("output", outputs, outputWorst);
    compare("gradient", gradients, gradientWorst);
    std::printf("expect: %s (rtol %g, atol %g)\n", ok ? "ok" : "FAILED", o.rtol, o.atol);
  }
  if (!o.outputDir.empty()) {
    auto write = [&](const char *prefix, const std::vector<Array> &arrays) {
      for (size_t i = 0; i < arrays.size(); ++i)
        if (!writeNpy(o.outputDir + "/" + prefix + std::to_string(i) + ".npy", arrays[i], error))
          fail(error);
    };
    write("output", outputs);
    write("gradient", gradients);
  }
  if (!o.json.empty()) {
    // Differences from --expect; null where nothing was compared.
    auto checked = [&](double v) { return o.expect.empty() ? std::string("null") : jsonNumber(v); };
    std::ofstream out(o.json);
    out << "{\"fn\": \"" << split->base << "\", \"chip\": \"sm_" << cc << "\", \"min_ms\": "
        << jsonNumber(minTime * 1e3) << ", \"median_ms\": " << jsonNumber(medianTime * 1e3)
        << ", \"graph\": " << (graph ? "true" : "false") << ", \"tf32\": "
        << (o.tf32 ? "true" : "false") << ", \"residual_bytes\": " << measured.residualBytes
        << ", \"offloaded_bytes\": " << measured.offloadedBytes << ", \"peak_bytes\": " << peak
        << ", \"predicted_peak_bytes\": " << split->predictedPeakBytes
        << ", \"predicted_residual_bytes\": " << split->predictedResidualBytes
        << ", \"max_rel_diff\": "
        << checked(std::max(outputWorst.relative, gradientWorst.relative))
        << ", \"max_gradient_rel_diff\": " << checked(gradientWorst.relative)
        << ", \"max_output_abs_diff\": " << checked(outputWorst.abs)
        << ", \"profile_ms\": " << jsonNumber(profiledUs * 1e-3)
        << ", \"ok\": " << (ok ? "true" : "false") << "}\n";
    out.flush();
    if (!out)
      fail("cannot write " + o.json);
  }
  return unload(library, ok ? 0 : 1);
}
