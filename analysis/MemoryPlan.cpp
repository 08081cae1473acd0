//===- MemoryPlan.cpp - predicting a split's memory on the CPU runtime ----===//

#include "analysis/MemoryPlan.h"
#include "analysis/BufferSimulator.h"

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/nvvm/GpuPasses.h"
#include "dialects/jx/JxSplit.h"
#include "passes/report/JsonReport.h"
#include "passes/report/Residuals.h"
#include "runtime/core/SplitRun.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::cotangent;

namespace {

/// Paths through data-dependent branches followed before giving up.
constexpr int kMaxPaths = 64;

const char *targetName(MemoryPlanTarget target) {
  return target == MemoryPlanTarget::Cuda ? "the GPU runtime" : "the CPU runtime";
}

/// The runtime's own lowering, up to buffers.
void addPlanPipeline(OpPassManager &pm, MemoryPlanTarget target) {
  if (target == MemoryPlanTarget::Cuda)
    buildJxToDeviceBuffersPipeline(pm);
  else
    buildJxToBuffersPipeline(pm, BufferizationOptions{});
}

/// A clone of `module` taken through `target`'s lowering up to buffers.
FailureOr<OwningOpRef<ModuleOp>> lowerForPlan(ModuleOp module, MemoryPlanTarget target) {
  OwningOpRef<ModuleOp> lowered = cast<ModuleOp>(module->clone());
  PassManager pm(module.getContext());
  addPlanPipeline(pm, target);
  if (failed(pm.run(*lowered)))
    return emitError(module.getLoc(), "memory plan: the module does not lower for ")
               << targetName(target),
           failure();
  return lowered;
}

/// The simulator as the split run's target: the plan runs @fwd and @bwd by
/// the protocol the runtimes run (runtime/core/SplitRun.h), so what it
/// predicts is what they measure. A descriptor's block is the simulator's
/// block number plus one (null: no block) and its offset the view's, where
/// known; nothing else of it is read. A residual the device offloads
/// (`offloaded`, on the GPU runtime) waits in pinned host memory: the
/// backward receives a block the count does not hold. The plan ends where
/// the backward returns (the blocks freed after it are not in the timeline).
class PlanTarget final : public ::cotangent::core::SplitTarget {
public:
  using MemRefDescriptor = ::cotangent::core::MemRefDescriptor;

  PlanTarget(BufferSimulator &sim, func::FuncOp fwd, func::FuncOp bwd, unsigned numOutputs,
             ArrayRef<bool> offloaded)
      : sim(sim), fwd(fwd), bwd(bwd), numOutputs(numOutputs), offloaded(offloaded) {}

  /// An uncounted block of type `t` (an argument, a cotangent).
  MemRefDescriptor external(Type t) {
    return describe({sim.external(cast<MemRefType>(t)), std::nullopt}, t);
  }

  bool invoke(Half half, std::vector<MemRefDescriptor> &args,
              std::vector<MemRefDescriptor> &results, double &) override {
    func::FuncOp fn = half == Half::Forward ? fwd : bwd;
    SmallVector<AbstractValue> in, out;
    for (const MemRefDescriptor &d : args)
      in.push_back(value(d));
    size_t start = sim.timeline.size();
    if (half == Half::Backward)
      backwardPeak = sim.live;
    if (failed(sim.call(fn, in, out)))
      return false;
    results.clear();
    for (auto [v, t] : llvm::zip(out, fn.getResultTypes()))
      results.push_back(describe(v, t));
    if (half == Half::Forward) {
      nameForwardBlocks(out);
      return true;
    }
    for (size_t i = start; i < sim.timeline.size(); ++i)
      backwardPeak = std::max(backwardPeak, sim.timeline[i].live);
    for (auto [i, g] : llvm::enumerate(out))
      name(g.block, "gradient " + std::to_string(i));
    finished = true;
    return true;
  }
  int64_t liveBytes() const override { return sim.live; }
  int64_t peakBytes() const override { return sim.peak; }
  void resetPeak() override {} // nothing is live before the plan's run
  int64_t blockBytes(void *p) const override {
    int b = block(p);
    return b >= 0 && sim.blocks[b].counted && sim.blocks[b].live ? sim.blocks[b].bytes : -1;
  }
  void release(void *p) override {
    if (!finished)
      sim.release(block(p));
  }
  bool offload(size_t result, const MemRefDescriptor &, MemRefDescriptor &copy) override {
    copy = external(bwd.getArgumentTypes()[result - numOutputs]);
    return true;
  }

  int64_t backwardPeak = 0;

private:
  static constexpr int64_t kUnknownOffset = INT64_MIN;
  static void *pointer(int block) {
    return block < 0 ? nullptr : reinterpret_cast<void *>(static_cast<intptr_t>(block) + 1);
  }
  static int block(void *p) { return p ? static_cast<int>(reinterpret_cast<intptr_t>(p) - 1) : -1; }
  static MemRefDescriptor describe(const AbstractValue &v, Type t) {
    int64_t rank = cast<MemRefType>(t).getRank();
    SmallVector<int64_t> words(MemRefDescriptor::numWords(rank), 0);
    words[0] = words[1] = reinterpret_cast<int64_t>(pointer(v.block));
    words[2] = v.offset.value_or(kUnknownOffset);
    return MemRefDescriptor(words.data(), rank);
  }
  static AbstractValue value(const MemRefDescriptor &d) {
    AbstractValue v{block(d.allocated()), std::nullopt};
    v.offset = d.offset() == kUnknownOffset ? std::nullopt : std::optional(d.offset());
    return v;
  }
  void name(int b, std::string role) {
    if (b >= 0 && sim.blocks[b].role.empty())
      sim.blocks[b].role = std::move(role);
  }
  /// Residuals first (held or offloaded), then the outputs no residual holds.
  void nameForwardBlocks(ArrayRef<AbstractValue> results) {
    llvm::DenseSet<int> held;
    for (auto [i, r] : llvm::enumerate(results.drop_front(numOutputs))) {
      name(r.block, (offloaded[i] ? "offloaded " : "residual ") + std::to_string(i));
      if (!offloaded[i])
        held.insert(r.block);
    }
    for (auto [i, r] : llvm::enumerate(results.take_front(numOutputs)))
      if (!held.contains(r.block))
        name(r.block, "output " + std::to_string(i));
  }

  BufferSimulator &sim;
  func::FuncOp fwd, bwd;
  unsigned numOutputs;
  ArrayRef<bool> offloaded; ///< per residual
  bool finished = false;
};

/// Runs @fwd then @bwd by the runtimes' split protocol on the simulator.
LogicalResult runSplit(BufferSimulator &sim, func::FuncOp fwd, func::FuncOp bwd,
                       unsigned numOutputs, ArrayRef<bool> offloaded, int64_t &residualBytes,
                       int64_t &argumentResidualBytes, int64_t &backwardPeak) {
  PlanTarget target(sim, fwd, bwd, numOutputs, offloaded);
  ::cotangent::core::SplitLayout layout;
  layout.numOutputs = numOutputs;
  for (auto [i, t] : llvm::enumerate(fwd.getResultTypes())) {
    layout.resultBytes.push_back(bufferBytes(cast<MemRefType>(t)));
    layout.offloaded.push_back(i >= numOutputs && offloaded[i - numOutputs]);
  }
  std::vector<PlanTarget::MemRefDescriptor> args, cotangents;
  for (Type t : fwd.getArgumentTypes())
    args.push_back(target.external(t));
  for (Type t : bwd.getArgumentTypes().drop_front(fwd.getNumResults() - numOutputs))
    cotangents.push_back(target.external(t));
  ::cotangent::core::SplitRun run;
  // The outputs are read after the forward, as the runtimes' runSplit does.
  if (!::cotangent::core::runSplit(target, layout, args, cotangents,
                                   [](const auto &) { return true; }, run))
    return failure();
  residualBytes = run.residualBytes;
  argumentResidualBytes = run.argumentResidualBytes;
  backwardPeak = target.backwardPeak;
  return success();
}

MemoryPlan planOf(const BufferSimulator &sim) {
  MemoryPlan plan;
  plan.peakBytes = sim.peak;
  for (const SimulatedBlock &b : sim.blocks)
    plan.blocks.push_back(PlannedBlock{b.bytes, shortTypeName(b.type), b.function,
                                       b.allocation ? describeLocation(b.allocation->getLoc()) : "",
                                       b.role});
  for (const BufferSimulator::Event &e : sim.timeline)
    plan.timeline.push_back({e.block, e.delta, e.live});
  plan.peakEvent = sim.peakEvent;
  plan.liveAtPeak = sim.liveAtPeak;
  llvm::stable_sort(plan.liveAtPeak,
                    [&](int a, int b) { return plan.blocks[a].bytes > plan.blocks[b].bytes; });
  return plan;
}

/// Runs @fn the way CompiledModule::call does: the arguments are the
/// caller's (a donated one is written over, not allocated), the results
/// are read at the end.
LogicalResult runCall(BufferSimulator &sim, func::FuncOp fn) {
  SmallVector<AbstractValue> args, results;
  llvm::DenseSet<int> argumentBlocks;
  for (Type t : fn.getArgumentTypes()) {
    args.push_back({sim.external(cast<MemRefType>(t)), std::nullopt});
    argumentBlocks.insert(args.back().block);
  }
  if (failed(sim.call(fn, args, results)))
    return failure();
  // A result in an argument's buffer (donated, or returned as it is) is no
  // block of the call's.
  for (auto [i, r] : llvm::enumerate(results))
    if (r.block >= 0 && !argumentBlocks.contains(r.block) && sim.blocks[r.block].role.empty())
      sim.blocks[r.block].role = "output " + std::to_string(i);
  return success();
}

/// What one path's run gives besides the simulator's blocks and timeline.
struct PathFigures {
  int64_t residualBytes = 0, argumentResidualBytes = 0, backwardPeak = 0;
};

/// Follows every outcome of the data-dependent branches (up to kMaxPaths)
/// that `run` meets.
FailureOr<MemoryPlan>
planPaths(ModuleOp lowered,
          llvm::function_ref<LogicalResult(BufferSimulator &, PathFigures &)> run) {
  std::vector<std::vector<int>> work{{}};
  MemoryPlan best;
  int paths = 0;
  int64_t minPeak = INT64_MAX, minResiduals = INT64_MAX, maxResiduals = 0;
  while (!work.empty() && paths < kMaxPaths) {
    std::vector<int> prefix = std::move(work.back());
    work.pop_back();
    BufferSimulator sim(lowered, prefix);
    PathFigures figures;
    if (failed(run(sim, figures)))
      return failure();
    auto [residualBytes, argumentResidualBytes, backwardPeak] = figures;
    ++paths;
    // Every other way of each decision this path made on its own.
    for (size_t j = prefix.size(); j < sim.taken.size(); ++j)
      for (int way = 1; way < sim.ways[j]; ++way) {
        std::vector<int> next(sim.taken.begin(), sim.taken.begin() + j);
        next.push_back(way);
        work.push_back(std::move(next));
      }
    minPeak = std::min(minPeak, sim.peak);
    minResiduals = std::min(minResiduals, residualBytes);
    maxResiduals = std::max(maxResiduals, residualBytes);
    if (paths == 1 || sim.peak > best.peakBytes) {
      best = planOf(sim);
      best.residualBytes = residualBytes;
      best.argumentResidualBytes = argumentResidualBytes;
      best.backwardPeakBytes = backwardPeak;
    }
  }
  best.paths = paths;
  best.allPaths = work.empty();
  best.minPeakBytes = minPeak;
  best.minResidualBytes = minResiduals;
  best.maxResidualBytes = maxResiduals;
  return best;
}

} // namespace

FailureOr<std::vector<MemoryPlan>>
mlir::cotangent::predictMemoryPlans(ModuleOp module, StringRef only, MemoryPlanTarget target) {
  std::vector<MemoryPlan> plans;
  SmallVector<jx::SplitPair> pairs = jx::getSplitPairs(module);
  if (!only.empty())
    llvm::erase_if(pairs, [&](jx::SplitPair p) { return jx::getSplitName(p) != only; });
  if (pairs.empty())
    return plans;
  FailureOr<OwningOpRef<ModuleOp>> lowered = lowerForPlan(module, target);
  if (failed(lowered))
    return failure();
  for (jx::SplitPair pair : pairs) {
    auto fwd = (*lowered)->lookupSymbol<func::FuncOp>(pair.fwd.getName());
    auto bwd = (*lowered)->lookupSymbol<func::FuncOp>(pair.bwd.getName());
    if (!fwd || !bwd || fwd.isExternal() || bwd.isExternal())
      return pair.fwd.emitError("memory plan: @")
                 << pair.fwd.getName() << " or its backward did not survive lowering",
             failure();
    auto numOutputs = static_cast<unsigned>(jx::numPrimalResults(pair.fwd));
    // Only the GPU runtime offloads (the CPU holds every residual where it is).
    SmallVector<bool> offloaded;
    for (unsigned i = numOutputs, e = pair.fwd.getNumResults(); i < e; ++i)
      offloaded.push_back(target == MemoryPlanTarget::Cuda &&
                          jx::getResultMemoryKind(pair.fwd, i) == jx::kPinnedHost);
    FailureOr<MemoryPlan> plan = planPaths(**lowered, [&](BufferSimulator &sim, PathFigures &f) {
      return runSplit(sim, fwd, bwd, numOutputs, offloaded, f.residualBytes,
                      f.argumentResidualBytes, f.backwardPeak);
    });
    if (failed(plan))
      return failure();
    plan->name = jx::getSplitName(pair).str();
    plan->target = target;
    plans.push_back(std::move(*plan));
  }
  return plans;
}

FailureOr<MemoryPlan> mlir::cotangent::predictCallPlan(ModuleOp module, StringRef name,
                                                       MemoryPlanTarget target) {
  auto source = module.lookupSymbol<func::FuncOp>(name);
  if (!source || source.isExternal())
    return emitError(module.getLoc(), "memory plan: no function @") << name << " to plan",
           failure();
  FailureOr<OwningOpRef<ModuleOp>> lowered = lowerForPlan(module, target);
  if (failed(lowered))
    return failure();
  auto fn = (*lowered)->lookupSymbol<func::FuncOp>(name);
  if (!fn || fn.isExternal())
    return source.emitError("memory plan: @") << name << " did not survive lowering", failure();
  FailureOr<MemoryPlan> plan = planPaths(
      **lowered, [&](BufferSimulator &sim, PathFigures &) { return runCall(sim, fn); });
  if (failed(plan))
    return failure();
  plan->name = name.str();
  plan->target = target;
  plan->singleCall = true;
  return plan;
}

void mlir::cotangent::printMemoryPlan(const MemoryPlan &plan, llvm::raw_ostream &os,
                                      bool timeline) {
  if (plan.singleCall)
    os << "memory plan of @" << plan.name << " (one call, on " << targetName(plan.target) << ")\n";
  else
    os << "memory plan of @" << plan.name << " (@" << plan.name << "_fwd, then @" << plan.name
       << "_bwd, on " << targetName(plan.target) << ")\n";
  os << "peak: " << plan.peakBytes << " bytes";
  if (plan.peakEvent >= 0)
    os << ", in @" << plan.blocks[plan.timeline[plan.peakEvent].block].function;
  os << "\n";
  if (plan.paths > 1 || !plan.allPaths)
    os << "  the largest over " << plan.paths
       << (plan.allPaths ? "" : " (not all)") << " paths through data-dependent branches; "
       << "the smallest is " << plan.minPeakBytes << " bytes\n";
  if (!plan.singleCall) {
    os << "residuals held between the calls: " << plan.residualBytes << " bytes";
    if (plan.argumentResidualBytes)
      os << " (" << plan.argumentResidualBytes << " of them arguments, held without a copy)";
    os << "\n";
  }
  os << "live at the peak: " << plan.liveAtPeak.size() << " blocks\n";
  auto describe = [&](const PlannedBlock &b) {
    os << llvm::left_justify(b.type, 14) << " " << llvm::left_justify(b.role, 12) << " @"
       << b.function;
    if (!b.location.empty())
      os << " " << b.location;
    os << "\n";
  };
  for (int i : plan.liveAtPeak) {
    os << "  " << llvm::format_decimal(plan.blocks[i].bytes, 10) << "  ";
    describe(plan.blocks[i]);
  }
  if (!timeline)
    return;
  os << "timeline: " << plan.timeline.size() << " events (bytes allocated or freed, then live)\n";
  for (auto [i, e] : llvm::enumerate(plan.timeline)) {
    os << "  " << (e.delta > 0 ? "+" : "-") << llvm::format_decimal(std::abs(e.delta), 10) << " "
       << llvm::format_decimal(e.live, 11) << (static_cast<int>(i) == plan.peakEvent ? " peak " : "      ");
    describe(plan.blocks[e.block]);
  }
}

void mlir::cotangent::printMemoryPlansJson(llvm::ArrayRef<MemoryPlan> plans,
                                           llvm::raw_ostream &os) {
  llvm::json::Array out;
  for (const MemoryPlan &plan : plans) {
    auto block = [&](int i) {
      const PlannedBlock &b = plan.blocks[i];
      return llvm::json::Object{{"bytes", b.bytes},       {"type", b.type},
                                {"function", b.function}, {"location", b.location},
                                {"role", b.role}};
    };
    llvm::json::Array live, events;
    for (int i : plan.liveAtPeak)
      live.push_back(block(i));
    for (const MemoryEvent &e : plan.timeline) {
      llvm::json::Object event = block(e.block);
      event["delta"] = e.delta;
      event["live"] = e.live;
      events.push_back(std::move(event));
    }
    out.push_back(llvm::json::Object{{"function", plan.name},
                                     {"target", plan.target == MemoryPlanTarget::Cuda ? "cuda"
                                                                                      : "cpu"},
                                     {"peak_bytes", plan.peakBytes},
                                     {"min_peak_bytes", plan.minPeakBytes},
                                     {"residual_bytes", plan.residualBytes},
                                     {"argument_residual_bytes", plan.argumentResidualBytes},
                                     {"paths", plan.paths},
                                     {"all_paths", plan.allPaths},
                                     {"peak_event", plan.peakEvent},
                                     {"live_at_peak", std::move(live)},
                                     {"timeline", std::move(events)}});
  }
  printJsonReport(std::move(out), os);
}
