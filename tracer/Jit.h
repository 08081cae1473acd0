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

/// "f32[5,4],f32[4]": one compiled function per argument signature.
std::string signatureKey(const std::vector<interp::Tensor> &args);

/// Traces in the arguments' context, so that their types match the module's.
template <class... Ts>
TraceOptions jitOptions(const Ts &...args) {
  TraceOptions opts;
  opts.name = "jit";
  ((opts.context = args.getType().getContext()), ...);
  return opts;
}

/// How each transform is staged: what to compile and which entry to call.
template <class F>
struct Stager {
  template <class... Ts>
  static std::unique_ptr<CompiledFunction> stage(const F &fn, const Ts &...args) {
    return std::make_unique<CompiledFunction>(trace(jitOptions(args...), fn, specOf(args)...),
                                              "jit");
  }
};
/// Runs a grad transform's split compiled, once per argument tree (its
/// structure, shapes and dtypes).
class JitGrad {
public:
  static constexpr bool compiles = true;
  JitGrad(bool recompile, interp::MemoryStats &stats, double &seconds)
      : recompile_(recompile), stats_(stats), seconds_(seconds) {}

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
  struct Entry {
    StagedGrad staged;
    std::unique_ptr<CompiledFunction> compiled;
  };
  /// The cache entry for `signature` (new and empty when first seen); throws
  /// naming the differing leaves when recompiling is off.
  Entry &lookup(const std::vector<LeafSignature> &signature);

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
/// MLIRContext must outlive it (the compiled modules live there). A grad
/// transform takes and returns trees (Autodiff.h); any other function
/// takes interp::Tensors and returns its results' leaves.
template <class F>
class Jitted {
public:
  explicit Jitted(F fn, JitOptions options = {})
      : fn_(std::move(fn)), grads_(options.recompile, stats_, seconds_) {}

  template <class... Ts>
  auto operator()(const Ts &...args) {
    if constexpr (requires { typename F::IsGradTransform; })
      return fn_.apply(grads_, args...);
    else
      return call(args...);
  }

  /// Bytes the compiled code allocated in the last call (arguments not counted).
  const interp::MemoryStats &last_stats() const { return stats_; }
  /// Wall time of the last compiled call, in seconds.
  double last_seconds() const { return seconds_; }

private:
  template <class... Ts>
  std::vector<interp::Tensor> call(const Ts &...args) {
    std::vector<interp::Tensor> flat{args...};
    std::string key = detail::signatureKey(flat);
    auto &compiled = cache_[key];
    if (!compiled)
      compiled = detail::Stager<F>::stage(fn_, args...);
    return compiled->call(flat, stats_, seconds_);
  }

  F fn_;
  std::map<std::string, std::unique_ptr<detail::CompiledFunction>> cache_;
  interp::MemoryStats stats_;
  double seconds_ = 0;
  detail::JitGrad grads_; // after stats_ and seconds_, which it refers to
};

template <class F>
Jitted<F> jit(F fn, JitOptions options = {}) {
  return Jitted<F>(std::move(fn), options);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_JIT_H
