//===- Jit.h - jit: compile a traced function for the CPU -------*- C++ -*-===//
//
// `jit(f)(args...)` traces `f` for the arguments' shapes and dtypes,
// compiles it once per signature with the CPU pipeline (--jx-lower-to-llvm,
// LLVM -O3, BLAS dots) and runs it on host tensors. It composes with the
// autodiff transforms, as in JAX:
//
//   auto step = jit(grad(loss));          // compiled @loss_value_and_grad
//   std::vector<interp::Tensor> g = step(W, x);
//   step.last_stats().peakBytes;          // measured by the runtime
//
// A training step donates its parameters and optimizer state, as with
// jax.jit's donate_argnums: the update is written over their buffers.
//
//   auto train = jit(train_step, {.donate = {0, 1}});
//   std::tie(params, state, loss) = train(params, state, batch);
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_JIT_H
#define COTANGENT_TRACER_JIT_H

#include "tracer/Autodiff.h"

#include <any>
#include <set>
#include <map>
#include <memory>
#include <typeinfo>
#include <unordered_map>

namespace cotangent {

/// Where jit compiles for: the CPU (LLVM's JIT; arguments are read and
/// results written in the host's memory), or an NVIDIA GPU (NVVM kernels and
/// cuBLAS, runtime/cuda). On the GPU, results stay in the device's memory
/// and a call returns once its work is queued: an array is copied to the
/// host only when the host reads it (and waits for it then); one passed to
/// the next call is read where it is, and a donated one is written over
/// there. A host array passed to a call is copied to the device.
enum class Target { Cpu, Cuda };

namespace detail {

/// A traced (maybe split) module compiled for `target`, and the function to call.
class CompiledFunction {
public:
  /// `donated[i]`: argument i of `entry` is donated, and written over by the
  /// first result of its type no earlier donated argument took (if any).
  CompiledFunction(Traced traced, std::string entry, std::vector<bool> donated = {},
                   Target target = Target::Cpu);
  CompiledFunction(Split split, std::string entry, Target target = Target::Cpu);
  ~CompiledFunction();
  std::vector<interp::Tensor> call(const std::vector<interp::Tensor> &args,
                                   interp::MemoryStats &stats, double &seconds);
  /// The same, the results in `results` (its capacity kept from call to
  /// call: nothing allocated once warm).
  void call(const std::vector<interp::Tensor> &args, interp::MemoryStats &stats, double &seconds,
            std::vector<interp::Tensor> &results);
  /// The jx module compiled (its entry marked with what is donated).
  mlir::ModuleOp module() const;
  /// The entry's result types, in order.
  std::vector<mlir::Type> resultTypes() const;
  const std::string &entry() const { return entry_; }
  /// Text: what each gradient the function takes keeps for its backward,
  /// the donated arguments, and the call's memory (`measured`, the plan's
  /// prediction, the largest blocks live at the peak). Jitted::report().
  std::string report(const interp::MemoryStats &measured) const;

private:
  void compile(mlir::ModuleOp module, const std::vector<bool> &donated, Target target);
  std::unique_ptr<Traced> traced_; // one of the two keeps the module alive
  std::unique_ptr<Split> split_;
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
  std::string entry_;
};

/// `t` in `target`'s memory (device_put's leaves).
interp::Tensor putLeaf(const interp::Tensor &t, Target target);

/// A std::tie of trees (Jitted::call_into's out): walked one after the other.
template <class T>
inline constexpr bool isTie = false;
template <class... T>
inline constexpr bool isTie<std::tuple<T &...>> = sizeof...(T) > 0;

/// Per leaf of `flat`: whether its argument's position is in `donate`
/// (throws for a position the call does not have, or one named twice).
std::vector<bool> donatedLeaves(const std::vector<int> &donate, const FlatArguments &flat);

/// A call's argument leaves, in order, and a fingerprint of its trees
/// (Tree::walk: the arguments' C++ types, vector lengths, dict keys, each
/// leaf's type), gathered without naming a leaf: how a call finds its
/// compiled code in a few microseconds, allocating nothing once warm.
struct LeafScan {
  std::vector<interp::Tensor> leaves;
  std::vector<mlir::Type> types;
  uint64_t fingerprint = 0;

  void reset(uint64_t seed) {
    leaves.clear();
    types.clear();
    fingerprint = seed;
  }
  void shape(uint64_t n) { mix(n); }
  void leaf(const interp::Tensor &t) {
    leaves.push_back(t);
    types.push_back(t.getType());
    mix(reinterpret_cast<uintptr_t>(t.getType().getAsOpaquePointer()));
  }

private:
  void mix(uint64_t v) {
    fingerprint ^= v + 0x9e3779b97f4a7c15ULL + (fingerprint << 6) + (fingerprint >> 2);
  }
};

/// Compiled code, once per argument tree (its structure, shapes and
/// dtypes); as a grad transform's backend, runs the split compiled.
class JitCache {
public:
  static constexpr bool compiles = true;
  JitCache(bool recompile, Target target, interp::MemoryStats &stats, double &seconds)
      : recompile_(recompile), target_(target), stats_(stats), seconds_(seconds) {}

  struct Entry {
    StagedGrad staged;
    std::unique_ptr<CompiledFunction> compiled;
    /// jit of a plain function: its traced result tree (the structure).
    std::any resultLike;
    /// The leaf types of the calls that find it by fingerprint (remember()).
    std::vector<mlir::Type> types;
  };
  /// The entry for `signature` (new and empty when first seen); throws
  /// naming the differing leaves when recompiling is off.
  Entry &lookup(const std::vector<LeafSignature> &signature);
  /// The entry a call scanned as `scan` runs (one remember() was given a
  /// scan of the same fingerprint and leaf types), or null.
  Entry *find(const LeafScan &scan);
  /// Calls scanned as `scan` run `entry` from now on.
  void remember(Entry &entry, const LeafScan &scan);
  /// Registers the memory plan's peak oracle on the context of `inputs`, so
  /// that a memory_budget in the staged split is planned (as the tools do).
  static void enablePlanning(const std::vector<interp::Tensor> &inputs);

  template <class Stage>
  std::pair<std::vector<interp::Tensor>, const StagedGrad *>
  run(const std::vector<LeafSignature> &signature, std::vector<interp::Tensor> inputs,
      Stage &&stage) {
    Entry &entry = lookup(signature);
    if (!entry.compiled) {
      enablePlanning(inputs);
      auto [split, staged] = stage();
      entry.staged = std::move(staged);
      entry.compiled =
          std::make_unique<CompiledFunction>(std::move(split), entry.staged.entry, target_);
    }
    std::vector<interp::Tensor> seeds = gradSeeds(entry.staged);
    inputs.insert(inputs.end(), seeds.begin(), seeds.end());
    return {entry.compiled->call(inputs, stats_, seconds_), &entry.staged};
  }

private:
  bool recompile_;
  Target target_;
  std::vector<LeafSignature> first_;
  std::map<std::string, Entry> cache_;
  std::unordered_map<uint64_t, Entry *> byFingerprint_;
  interp::MemoryStats &stats_;
  double &seconds_;
};

} // namespace detail

struct JitOptions {
  /// Compile again for an argument tree of another structure, shape or
  /// dtype (as jax.jit retraces). Off: only the first call's tree is
  /// accepted, and any other throws naming the leaves that differ, e.g.
  /// "params['Dense_0']['kernel']: expected f32[512,2048], got f32[512,1024]".
  bool recompile = true;
  /// Positions of the arguments the caller donates (jax.jit's
  /// donate_argnums). Each of their leaves is matched to the first result
  /// leaf of its shape and dtype that no earlier donated leaf took, and the
  /// compiled code writes that result over the leaf's buffer (XLA's
  /// input/output aliasing): updating parameters and optimizer state
  /// allocates nothing. A matched leaf is given up by the call: reading it,
  /// or any Tensor sharing its buffer, afterwards throws (use the result).
  /// One left unmatched stays usable. Plain functions only (a grad
  /// transform is donated inside a function that calls it).
  std::vector<int> donate;
  /// Where the function runs. Target::Cuda fails at the first call, with a
  /// TraceError saying why, where there is no GPU (or no CUDA runtime in
  /// this build).
  Target target = Target::Cpu;
};

/// `f` compiled for the CPU (or the GPU: JitOptions::target), once per
/// argument signature. The arguments'
/// MLIRContext must outlive it (the compiled modules live there). Arguments
/// are trees of interp::Tensors; the result is the function's tree with
/// host values for its Tensors (a grad transform's: Autodiff.h).
template <class F>
class Jitted {
public:
  explicit Jitted(F fn, JitOptions options = {})
      : fn_(std::move(fn)), donate_(std::move(options.donate)), target_(options.target),
        cache_(options.recompile, options.target, stats_, seconds_) {}

  template <class... Ts>
  auto operator()(const Ts &...args) {
    if constexpr (requires { typename F::IsGradTransform; }) {
      if (!donate_.empty())
        throw TraceError("jit: donate applies to a plain function; call the grad transform "
                         "inside one and donate that function's arguments");
      return fn_.apply(cache_, args...);
    } else {
      return call(args...);
    }
  }

  /// The call written into `out`, an existing tree of the function's result
  /// structure (its leaves assigned the results, in place; or a std::tie of
  /// such trees): a training loop
  ///
  ///   step.call_into(std::tie(params, state, loss), params, state, x, y);
  ///
  /// allocates nothing on the host once warm, where `params = ...` of the
  /// returned tree allocates its containers' nodes every step. Throws, and
  /// leaves `out` as it was, where `out` is not shaped like the result.
  /// Plain functions only.
  template <class Out, class... Ts>
  void call_into(Out &&out, const Ts &...args) {
    static_assert(!requires { typename F::IsGradTransform; },
                  "jit: call_into takes a plain function");
    using Result = std::invoke_result_t<const F &, detail::TracedArg<Ts> &...>;
    detail::JitCache::Entry &entry = find<Result>(args...);
    // The tree against the result's structure and types before the call
    // (which gives up donated arguments), once per entry and tree type.
    const std::pair<const void *, size_t> checked{&entry, typeid(Out).hash_code()};
    if (!checkedOuts_.contains(checked)) {
      ShapeOf<Tensor> want;
      Tree<Result>::walk(std::any_cast<const Result &>(entry.resultLike), want);
      ShapeOf<interp::Tensor> got;
      walkOut(out, got);
      std::vector<mlir::Type> types = entry.compiled->resultTypes();
      if (want.structure != got.structure || got.types != types)
        throw TraceError("jit: call_into's tree is not shaped like the function's result (its "
                         "structure, or a leaf's shape or dtype, differs)");
      checkedOuts_.insert(checked);
    }
    invoke(entry);
    Assign assign{results_};
    walkOut(out, assign);
    results_.clear();
  }

  /// The compiled function the last call ran (null before the first call
  /// of a plain function): its module and entry, for reports and plans.
  const detail::CompiledFunction *last_compiled() const { return last_; }

  /// What the last call ran, as a user reads it (no MLIR needed): for each
  /// gradient inside the function (a `value_and_grad` in a training step),
  /// the residuals its backward keeps, as vjp(...).print_saved_residuals()
  /// lists them; the arguments donated; the step's measured peak, the
  /// memory plan's prediction of it and the largest blocks live then.
  /// Throws before the first call.
  std::string report() const {
    if (!last_)
      throw TraceError("jit: report() before the first call of a plain function");
    return last_->report(stats_);
  }

  /// Bytes the compiled code allocated in the last call (arguments not counted).
  const interp::MemoryStats &last_stats() const { return stats_; }
  /// Wall time of the last compiled call, in seconds.
  double last_seconds() const { return seconds_; }

private:
  /// The function's result tree, of host values: what `f` returns with
  /// interp::Tensors for Tensors (a Tensor gives one interp::Tensor, a
  /// std::pair of dicts a std::pair of dicts).
  template <class... Ts>
  auto call(const Ts &...args) {
    using Result = std::invoke_result_t<const F &, detail::TracedArg<Ts> &...>;
    detail::JitCache::Entry &entry = find<Result>(args...);
    invoke(entry);
    MovingLeafCursorOf<interp::Tensor> cursor{results_};
    auto result = Tree<Result>::rebuild(std::any_cast<const Result &>(entry.resultLike), cursor);
    results_.clear();
    return result;
  }

  /// The compiled code for `args` (traced and compiled if new); the leaves
  /// and the trees' fingerprint find it, and only a new tree is flattened
  /// with its paths, checked and traced. invoke() runs it on those leaves.
  template <class Result, class... Ts>
  detail::JitCache::Entry &find(const Ts &...args) {
    static_assert((ValueTree<Ts> && ...), "jit: every argument must be a tree of interp::Tensors");
    scan_.reset(typeid(std::tuple<Ts...>).hash_code());
    uint64_t position = 0;
    ((scan_.shape(position++), Tree<Ts>::walk(args, scan_)), ...);
    detail::JitCache::Entry *entry = cache_.find(scan_);
    if (!entry)
      entry = &compile<Result>(args...);
    last_ = entry->compiled.get();
    return *entry;
  }

  /// Runs `entry` on the leaves find() scanned; the results in results_.
  void invoke(detail::JitCache::Entry &entry) {
    try {
      entry.compiled->call(scan_.leaves, stats_, seconds_, results_);
    } catch (...) {
      scan_.leaves.clear(); // holds no argument past the call
      throw;
    }
    scan_.leaves.clear();
  }

  /// Tree::walk's visitors for call_into: a tree's structure and leaf types,
  /// and the results assigned to its leaves in order. The tree is the
  /// caller's, not const: walk hands its leaves as const only because it
  /// reads trees too.
  template <class Leaf>
  struct ShapeOf {
    std::vector<uint64_t> structure;
    std::vector<mlir::Type> types;
    void shape(uint64_t n) { structure.push_back(n); }
    void leaf(const Leaf &t) {
      structure.push_back(~0ULL);
      if constexpr (std::is_same_v<Leaf, interp::Tensor>)
        types.push_back(t.getType());
    }
  };
  struct Assign {
    std::vector<interp::Tensor> &results;
    size_t next = 0;
    void shape(uint64_t) {}
    void leaf(const interp::Tensor &t) {
      const_cast<interp::Tensor &>(t) = std::move(results[next++]);
    }
  };
  template <class Out, class V>
  static void walkOut(Out &out, V &visitor) {
    using T = std::remove_cvref_t<Out>;
    if constexpr (detail::isTie<T>)
      std::apply([&](auto &...part) { (walkOut(part, visitor), ...); }, out);
    else
      Tree<T>::walk(out, visitor);
  }

  /// The entry for the arguments' tree, traced and compiled if new.
  template <class Result, class... Ts>
  detail::JitCache::Entry &compile(const Ts &...args) {
    TraceOptions opts{.name = "jit"};
    detail::FlatArguments flat = detail::flattenArguments(opts, args...);
    detail::JitCache::Entry &entry = cache_.lookup(signatureOf(flat.leaves));
    if (!entry.compiled) {
      // The result's structure (as traced) rebuilds every later call's tree.
      auto traced = [&](auto &...a) {
        Result result = fn_(a...);
        entry.resultLike = result;
        return result;
      };
      entry.compiled = std::make_unique<detail::CompiledFunction>(
          trace(opts, traced, args...), "jit", detail::donatedLeaves(donate_, flat), target_);
    }
    cache_.remember(entry, scan_);
    return entry;
  }

  F fn_;
  std::vector<int> donate_;
  Target target_;
  interp::MemoryStats stats_;
  double seconds_ = 0;
  const detail::CompiledFunction *last_ = nullptr;
  detail::LeafScan scan_;
  std::vector<interp::Tensor> results_; ///< the last call's, kept for their capacity
  std::set<std::pair<const void *, size_t>> checkedOuts_;
  detail::JitCache cache_; // after stats_ and seconds_, which it refers to
};

template <class F>
Jitted<F> jit(F fn, JitOptions options = {}) {
  return Jitted<F>(std::move(fn), options);
}

/// jax.device_put: `tree` with every leaf in `target`'s memory. Target::Cuda
/// copies each leaf into the GPU's memory once (a leaf already there stays
/// as it is), where calls of jit(f, {.target = Target::Cuda}) read it in
/// place; reading a leaf on the host copies it back then. Target::Cpu
/// brings every leaf to the host (to_host). Throws TraceError where there
/// is no GPU.
template <ValueTree T>
T device_put(const T &tree, Target target = Target::Cuda) {
  return tree_map([&](const interp::Tensor &t) { return detail::putLeaf(t, target); }, tree);
}

/// `tree` with every leaf in host memory (what device_put(tree, Target::Cpu) does).
template <ValueTree T>
T to_host(const T &tree) {
  return device_put(tree, Target::Cpu);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_JIT_H
