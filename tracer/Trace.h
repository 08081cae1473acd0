//===- Trace.h - trace C++ functions into jx IR (jax.make_jaxpr) -*- C++ -*-===//
//
// `trace(fn, specs...)` calls `fn` on Tensors standing for its arguments and
// records every op into a `func.func` of jx ops:
//
//   auto f = [](Tensor W, Tensor x) { return np::sin(np::dot(W, x)); };
//   cotangent::trace t({.name = "g", .arg_names = {"W", "x"}}, f, f32({5, 4}), f32({4}));
//   t.jaxpr();   // { lambda ; a:f32[5,4] b:f32[4]. let c:f32[5] = dot_general[...] a b; ...
//
// Arguments are trees of `Spec`s (see Pytree.h); anything else is passed
// through unchanged (a static argument). `trace` is a class template deduced
// from its arguments, which lets it capture the caller's source location
// after a parameter pack; it is-a `Traced`.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_TRACE_H
#define COTANGENT_TRACER_TRACE_H

#include "tracer/Checkpoint.h"
#include "tracer/ControlFlow.h"
#include "tracer/Numpy.h"
#include "tracer/Pytree.h"
#include "tracer/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace cotangent {

struct TraceOptions {
  /// The func.func's name (and the function name in op locations).
  std::string name = "main";
  /// Names of the positional arguments (JAX uses the Python parameter
  /// names); missing ones are "args[i]".
  std::vector<std::string> arg_names;
  /// Trace into this context instead of a new one owned by the result
  /// (without one, a trace on host values is made in their context).
  mlir::MLIRContext *context = nullptr;
};

/// A finished trace: a module holding one func.func of jx ops.
class Traced {
public:
  Traced(std::unique_ptr<mlir::MLIRContext> owned, mlir::OwningOpRef<mlir::ModuleOp> module);
  Traced(Traced &&) noexcept;
  Traced &operator=(Traced &&) noexcept;
  ~Traced();

  mlir::MLIRContext *context() const;
  mlir::ModuleOp module() const { return const_cast<Traced *>(this)->module_.get(); }
  /// The traced function.
  mlir::func::FuncOp func() const;
  /// The module in MLIR's generic-free custom form (locations omitted).
  std::string mlir(bool withLocations = false) const;
  /// The function as a jaxpr.
  std::string jaxpr() const;
  /// Transfers the module out (the context must outlive it).
  mlir::OwningOpRef<mlir::ModuleOp> takeModule() { return std::move(module_); }

private:
  std::unique_ptr<mlir::MLIRContext> owned_; // declared first: destroyed last
  mlir::OwningOpRef<mlir::ModuleOp> module_;
};

namespace detail {

/// The non-template part of a trace: context, module, function, frames.
class TraceSession {
public:
  TraceSession(const TraceOptions &opts, const SrcLoc &loc);
  ~TraceSession();
  /// A new function argument of `spec` named `name`.
  Tensor addArgument(const Spec &spec, const std::string &name);
  /// Ends the function with `results` and returns the module.
  Traced finish(const std::vector<std::pair<std::string, Tensor>> &results);
  const TraceOptions &options() const { return opts_; }

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  TraceOptions opts_;
};

std::string argumentName(const TraceOptions &opts, size_t index);

template <class A>
decltype(auto) materializeArgument(TraceSession &session, const A &arg, size_t index) {
  if constexpr (SpecTree<A>) {
    return Tree<A>::materialize(arg, argumentName(session.options(), index),
                                [&](const std::string &path, const Spec &s) {
                                  return session.addArgument(s, path);
                                });
  } else {
    return A(arg); // a static argument
  }
}

/// What a traced function receives for an argument of type A.
template <class A>
using TracedArg = std::remove_cvref_t<decltype(materializeArgument(
    std::declval<TraceSession &>(), std::declval<const A &>(), size_t{0}))>;

/// The context of the first concrete tensor among `args` (value trees,
/// ValueTree.h), or null: a trace on host values is made in theirs, so its
/// functions take them as they are.
template <class... Args>
mlir::MLIRContext *contextOfValues(const Args &...args) {
  mlir::MLIRContext *ctx = nullptr;
  auto visit = [&](const auto &arg) {
    using A = std::remove_cvref_t<decltype(arg)>;
    if constexpr (Tree<A>::isValueTree)
      Tree<A>::forEach(arg, "", [&](const std::string &, const auto &leaf) {
        if (!ctx)
          ctx = leaf.getType().getContext();
      });
  };
  (visit(args), ...);
  return ctx;
}

template <class F, class... Args, size_t... Is>
Traced runTraceIndexed(const TraceOptions &opts, const F &fn, const SrcLoc &loc,
                       std::index_sequence<Is...>, const Args &...args) {
  TraceOptions resolved = opts;
  if (!resolved.context)
    resolved.context = contextOfValues(args...);
  TraceSession session(resolved, loc);
  // Braced initialization: arguments become block arguments left to right.
  auto traced = std::tuple{materializeArgument(session, args, Is)...};
  auto result = std::apply(fn, traced);
  static_assert(TensorTree<decltype(result)>, "a traced function must return a tree of Tensors");
  return session.finish(flattenWithPaths(result, "result"));
}

template <class F, class... Args>
Traced runTrace(const TraceOptions &opts, const F &fn, const SrcLoc &loc, const Args &...args) {
  return runTraceIndexed(opts, fn, loc, std::index_sequence_for<Args...>{}, args...);
}

} // namespace detail

/// Traces `fn` on arguments described by `args` (trees of Specs, or static
/// values); see the file comment.
template <class F, class... Args>
class trace : public Traced {
public:
  trace(const F &fn, const Args &...args, SrcLoc loc = SrcLoc::current())
      : Traced(detail::runTrace(TraceOptions{}, fn, loc, args...)) {}
  trace(const TraceOptions &opts, const F &fn, const Args &...args,
        SrcLoc loc = SrcLoc::current())
      : Traced(detail::runTrace(opts, fn, loc, args...)) {}
};
template <class F, class... Args>
trace(F, Args...) -> trace<F, Args...>;
template <class F, class... Args>
trace(TraceOptions, F, Args...) -> trace<F, Args...>;

} // namespace cotangent

#endif // COTANGENT_TRACER_TRACE_H
