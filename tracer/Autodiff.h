//===- Autodiff.h - vjp, grad and value_and_grad over traced C++ -*- C++ -*-===//
//
// The staged counterpart of jax.vjp / jax.grad: a traced function is split
// by --jx-vjp and --jx-remat into @f_fwd / @f_bwd, whose residuals can be
// listed and whose IR can be read side by side; grad / value_and_grad run the
// split on concrete tensors through the reference interpreter.
//
//   auto f = [](Tensor W, Tensor x) { return np::sum(np::sin(np::dot(W, x))); };
//   Split s = vjp({.name = "f", .arg_names = {"W", "x"}}, f, f32({5, 4}), f32({4}));
//   for (auto &r : s.saved_residuals()) ...;       // f32[5,4] from the argument W, ...
//   std::cout << s.print_fwd_bwd();
//   auto grads = grad(f)(W, x);                     // interp::Tensors
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_AUTODIFF_H
#define COTANGENT_TRACER_AUTODIFF_H

#include "tracer/Trace.h"
#include "passes/report/FwdBwdDump.h"
#include "passes/report/Residuals.h"
#include "runtime/interpreter/Interpreter.h"

namespace cotangent {

using Residual = mlir::cotangent::Residual;
using DumpSyntax = mlir::cotangent::DumpSyntax;

struct SplitOptions {
  /// Apply the remat policies (--jx-remat); without it every residual the
  /// backward needs is saved, as if no checkpoint were there.
  bool remat = true;
};

/// A traced function split into forward and backward.
class Split {
public:
  /// Runs --jx-vjp (and --jx-remat) on `traced`. Throws TraceError with the
  /// passes' diagnostics if the function cannot be differentiated.
  explicit Split(Traced traced, SplitOptions options = {});

  mlir::ModuleOp module() const { return traced_.module(); }
  mlir::func::FuncOp primal() const { return traced_.func(); }
  mlir::func::FuncOp fwd() const;
  mlir::func::FuncOp bwd() const;
  mlir::func::FuncOp vjp() const;
  /// Null unless the function returns one scalar float.
  mlir::func::FuncOp value_and_grad() const;

  /// What the forward saves for the backward, after every pass ran.
  std::vector<Residual> saved_residuals() const;
  /// JAX's print_saved_residuals text, with a total.
  std::string print_saved_residuals() const;
  /// The forward and backward side by side (width 0: the terminal's).
  std::string print_fwd_bwd(DumpSyntax syntax = DumpSyntax::Mlir, unsigned width = 0) const;

private:
  /// The function composed from the split and named @<primal><suffix>.
  mlir::func::FuncOp lookup(const std::string &suffix) const;
  Traced traced_;
};

/// Traces `fn` on `args` (as `trace` does) and splits it.
template <class F, class... Args>
Split vjp(const TraceOptions &opts, const F &fn, const Args &...args) {
  return Split(trace(opts, fn, args...));
}
template <class F, class... Args>
Split vjp(const F &fn, const Args &...args) {
  return Split(trace(TraceOptions{}, fn, args...));
}

/// The Spec of a concrete tensor (for tracing on its shape and dtype).
Spec specOf(const interp::Tensor &t);

/// Runs `fn` of `split`'s module through the interpreter; throws TraceError
/// with the interpreter's diagnostics on failure.
std::vector<interp::Tensor> evaluate(const Split &split, mlir::func::FuncOp fn,
                                     const std::vector<interp::Tensor> &args,
                                     interp::MemoryStats *stats = nullptr);

/// jax.value_and_grad for a function of tensors returning a scalar float:
/// `value_and_grad(f)(a, b)` traces f on a's and b's shapes, splits it and
/// returns {value, {da, db}}.
template <class F>
class ValueAndGrad {
public:
  explicit ValueAndGrad(F fn, SplitOptions options = {}) : fn_(std::move(fn)), options_(options) {}

  template <class... Ts>
  std::pair<interp::Tensor, std::vector<interp::Tensor>> operator()(const Ts &...args) const {
    // Trace in the arguments' context, so that their types and the results'
    // outlive this call.
    TraceOptions opts;
    ((opts.context = args.getType().getContext()), ...);
    Split split(trace(opts, fn_, specOf(args)...), options_);
    if (!split.value_and_grad())
      throw TraceError("grad: the function must return one scalar float tensor");
    std::vector<interp::Tensor> out = evaluate(split, split.value_and_grad(), {args...});
    interp::Tensor value = out.front();
    out.erase(out.begin());
    return {value, out};
  }

  const F &function() const { return fn_; }
  SplitOptions options() const { return options_; }

private:
  F fn_;
  SplitOptions options_;
};

/// jax.grad: the gradients of `value_and_grad`.
template <class F>
class Grad {
public:
  explicit Grad(F fn, SplitOptions options = {}) : inner_(std::move(fn), options) {}
  template <class... Ts>
  std::vector<interp::Tensor> operator()(const Ts &...args) const {
    return inner_(args...).second;
  }
  const ValueAndGrad<F> &value_and_grad() const { return inner_; }

private:
  ValueAndGrad<F> inner_;
};

template <class F>
ValueAndGrad<F> value_and_grad(F fn, SplitOptions options = {}) {
  return ValueAndGrad<F>(std::move(fn), options);
}
template <class F>
Grad<F> grad(F fn, SplitOptions options = {}) {
  return Grad<F>(std::move(fn), options);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_AUTODIFF_H
