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
  /// `dropFirst` drops the entry's first result (grad: value_and_grad's value).
  CompiledFunction(Split split, std::string entry, bool dropFirst);
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
  bool dropFirst_ = false;
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
template <class F, bool Grads>
std::unique_ptr<CompiledFunction> stageSplit(const ValueAndGrad<F> &vg, auto const &...args) {
  Split split(trace(jitOptions(args...), vg.function(), specOf(args)...), vg.options());
  if (!split.value_and_grad())
    throw TraceError("jit(grad): the function must return one scalar float tensor");
  return std::make_unique<CompiledFunction>(std::move(split), "jit_value_and_grad", Grads);
}
template <class F>
struct Stager<ValueAndGrad<F>> {
  template <class... Ts>
  static std::unique_ptr<CompiledFunction> stage(const ValueAndGrad<F> &vg, const Ts &...args) {
    return stageSplit<F, false>(vg, args...);
  }
};
template <class F>
struct Stager<Grad<F>> {
  template <class... Ts>
  static std::unique_ptr<CompiledFunction> stage(const Grad<F> &g, const Ts &...args) {
    return stageSplit<F, true>(g.value_and_grad(), args...);
  }
};

} // namespace detail

/// `f` compiled for the CPU, once per argument signature. The arguments'
/// MLIRContext must outlive it (the compiled modules live there).
template <class F>
class Jitted {
public:
  explicit Jitted(F fn) : fn_(std::move(fn)) {}

  template <class... Ts>
  std::vector<interp::Tensor> operator()(const Ts &...args) {
    std::vector<interp::Tensor> flat{args...};
    std::string key = detail::signatureKey(flat);
    auto &compiled = cache_[key];
    if (!compiled)
      compiled = detail::Stager<F>::stage(fn_, args...);
    return compiled->call(flat, stats_, seconds_);
  }

  /// Bytes the compiled code allocated in the last call (arguments not counted).
  const interp::MemoryStats &last_stats() const { return stats_; }
  /// Wall time of the last compiled call, in seconds.
  double last_seconds() const { return seconds_; }

private:
  F fn_;
  std::map<std::string, std::unique_ptr<detail::CompiledFunction>> cache_;
  interp::MemoryStats stats_;
  double seconds_ = 0;
};

template <class F>
Jitted<F> jit(F fn) {
  return Jitted<F>(std::move(fn));
}

} // namespace cotangent

#endif // COTANGENT_TRACER_JIT_H
