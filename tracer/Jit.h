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
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_JIT_H
#define COTANGENT_TRACER_JIT_H

#include "tracer/Autodiff.h"

#include <any>
#include <map>
#include <memory>

namespace cotangent {

namespace detail {

/// A traced (maybe split) module compiled for the CPU, and the function to call.
class CompiledFunction {
public:
  CompiledFunction(Traced traced, std::string entry);
  CompiledFunction(Split split, std::string entry);
  ~CompiledFunction();
  std::vector<interp::Tensor> call(const std::vector<interp::Tensor> &args,
                                   interp::MemoryStats &stats, double &seconds);

private:
  void compile(mlir::ModuleOp module);
  std::unique_ptr<Traced> traced_; // one of the two keeps the module alive
  std::unique_ptr<Split> split_;
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
  std::string entry_;
};

/// Compiled code, once per argument tree (its structure, shapes and
/// dtypes); as a grad transform's backend, runs the split compiled.
class JitCache {
public:
  static constexpr bool compiles = true;
  JitCache(bool recompile, interp::MemoryStats &stats, double &seconds)
      : recompile_(recompile), stats_(stats), seconds_(seconds) {}

  struct Entry {
    StagedGrad staged;
    std::unique_ptr<CompiledFunction> compiled;
    /// jit of a plain function: its traced result tree (the structure).
    std::any resultLike;
  };
  /// The entry for `signature` (new and empty when first seen); throws
  /// naming the differing leaves when recompiling is off.
  Entry &lookup(const std::vector<LeafSignature> &signature);

  template <class Stage>
  std::pair<std::vector<interp::Tensor>, const StagedGrad *>
  run(const std::vector<LeafSignature> &signature, std::vector<interp::Tensor> inputs,
      Stage &&stage) {
    Entry &entry = lookup(signature);
    if (!entry.compiled) {
      auto [split, staged] = stage();
      entry.staged = std::move(staged);
      entry.compiled = std::make_unique<CompiledFunction>(std::move(split), entry.staged.entry);
    }
    std::vector<interp::Tensor> seeds = gradSeeds(entry.staged);
    inputs.insert(inputs.end(), seeds.begin(), seeds.end());
    return {entry.compiled->call(inputs, stats_, seconds_), &entry.staged};
  }

private:
  bool recompile_;
  std::vector<LeafSignature> first_;
  std::map<std::string, Entry> cache_;
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
};

/// `f` compiled for the CPU, once per argument signature. The arguments'
/// MLIRContext must outlive it (the compiled modules live there). Arguments
/// are trees of interp::Tensors; the result is the function's tree with
/// host values for its Tensors (a grad transform's: Autodiff.h).
template <class F>
class Jitted {
public:
  explicit Jitted(F fn, JitOptions options = {})
      : fn_(std::move(fn)), cache_(options.recompile, stats_, seconds_) {}

  template <class... Ts>
  auto operator()(const Ts &...args) {
    if constexpr (requires { typename F::IsGradTransform; })
      return fn_.apply(cache_, args...);
    else
      return call(args...);
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
    static_assert((ValueTree<Ts> && ...), "jit: every argument must be a tree of interp::Tensors");
    using Result = std::invoke_result_t<const F &, detail::TracedArg<Ts> &...>;
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
      entry.compiled = std::make_unique<detail::CompiledFunction>(trace(opts, traced, args...), "jit");
    }
    std::vector<interp::Tensor> leaves = entry.compiled->call(flat.values(), stats_, seconds_);
    LeafCursorOf<interp::Tensor> cursor{leaves};
    return Tree<Result>::rebuild(std::any_cast<const Result &>(entry.resultLike), cursor);
  }

  F fn_;
  interp::MemoryStats stats_;
  double seconds_ = 0;
  detail::JitCache cache_; // after stats_ and seconds_, which it refers to
};

template <class F>
Jitted<F> jit(F fn, JitOptions options = {}) {
  return Jitted<F>(std::move(fn), options);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_JIT_H
