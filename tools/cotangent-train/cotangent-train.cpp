//===- cotangent-train.cpp - GPT-2 training from one command ---------------===//
//
//   cotangent-train prepare TEXT SHARD      byte-level tokens of a text file
//   cotangent-train --data SHARD [flags]    trains GPT-2 on it
//   cotangent-train verify CHECKPOINT...    checks that checkpoints read whole
//
// The step is one compiled function (tracer/Jit.h): the loss of
// models/gpt2, its gradient, optax's clip_by_global_norm and AdamW with a
// warmup-cosine schedule (no weight decay on biases and LayerNorms), each
// block under --policy. Batches come from data/Batches (a seed and the
// step). Each step prints one line (loss, tokens/s, ms, MFU, the step's
// measured peak: what the compiled step allocates plus the parameters,
// optimizer state and batch it is given, donated) and, with --log, one
// JSON line. With
// --checkpoint-dir it saves every --checkpoint-every steps and at the end
// (checkpoint/Safetensors, atomically, the last --keep kept); --resume
// continues from the newest good checkpoint bit for bit.
//
// Under mpirun (or with --nproc N, which starts it), each process takes
// --batch rows of a job batch of N x --batch and the step averages the
// gradients over the group (pmean; with --zero 1, optim::zero1 shards
// AdamW's state instead); rank 0 prints, logs and writes the checkpoints,
// which hold the whole state (TrainGroup.h).
//
//===----------------------------------------------------------------------===//

#include "tools/common/CheckFinite.h"
#include "tools/common/CommandLine.h"
#include "tools/cotangent-train/TrainCheckpoint.h"
#include "tools/cotangent-train/TrainGroup.h"

#include "analysis/PeakOracle.h"
#include "data/Batches.h"
#include "data/TokenFile.h"
#include "models/gpt2/Model.h"
#include "runtime/comm/Timeline.h"
#include "runtime/cpu/BlasCore.h"
#include "runtime/interpreter/Interpreter.h"
#include "tracer/Array.h"
#include "tracer/Collectives.h"
#include "tracer/Jit.h"
#include "tracer/optim/Losses.h"
#include "tracer/optim/Schedules.h"
#include "tracer/optim/Sharded.h"
#include "tracer/optim/Transforms.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

using namespace cotangent;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory toolOptions("cotangent-train options");

cl::list<std::string> positional(cl::Positional, cl::cat(toolOptions),
                                 cl::desc("[prepare TEXT SHARD | verify CHECKPOINT...]"));
cl::opt<std::string> preset(cl::cat(toolOptions), "preset", cl::init("tiny"),
                            cl::desc("GPT-2 size: tiny, 124M, 350M, 774M or 1558M (default tiny)"));
cl::opt<std::string> dataPath(cl::cat(toolOptions), "data",
                              cl::desc("training tokens: an llm.c shard or a nanoGPT .bin"),
                              cl::value_desc("file"));
cl::opt<std::string> valPath(cl::cat(toolOptions), "val-data",
                             cl::desc("validation tokens (default: the last 10% of --data)"),
                             cl::value_desc("file"));
tools::UnsignedOpt<1> steps(cl::cat(toolOptions), "steps", cl::init(100),
                            cl::desc("optimizer steps in all (default 100)"));
tools::UnsignedOpt<1, 65536> batch(cl::cat(toolOptions), "batch", cl::init(4),
                                   cl::desc("sequences per step (default 4)"));
tools::UnsignedOpt<1, 65536> seq(cl::cat(toolOptions), "seq", cl::init(64),
                                 cl::desc("tokens per sequence, at most the preset's context (default 64)"));
cl::opt<double> lr(cl::cat(toolOptions), "lr", cl::init(1e-3),
                   cl::desc("peak learning rate (default 1e-3)"));
tools::UnsignedOpt<0> warmup(cl::cat(toolOptions), "warmup", cl::init(10),
                             cl::desc("warmup steps from 0 to --lr (default 10)"));
cl::opt<double> weightDecay(cl::cat(toolOptions), "weight-decay", cl::init(0.1),
                            cl::desc("AdamW's decoupled weight decay of the weights (default 0.1)"));
cl::opt<double> clip(cl::cat(toolOptions), "clip", cl::init(1.0),
                     cl::desc("clip gradients to this global norm (default 1.0; 0: no clipping)"));
cl::opt<std::string> policy(cl::cat(toolOptions), "policy",
                            cl::desc("a checkpoint per block under this policy, e.g. "
                                     "nothing_saveable or dots_saveable (default: none)"));
cl::opt<std::string> memoryBudget(
    cl::cat(toolOptions), "memory-budget",
    cl::desc("bytes (or a fraction of the peak without checkpoints) a training step may peak at, "
             "parameters, optimizer state and batch included: the step runs under the first of no "
             "checkpoint, dots_saveable and nothing_saveable per block whose measured peak fits"),
    cl::value_desc("BYTES|FRACTION"));
cl::opt<std::string> target(cl::cat(toolOptions), "target", cl::init("cpu"),
                            cl::desc("cpu, or cuda: an NVIDIA GPU (jit's Target::Cuda: parameters "
                                     "and optimizer state stay on the device; each step copies "
                                     "its batch there and its loss back)"));
cl::opt<std::string> dtype(cl::cat(toolOptions), "dtype", cl::init("f32"),
                           cl::desc("the matmuls' operands: f32, or bf16 (mixed precision: f32 "
                                    "parameters, optimizer state, norms, softmax and loss)"));
cl::opt<std::string> checkpointDir(cl::cat(toolOptions), "checkpoint-dir",
                                   cl::desc("save checkpoints here"), cl::value_desc("dir"));
tools::UnsignedOpt<1> checkpointEvery(cl::cat(toolOptions), "checkpoint-every", cl::init(50),
                                      cl::desc("steps between checkpoints (default 50)"));
tools::UnsignedOpt<1, 1000000> keep(cl::cat(toolOptions), "keep", cl::init(3),
                                    cl::desc("checkpoints kept (default 3)"));
cl::opt<bool> resume(cl::cat(toolOptions), "resume",
                     cl::desc("continue from the newest good checkpoint of --checkpoint-dir"));
cl::opt<std::string> initFrom(cl::cat(toolOptions), "init-from",
                              cl::desc("start from a Hugging Face GPT-2 safetensors file"),
                              cl::value_desc("file"));
tools::UnsignedOpt<0> seed(cl::cat(toolOptions), "seed", cl::init(0),
                           cl::desc("seed of the initialization and the batches (default 0)"));
tools::UnsignedOpt<0> evalEvery(cl::cat(toolOptions), "eval-every", cl::init(0),
                                cl::desc("steps between validation losses (default 0: at the end only)"));
cl::opt<bool> checkFinite(
    cl::cat(toolOptions), "check-finite",
    cl::desc("stop at the first step whose loss, parameters or optimizer state hold NaN or Inf, "
             "naming the op that first made one (the step re-run through the interpreter, as "
             "jax_debug_nans does); the last good checkpoint stays"));
tools::UnsignedOpt<1> printEvery(cl::cat(toolOptions), "print-every", cl::init(1),
                                 cl::desc("print every N-th step's line (default 1; the log gets all)"));
cl::opt<std::string> logPath(cl::cat(toolOptions), "log",
                             cl::desc("append one JSON line per step here"), cl::value_desc("file"));
tools::UnsignedOpt<0, 4096> nproc(cl::cat(toolOptions), "nproc", cl::init(0),
                                  cl::desc("train on N processes: starts this command under "
                                           "Open MPI's mpirun -np N; each takes --batch rows of "
                                           "a job batch of N x --batch"));
tools::UnsignedOpt<0, 1> zeroStage(cl::cat(toolOptions), "zero", cl::init(0),
                                   cl::desc("ZeRO stage: 1 splits AdamW's state across the "
                                            "processes (gradients reduce-scattered, each updates "
                                            "its block, the updates all-gathered)"));
cl::opt<std::string> timelinePath(
    cl::cat(toolOptions), "timeline",
    cl::desc("write when each step, each collective (on the communication thread) and each "
             "wait for one ran, every process's, to this file (Chrome's trace format; "
             "tools/plot-timeline.py draws it)"),
    cl::value_desc("FILE"));
cl::opt<double> peakTflops(cl::cat(toolOptions), "peak-tflops", cl::init(0),
                           cl::desc("the machine's peak f32 TFLOP/s for MFU (default: measured "
                                    "with a 1024^3 matmul at the start)"));

int fail(const std::string &message) {
  std::cerr << "cotangent-train: error: " << message << "\n";
  return 1;
}

/// `cotangent-train verify FILE...`: each checkpoint reads whole (every
/// claim of its header checked); 1 if any does not.
int verify() {
  if (positional.size() < 2)
    return fail("usage: cotangent-train verify CHECKPOINT...");
  int status = 0;
  for (size_t i = 1; i < positional.size(); ++i) {
    std::string error;
    if (std::optional<safetensors::File> f = safetensors::read(positional[i], error)) {
      auto step = f->metadata.find("step");
      std::cout << positional[i] << ": ok, " << f->tensors.size() << " tensors, step "
                << (step == f->metadata.end() ? "?" : step->second) << "\n";
    } else {
      std::cout << error << "\n";
      status = 1;
    }
  }
  return status;
}

int prepare() {
  if (positional.size() != 3)
    return fail("usage: cotangent-train prepare TEXT SHARD");
  auto text = llvm::MemoryBuffer::getFile(positional[1]);
  if (!text)
    return fail(positional[1] + ": " + text.getError().message());
  std::vector<uint16_t> tokens = data::byteTokens((*text)->getBuffer());
  if (auto error = data::writeShard(positional[2], tokens))
    return fail(*error);
  std::cout << "wrote " << tokens.size() << " byte tokens of " << positional[1] << " to "
            << positional[2] << "\n";
  return 0;
}

/// f32 TFLOP/s of the compiled 1024^3 matmul on `device` (best of 3).
double measuredPeakTflops(Target device) {
  interp::Tensor a = array::full({1024, 1024}, 0.5);
  auto mm = jit([](const Tensor &x, const Tensor &y) { return np::matmul(x, y); },
                {.target = device});
  double best = 0;
  for (int i = 0; i < 4; ++i) {
    mm(a, a);
    if (i > 0)
      best = std::max(best, 2.0 * 1024 * 1024 * 1024 / mm.last_seconds() / 1e12);
  }
  return best;
}

interp::Tensor ints(const std::vector<int32_t> &v, int64_t b, int64_t t) {
  return array::from(v, {b, t});
}

/// This rank's rows (`rows` from `first`) of a job batch, inputs and targets.
std::pair<interp::Tensor, interp::Tensor> rowsOf(const data::Batch &b, int64_t first,
                                                 int64_t rows) {
  return {ints(train::rowsOf(b.inputs, first, rows, b.seq), rows, b.seq),
          ints(train::rowsOf(b.targets, first, rows, b.seq), rows, b.seq)};
}

/// "file:line:col" of `loc` (through names and call sites), or its text.
std::string where(mlir::Location loc) {
  if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>())
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
            std::to_string(file.getColumn()));
  std::string text;
  llvm::raw_string_ostream(text) << loc;
  return text;
}

/// The first op of `fn` run on `args` through the interpreter whose result
/// holds NaN or Inf while its operands do not: what jax_debug_nans names.
std::string firstNonFinite(mlir::func::FuncOp fn, const std::vector<interp::Tensor> &args) {
  std::string found;
  interp::OpWatcher watch = [&](mlir::Operation &op, llvm::ArrayRef<interp::Tensor> operands,
                                llvm::ArrayRef<interp::Tensor> results) {
    for (auto [i, r] : llvm::enumerate(results)) {
      tools::NonFinite bad = tools::findNonFinite(r);
      if (!bad || llvm::any_of(operands, [](const interp::Tensor &t) {
            return static_cast<bool>(tools::findNonFinite(t));
          }))
        continue;
      found = "'" + op.getName().getStringRef().str() + "' at " + where(op.getLoc()) +
              " first makes one (result " + std::to_string(i) + ": " + std::to_string(bad.nans) +
              " NaN, " + std::to_string(bad.infs) + " Inf, from finite operands)";
      return mlir::failure();
    }
    return mlir::success();
  };
  if (succeeded(interp::run(fn, args, nullptr, &watch)) || found.empty())
    return "re-run through the interpreter, the step stays finite (the compiled code differs)";
  return found;
}

} // namespace

int main(int argc, char **argv) {
  if (!cpu::reexecWithWiderBlasKernels(argv))
    return 1;
  tools::setUpCommandLine(toolOptions);
  cl::ParseCommandLineOptions(argc, argv, "Cotangent: train GPT-2\n");
  {
    // memory_budget policies check their peaks against the memory plan.
    mlir::DialectRegistry registry;
    mlir::cotangent::registerPeakOracle(registry);
    defaultContext().appendDialectRegistry(registry);
  }
  if (!positional.empty() && positional[0] == "prepare")
    return prepare();
  if (!positional.empty() && positional[0] == "verify")
    return verify();
  if (!positional.empty())
    return fail("unexpected argument '" + positional[0] + "' (the commands are prepare and verify)");
  // --nproc starts the job once the flags are known good (each process
  // would report a bad one again).
  if (nproc > 0 && comm::launchedByMpi())
    return fail("--nproc: this process was started by mpirun already");
  const int64_t ranks = nproc > 0 ? nproc : comm::launchedByMpi() ? comm::world().size() : 1;
  const int64_t jobBatch = static_cast<int64_t>(batch) * ranks;

  std::optional<gpt2::Config> config = gpt2::preset(preset);
  if (!config) {
    std::string names;
    for (const std::string &n : gpt2::preset_names())
      names += (names.empty() ? "" : ", ") + n;
    return fail("--preset: no preset '" + preset + "' (" + names + ")");
  }
  if (target != "cpu" && target != "cuda")
    return fail("--target " + target + ": expected cpu or cuda");
  const Target device = target == "cuda" ? Target::Cuda : Target::Cpu;
  if (dtype != "f32" && dtype != "bf16")
    return fail("--dtype " + dtype + ": expected f32 or bf16");
  if (static_cast<int64_t>(seq) > config->block_size)
    return fail("--seq " + std::to_string(seq) + " is longer than " + config->name +
                "'s context of " + std::to_string(config->block_size));
  if (dataPath.empty())
    return fail("--data: give a token file (cotangent-train prepare TEXT SHARD makes one)");
  if (resume && checkpointDir.empty())
    return fail("--resume needs --checkpoint-dir");
  if (!(lr > 0) || weightDecay < 0 || clip < 0)
    return fail("--lr must be > 0, --weight-decay and --clip >= 0");

  std::string error;
  std::optional<data::TokenFile> train = data::TokenFile::open(dataPath, error);
  if (!train)
    return fail(error);
  std::optional<data::TokenFile> val;
  std::span<const uint16_t> trainTokens = train->tokens(), valTokens;
  if (!valPath.empty()) {
    if (!(val = data::TokenFile::open(valPath, error)))
      return fail(error);
    valTokens = val->tokens();
  } else {
    std::tie(trainTokens, valTokens) = data::splitTokens(train->tokens(), 0.1, seq);
  }
  for (uint16_t t : trainTokens.subspan(0, std::min<size_t>(trainTokens.size(), 1 << 20)))
    if (t >= config->vocab_size)
      return fail(dataPath + ": token " + std::to_string(t) + " is outside " + config->name +
                  "'s vocabulary of " + std::to_string(config->vocab_size));
  auto sampler = data::BatchSampler::make(trainTokens, jobBatch, seq, seed, error);
  if (!sampler)
    return fail(dataPath + ": " + error);
  auto valSampler = data::BatchSampler::make(valTokens, jobBatch, seq, seed + 1, error);
  if (!valSampler)
    return fail((valPath.empty() ? dataPath + " (its validation tail)" : valPath.getValue()) + ": " +
                error);

  if (nproc > 0)
    return fail(train::relaunchUnderMpirun(argc, argv, nproc));
  // The job's processes (one without mpirun); rank 0 speaks for all.
  comm::Communicator &group = comm::world();
  const int rank = group.rank();
  if (rank != 0 && !std::freopen("/dev/null", "w", stdout))
    return fail("cannot silence rank " + std::to_string(rank) + "'s output");
  const int64_t firstRow = rank * static_cast<int64_t>(batch);

  std::optional<Policy> blockPolicy;
  try {
    if (!policy.empty()) {
      blockPolicy = policies::parse(policy);
      // A policy's spelling is checked where a remat uses it: once here, on
      // a one-op function, before anything is compiled.
      trace({.context = &defaultContext()},
            [&](const Tensor &x) { return checkpoint([](const Tensor &y) { return y * 2.0; },
                                                     {.policy = blockPolicy})(x); },
            f32({1}));
    }
  } catch (const TraceError &e) {
    std::string message = e.what();
    return fail("--policy: " + message.substr(0, message.rfind(" at ")));
  }
  gpt2::ModelOptions modelOptions{.block_policy = blockPolicy,
                                  .matmul_dtype = dtype == "bf16" ? DType::BF16 : DType::F32};
  std::optional<double> budgetBytes, budgetFraction;
  if (!memoryBudget.empty()) {
    if (!policy.empty())
      return fail("give --policy or --memory-budget, not both");
    char *end = nullptr;
    double v = std::strtod(memoryBudget.c_str(), &end);
    if (end == memoryBudget.c_str() || *end || !(v > 0))
      return fail("--memory-budget: expected bytes or a fraction in (0, 1], got '" + memoryBudget +
                  "'");
    (v <= 1 ? budgetFraction : budgetBytes) = v;
  }
  auto decayed = [](const std::string &path) {
    // nanoGPT's rule: the matrices decay, biases and LayerNorm weights do not.
    return path.find("['bias']") == std::string::npos && path.find("ln_") == std::string::npos;
  };
  // Under ZeRO-1 the transformations see blocks: the norm is the group's.
  const bool zero = zeroStage == 1;
  std::vector<optim::GradientTransformation> chain;
  if (clip > 0)
    chain.push_back(optim::clip_by_global_norm(clip, zero ? "data" : ""));
  chain.push_back(optim::adamw(
      optim::warmup_cosine_decay_schedule(0.0, lr, warmup, std::max<int64_t>(steps, warmup + 1),
                                          lr * 0.1),
      {.b1 = 0.9, .b2 = 0.95, .eps = 1e-8}, weightDecay, decayed));
  const optim::GradientTransformation adamw = optim::chain(chain);
  const optim::GradientTransformation tx = zero ? optim::zero1(adamw, "data", ranks) : adamw;

  auto loss = [&](const gpt2::Params<Tensor> &p, const Tensor &ids, const Tensor &targets) {
    return gpt2::loss(*config, p, ids, targets, modelOptions);
  };
  auto trainStep = [&](const gpt2::Params<Tensor> &p, const optim::State &state, const Tensor &ids,
                       const Tensor &targets) {
    auto [value, grads] = value_and_grad(loss, argnums<0>)(p, ids, targets);
    if (ranks > 1 && !zero) // data parallel: the group's mean gradient
      grads = lax::pmean(grads, "data");
    auto [updates, next] = optim::update(tx, grads, state, p);
    return std::tuple{optim::apply_updates(p, updates), next,
                      ranks > 1 ? lax::pmean(value, "data") : value};
  };

  try {
    train::TrainState state;
    state.params = gpt2::init(*config, defaultContext(), static_cast<uint32_t>(seed));
    if (!initFrom.empty()) {
      std::optional<safetensors::File> hf = safetensors::read(initFrom, error);
      if (!hf)
        return fail(error);
      if (auto why = train::loadHfWeights(*hf, state.params))
        return fail(initFrom + ": " + *why);
    }
    state.opt_state =
        jit([&](const gpt2::Params<Tensor> &p) { return optim::init(tx, p); })(state.params);
    // Checkpoints hold the whole state: under ZeRO-1, its shape is the
    // unsharded optimizer's (this rank holds blocks of it).
    train::TrainState whole;
    if (zero)
      whole = {state.params,
               jit([&](const gpt2::Params<Tensor> &p) { return optim::init(adamw, p); })(
                   state.params),
               0};
    const train::RunIdentity run{config->name, jobBatch, seq, seed};
    if (resume) {
      auto refused = [&](const std::string &why) {
        if (rank == 0)
          std::cerr << "cotangent-train: refusing checkpoint " << why << "\n";
      };
      if (auto restored =
              train::latestCheckpoint(checkpointDir, zero ? whole : state, run, refused)) {
        if (zero)
          restored->opt_state = train::blocksOf(restored->opt_state, state.opt_state, rank);
        state = std::move(*restored);
        std::cout << "resumed from " << train::checkpointPath(checkpointDir, state.step)
                  << " at step " << state.step << "\n";
      } else {
        std::cout << "no checkpoint to resume in " << checkpointDir << ": starting at step 0\n";
      }
    }

    const double peak = peakTflops > 0 ? peakTflops : measuredPeakTflops(device);
    const double flopsPerStep = config->flops_per_token(seq) * static_cast<double>(batch * seq);
    std::cout << "GPT-2 " << config->name << ": " << config->parameter_count()
              << " parameters, " << dtype << " matmuls, batch " << batch << " x " << seq << " tokens, "
              << flopsPerStep / 1e9 << " GFLOP a step, peak " << peak
              << " TFLOP/s (" << (peakTflops > 0 ? "given" : "measured matmul") << ")\n";
    if (ranks > 1)
      std::cout << ranks << " processes on " << group.name() << ": each " << batch
                << " rows of a job batch of " << jobBatch << ", gradients "
                << (zero ? "reduce-scattered (ZeRO-1: each holds 1/" + std::to_string(ranks) +
                               " of AdamW's state)"
                         : std::string("averaged (pmean)"))
                << "\n";
    std::ofstream log;
    if (!logPath.empty() && rank == 0) {
      log.open(logPath, std::ios::app);
      if (!log)
        return fail(logPath + ": cannot open for appending");
    }

    // A tree's arrays copied: the step is given the state's own (donated).
    auto copyOf = [](const auto &tree) {
      return tree_map([](const interp::Tensor &t) { return t.clone(); }, tree);
    };
    // What a step holds besides what it allocates: the parameters and the
    // optimizer state (donated: the update is written over them) and the
    // batch. The step's peak is this plus the compiled code's.
    int64_t heldBytes = 2 * batch * seq * static_cast<int64_t>(sizeof(int32_t));
    for (const auto &[path, t] : flattenValues(std::pair{state.params, state.opt_state}, ""))
      heldBytes += t.getByteSize();
    std::optional<double> budget = budgetBytes;
    if (budgetBytes || budgetFraction) {
      // One step of each candidate on the initial state (its results
      // dropped): the first whose measured peak fits the budget runs.
      const std::pair<const char *, std::optional<Policy>> candidates[] = {
          {"no checkpoint", std::nullopt},
          {"dots_saveable per block", policies::dots_saveable()},
          {"nothing_saveable per block", policies::nothing_saveable()}};
      auto [probeIds, probeTargets] = rowsOf(sampler->at(0), firstRow, batch);
      // The probes run donated, as the run will, on copies of the state.
      std::string tried;
      bool fits = false;
      for (const auto &[name, candidate] : candidates) {
        modelOptions.block_policy = candidate;
        auto probe = jit(trainStep, {.donate = {0, 1}, .target = device});
        probe(copyOf(state.params), copyOf(state.opt_state), probeIds, probeTargets);
        const double stepBytes = static_cast<double>(probe.last_stats().peakBytes);
        const double peakBytes = static_cast<double>(heldBytes) + stepBytes;
        if (!budget)
          budget = *budgetFraction * peakBytes;
        tried += std::string(tried.empty() ? "" : ", ") + name + " peaks at " +
                 std::to_string(static_cast<int64_t>(peakBytes));
        if (peakBytes <= *budget) {
          std::printf("memory budget %.0f bytes: %s fits (measured peak %.0f bytes: %lld held "
                      "(parameters, optimizer state, batch), %.0f allocated by the step)\n",
                      *budget, name, peakBytes, static_cast<long long>(heldBytes), stepBytes);
          fits = true;
          break;
        }
      }
      if (!fits)
        return fail("--memory-budget: no policy fits " +
                    std::to_string(static_cast<int64_t>(*budget)) + " bytes (" + tried + ")");
    }

    // Parameters and optimizer state are donated: the update is written over
    // them, and the step allocates nothing for either.
    auto step = jit(trainStep, {.donate = {0, 1}, .target = device});
    auto evalLoss = jit(loss, {.target = device});
    interp::Tensor value(mlir::RankedTensorType::get({}, mlir::Float32Type::get(&defaultContext())));
    auto validation = [&]() {
      double sum = 0;
      const int batches = 4;
      for (int i = 0; i < batches; ++i) {
        auto [ids, targets] = rowsOf(valSampler->at(static_cast<uint64_t>(i)), firstRow, batch);
        sum += evalLoss(state.params, ids, targets).getDouble(0);
      }
      // The job's: every rank's rows weigh the same.
      double jobSum = 0;
      group.allReduceSum(&sum, &jobSum, 1, comm::ElementKind::F64);
      return jobSum / batches / ranks;
    };
    // Every rank calls it (the gather is collective); rank 0 writes, and
    // all agree on the outcome before going on.
    auto save = [&]() -> bool {
      if (checkpointDir.empty())
        return true;
      std::optional<std::string> why;
      if (zero) {
        train::TrainState full{state.params,
                               train::gatherBlocks(state.opt_state, whole.opt_state, group),
                               state.step};
        if (rank == 0)
          why = train::saveCheckpoint(checkpointDir, full, run, keep);
      } else if (rank == 0) {
        why = train::saveCheckpoint(checkpointDir, state, run, keep);
      }
      if (why)
        std::cerr << "cotangent-train: error: checkpoint at step " << state.step
                  << " not written: " << *why << " (the previous checkpoints are kept)\n";
      return train::allAgree(!why, group);
    };
    // A fresh run saves its initialization too (step 0): a reference run
    // elsewhere (test/jax/gen_train_reference.py) starts from the same.
    if (state.step == 0 && !save())
      return 1;
    // What each op's path in the state is, for --check-finite's message.
    auto nonFiniteLeaf = [](const train::TrainState &s) -> std::string {
      for (const auto &[path, t] : flattenValues(std::pair{s.params, s.opt_state}, ""))
        if (tools::findNonFinite(t))
          return (path.starts_with("[0]") ? "params" + path.substr(3)
                                          : "opt_state" + path.substr(3));
      return "";
    };
    // Under mpirun, rank 0's output is a pseudo-terminal even into a pipe.
    const bool terminal = ::isatty(STDOUT_FILENO) && !comm::launchedByMpi();
    if (!timelinePath.empty()) {
      group.barrier(); // the ranks' clocks start together (to a barrier's skew)
      comm::timeline::enable();
    }
    std::string lastSaved = checkpointDir.empty() ? "" : train::checkpointPath(checkpointDir, state.step);
    while (state.step < steps) {
      data::Batch b = sampler->at(state.step);
      auto [ids, targets] = rowsOf(b, firstRow, batch);
      // What --check-finite re-runs a bad step from: a copy, as the step
      // is given the state's own arrays (donated).
      std::optional<train::TrainState> before;
      if (checkFinite)
        before = train::TrainState{copyOf(state.params), copyOf(state.opt_state), state.step};
      auto start = std::chrono::steady_clock::now();
      const double stepBegin = comm::timeline::now();
      // The new parameters and state into the state's own trees (donated:
      // written over their buffers): the loop allocates no trees.
      step.call_into(std::tie(state.params, state.opt_state, value), state.params, state.opt_state,
                     ids, targets);
      // On the GPU the step returns once queued: reading the loss waits for it.
      const double lossValue = value.getDouble(0);
      comm::timeline::record("step " + std::to_string(state.step + 1), "step", stepBegin,
                             comm::timeline::now());
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ++state.step;
      // The job's tokens: every rank's rows.
      const double tokensPerSecond = static_cast<double>(jobBatch * seq) / seconds;
      const double mfu = flopsPerStep / seconds / (peak * 1e12);
      const int64_t peakBytes = heldBytes + step.last_stats().peakBytes;
      std::optional<double> valLoss;
      if ((evalEvery > 0 && state.step % evalEvery == 0) || state.step == steps)
        valLoss = validation();
      const bool print = state.step % printEvery == 0 || state.step == 1 || state.step == steps || valLoss;
      if (terminal) {
        // On a terminal, between printed lines: a progress bar, redrawn in place.
        std::printf("\r\033[K");
        if (!print) {
          const int width = 30, done = static_cast<int>(width * state.step / steps);
          std::printf("[%s%s] step %llu/%u | loss %.4f | %.0f tok/s", std::string(done, '#').c_str(),
                      std::string(width - done, '.').c_str(),
                      static_cast<unsigned long long>(state.step), static_cast<unsigned>(steps),
                      lossValue, tokensPerSecond);
          std::fflush(stdout);
        }
      }
      if (print)
        std::printf("step %5llu/%u | loss %.4f | %8.0f tok/s | %8.1f ms | MFU %5.1f%% | peak %.1f MiB",
                  static_cast<unsigned long long>(state.step), static_cast<unsigned>(steps),
                  lossValue, tokensPerSecond, seconds * 1e3, mfu * 100,
                  static_cast<double>(peakBytes) / (1 << 20));
      if (print && budget)
        std::printf(" of %.1f", *budget / (1 << 20));
      if (print && valLoss)
        std::printf(" | val %.4f", *valLoss);
      if (print)
        std::printf("\n");
      std::fflush(stdout);
      std::string bad = !std::isfinite(lossValue) ? "the loss"
                        : checkFinite                ? nonFiniteLeaf(state)
                                                     : "";
      // Under ZeRO-1 a rank's blocks are its own: all stop if any must.
      if (checkFinite && ranks > 1 && !train::allAgree(bad.empty(), group) && bad.empty())
        bad = "another process's optimizer state";
      if (!bad.empty()) {
        std::string message = "step " + std::to_string(state.step) + ": " + bad + " holds NaN or Inf";
        // Re-run on the reference interpreter to find the op (one process:
        // the interpreter's collectives run on simulated ranks, not MPI).
        if (checkFinite && ranks == 1) {
          trace traced({.name = "train_step", .context = &defaultContext()}, trainStep,
                       before->params, before->opt_state, ids, targets);
          std::vector<interp::Tensor> args;
          for (const auto &[path, t] :
               flattenValues(std::tuple{before->params, before->opt_state, ids, targets}, ""))
            args.push_back(t);
          message += "; " + firstNonFinite(traced.func(), args);
        }
        return fail(message + (lastSaved.empty() ? std::string(" (no checkpoint kept)")
                                                 : "; the last good checkpoint is " + lastSaved));
      }
      if (log.is_open()) {
        llvm::json::Object line{{"step", static_cast<int64_t>(state.step)},
                                {"loss", lossValue},
                                {"tokens_per_s", tokensPerSecond},
                                {"ms", seconds * 1e3},
                                {"mfu", mfu},
                                {"peak_bytes", peakBytes},
                                {"step_peak_bytes", step.last_stats().peakBytes}};
        if (valLoss)
          line["val_loss"] = *valLoss;
        std::string text;
        llvm::raw_string_ostream(text) << llvm::json::Value(std::move(line));
        log << text << "\n" << std::flush;
      }
      if (state.step % checkpointEvery == 0 || state.step == steps) {
        if (!save())
          return 1;
        if (!checkpointDir.empty())
          lastSaved = train::checkpointPath(checkpointDir, state.step);
      }
    }
    if (!timelinePath.empty()) {
      std::string why = train::writeTimeline(timelinePath, group);
      if (!why.empty())
        return fail(why);
      std::cout << "timeline: " << timelinePath << "\n";
    }
  } catch (const TraceError &e) {
    return fail(e.what());
  }
  return 0;
}
