//===- Autodiff.h - vjp, grad and value_and_grad over traced C++ -*- C++ -*-===//
//
// The staged counterpart of jax.vjp / jax.grad: a traced function is split
// by --jx-vjp and --jx-remat into @f_fwd / @f_bwd, whose residuals can be
// listed and whose IR can be read side by side; grad / value_and_grad run the
// split on concrete tensors through the reference interpreter. Their
// arguments and results are trees (ValueTree.h); `argnums` and `has_aux`
// are JAX's:
//
//   auto f = [](Tensor W, Tensor x) { return np::sum(np::sin(np::dot(W, x))); };
//   Split s = vjp({.name = "f", .arg_names = {"W", "x"}}, f, f32({5, 4}), f32({4}));
//   for (auto &r : s.saved_residuals()) ...;       // f32[5,4] from the argument W, ...
//   std::cout << s.print_fwd_bwd();
//   auto grads = grad(f)(W, x);                     // every gradient, flat
//   auto dparams = grad(loss, argnums<0>)(params, x);  // shaped like params
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_AUTODIFF_H
#define COTANGENT_TRACER_AUTODIFF_H

#include "tracer/Trace.h"
#include "tracer/ValueTree.h"
#include "passes/report/FwdBwdDump.h"
#include "passes/report/Residuals.h"
#include "runtime/interpreter/Interpreter.h"

#include <any>
#include <optional>
#include <type_traits>

namespace cotangent {

using Residual = mlir::cotangent::Residual;
using DumpSyntax = mlir::cotangent::DumpSyntax;

struct SplitOptions {
  /// Apply the remat policies (--jx-remat); without it every residual the
  /// backward needs is saved, as if no checkpoint were there.
  bool remat = true;
  /// --jx-remat's default-policy: the policy of residuals outside every
  /// checkpoint; empty: the pass's own default, which keeps jax.grad's. The
  /// compile tools use mlir::cotangent::kCompileDefaultPolicy.
  std::string defaultPolicy;
  /// --jx-remat's budget-step: a memory_budget bounds the peak of the fused
  /// value-and-grad step (what jit runs) instead of the split's.
  bool budgetStep = false;
  /// --jx-remat's budget-seconds: the wall-clock time each memory_budget's
  /// search may take; unset: the pass's default.
  std::optional<double> budgetSeconds;
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

/// Runs `fn` of `split`'s module through the interpreter; throws TraceError
/// with the interpreter's diagnostics on failure.
std::vector<interp::Tensor> evaluate(const Split &split, mlir::func::FuncOp fn,
                                     const std::vector<interp::Tensor> &args,
                                     interp::MemoryStats *stats = nullptr);

/// Which arguments grad differentiates (jax.grad's argnums):
/// `grad(f, argnums<0, 2>)`. Without argnums, grad differentiates every
/// argument and returns the gradients' leaves as one flat list.
template <size_t... I>
struct Argnums {
  static_assert(sizeof...(I) > 0, "argnums needs at least one argument index");
};
template <size_t... I>
inline constexpr Argnums<I...> argnums{};
struct AllArguments {};

/// jax.grad's has_aux: the function returns std::pair{loss, aux}, aux any
/// tree of Tensors; its value comes back beside the gradients.
struct HasAux {};
inline constexpr HasAux has_aux{};

struct GradOptions {
  /// Apply the remat policies (--jx-remat), as Split does.
  bool remat = true;
  /// Names of the positional arguments, for the traced function and for
  /// the paths in error messages; missing ones are "args[i]".
  std::vector<std::string> arg_names;
};

namespace detail {

/// What tracing a grad transform once gives every later call.
struct StagedGrad {
  /// The function to call: <name>_value_and_grad, or <name>_vjp (has_aux),
  /// which takes the results' cotangents after the arguments.
  std::string entry;
  bool seeded = false;
  /// The primal results: the loss, then the aux leaves.
  std::vector<mlir::RankedTensorType> results;
  /// The traced aux tree (its structure), under has_aux.
  std::any auxLike;
};

/// The cotangents a seeded entry takes: 1 for the loss, 0 for aux leaves.
std::vector<interp::Tensor> gradSeeds(const StagedGrad &staged);
/// "path:type;..." of a value signature: the cache key of compiled code.
std::string signatureKey(const std::vector<LeafSignature> &signature);
/// Throws unless `leaves` (those of an argument in argnums) are floats.
void checkDifferentiable(const std::vector<std::pair<std::string, interp::Tensor>> &leaves,
                         size_t begin, size_t end);
/// Throws unless `split`'s primal returns a scalar float first (the loss)
/// and, without has_aux, nothing else; fills `staged` from it.
void describeGradResults(const Split &split, bool hasAux, StagedGrad &staged);

/// The leaves of a call's arguments, named by their paths under the
/// arguments' names (`opts.arg_names`, else args[i]); static arguments
/// have none.
struct FlatArguments {
  std::vector<std::pair<std::string, interp::Tensor>> leaves;
  std::vector<size_t> firstLeaf; // per argument, then the end
  std::vector<interp::Tensor> values() const;
};

/// Flattens the arguments and points `opts.context` at theirs, so that the
/// trace's types and the results' outlive the call. Throws if no argument
/// holds a tensor.
template <class... A>
FlatArguments flattenArguments(TraceOptions &opts, const A &...args) {
  FlatArguments flat;
  size_t index = 0;
  auto collect = [&](const auto &arg) {
    flat.firstLeaf.push_back(flat.leaves.size());
    if constexpr (ValueTree<decltype(arg)>) {
      auto mine = flattenValues(arg, argumentName(opts, index));
      flat.leaves.insert(flat.leaves.end(), mine.begin(), mine.end());
    }
    ++index;
  };
  (collect(args), ...);
  flat.firstLeaf.push_back(flat.leaves.size());
  if (flat.leaves.empty())
    throw TraceError(opts.name + ": no argument holds a tensor");
  opts.context = flat.leaves.front().second.getType().getContext();
  return flat;
}

/// A fresh name for a grad transform's function in the active trace's
/// module (no symbol there starts with it): "grad_0", "grad_1", ...
std::string freshGradName();
/// Inside an active trace: copies `split`'s functions into the trace's
/// module and calls `staged.entry` on `inputs` (then the seeds), returning
/// the call's results. What grad inside a traced function (jax.grad inside
/// jax.jit) becomes: one func.call in the caller's jaxpr.
std::vector<Tensor> callStagedGrad(const Split &split, const StagedGrad &staged,
                                   const std::vector<Tensor> &inputs, const SrcLoc &loc);
/// Throws unless the traced leaves [begin, end) are floats.
void checkDifferentiableTraced(const std::vector<std::pair<std::string, Tensor>> &leaves,
                               size_t begin, size_t end);

/// The Spec tree of a tree of Tensors (their shapes and dtypes).
template <TensorTree T>
auto specsOf(const T &tree) {
  std::vector<Spec> specs;
  Tree<T>::forEach(tree, "", [&](const std::string &, const Tensor &t) {
    specs.push_back(Spec{t.shape(), t.dtype()});
  });
  LeafCursorOf<Spec> cursor{specs};
  return Tree<T>::rebuild(tree, cursor);
}

/// Runs each call's trace through the reference interpreter.
class InterpretGrad {
public:
  static constexpr bool compiles = false;
  template <class Stage>
  std::pair<std::vector<interp::Tensor>, const StagedGrad *>
  run(const std::vector<LeafSignature> &, std::vector<interp::Tensor> inputs, Stage &&stage) {
    auto [split, staged] = stage();
    staged_ = std::move(staged);
    std::vector<interp::Tensor> seeds = gradSeeds(staged_);
    inputs.insert(inputs.end(), seeds.begin(), seeds.end());
    return {evaluate(split, split.module().template lookupSymbol<mlir::func::FuncOp>(staged_.entry),
                     inputs),
            &staged_};
  }

private:
  StagedGrad staged_;
};

/// A grad transform called directly runs through the interpreter; called
/// on Tensors inside a traced function, it becomes part of that trace.
template <class Derived>
struct InterpretedCall {
  template <class... A>
  auto operator()(const A &...args) const {
    if constexpr (sizeof...(A) > 0 && (TensorTree<A> && ...)) {
      return static_cast<const Derived &>(*this).applyTraced(args...);
    } else {
      InterpretGrad backend;
      return static_cast<const Derived &>(*this).apply(backend, args...);
    }
  }
};

template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};

template <class Nums, size_t Count>
struct ArgnumsFit : std::true_type {};
template <size_t... I, size_t Count>
struct ArgnumsFit<Argnums<I...>, Count> : std::bool_constant<((I < Count) && ...)> {};

} // namespace detail

/// jax.value_and_grad over trees of interp::Tensors:
///
///   auto [loss, grads] = value_and_grad(loss_fn, argnums<0>)(params, x);
///   auto [lossAndAux, grads] = value_and_grad(f, argnums<0>, has_aux)(params, x);
///   auto [loss, aux] = lossAndAux;
///
/// grads is shaped like the argument (a tuple of trees for several
/// argnums). The function is traced on the arguments' shapes and dtypes and
/// split; calls run the split through the interpreter, and jit(...) of the
/// transform compiles it once per argument tree.
template <class F, class Nums = AllArguments, bool Aux = false>
class ValueAndGrad : public detail::InterpretedCall<ValueAndGrad<F, Nums, Aux>> {
public:
  using IsGradTransform = void;
  explicit ValueAndGrad(F fn, GradOptions options = {})
      : fn_(std::move(fn)), options_(std::move(options)) {}

  /// The transform with `backend` running the split (the interpreter, or
  /// jit's compiled code).
  template <class Backend, class... A>
  auto apply(Backend &backend, const A &...args) const {
    static_assert(detail::ArgnumsFit<Nums, sizeof...(A)>::value,
                  "argnums names an argument the call does not pass");
    static_assert(!Backend::compiles || (ValueTree<A> && ...),
                  "jit: every argument must be a tree of interp::Tensors");
    TraceOptions opts{.name = Backend::compiles ? "jit" : "main", .arg_names = options_.arg_names};
    detail::FlatArguments flat = detail::flattenArguments(opts, args...);
    const auto &leaves = flat.leaves;
    const auto &firstLeaf = flat.firstLeaf;
    checkArgnums(leaves, firstLeaf);
    std::vector<interp::Tensor> inputs = flat.values();
    auto stage = [&] {
      detail::StagedGrad staged;
      // jit runs the fused value-and-grad step: a memory_budget bounds its peak.
      Split split(trace(opts, keepingAux(staged), args...),
                  SplitOptions{.remat = options_.remat, .budgetStep = Backend::compiles});
      detail::describeGradResults(split, Aux, staged);
      return std::pair{std::move(split), std::move(staged)};
    };
    auto [outputs, staged] = backend.run(signatureOf(leaves), std::move(inputs), stage);

    size_t grads = staged->results.size();
    interp::Tensor value = outputs.front();
    auto gradients = gradientsOf(outputs, grads, firstLeaf, args...);
    if constexpr (Aux) {
      using AuxTraced = typename std::invoke_result_t<const F &, detail::TracedArg<A> &...>::second_type;
      LeafCursorOf<interp::Tensor> cursor{outputs, 1};
      auto aux = Tree<AuxTraced>::rebuild(std::any_cast<const AuxTraced &>(staged->auxLike), cursor);
      return std::pair{std::pair{std::move(value), std::move(aux)}, std::move(gradients)};
    } else {
      return std::pair{std::move(value), std::move(gradients)};
    }
  }

  /// Inside an active trace (jax.grad inside jax.jit): `fn` is traced on
  /// its own, split, and called from the trace; the results are the
  /// trace's Tensors, shaped as `apply`'s. Every tensor `fn` uses must come
  /// in through its arguments.
  template <class... A>
  auto applyTraced(const A &...args) const {
    static_assert(detail::ArgnumsFit<Nums, sizeof...(A)>::value,
                  "argnums names an argument the call does not pass");
    TraceOptions opts{.name = detail::freshGradName(), .arg_names = options_.arg_names};
    std::vector<std::pair<std::string, Tensor>> leaves;
    std::vector<size_t> firstLeaf;
    size_t index = 0;
    auto collect = [&](const auto &arg) {
      firstLeaf.push_back(leaves.size());
      auto mine = flattenWithPaths(arg, detail::argumentName(opts, index++));
      leaves.insert(leaves.end(), mine.begin(), mine.end());
    };
    (collect(args), ...);
    firstLeaf.push_back(leaves.size());
    if (leaves.empty())
      throw TraceError("grad: no argument holds a tensor");
    opts.context = leaves.front().second.value().getContext();
    if constexpr (!std::is_same_v<Nums, AllArguments>) {
      [&]<size_t... I>(Argnums<I...>) {
        (detail::checkDifferentiableTraced(leaves, firstLeaf[I], firstLeaf[I + 1]), ...);
      }(Nums{});
    }
    detail::StagedGrad staged;
    Split split(trace(opts, keepingAux(staged), detail::specsOf(args)...),
                SplitOptions{.remat = options_.remat});
    detail::describeGradResults(split, Aux, staged);
    std::vector<Tensor> inputs;
    for (auto &[path, t] : leaves)
      inputs.push_back(t);
    std::vector<Tensor> outputs = detail::callStagedGrad(split, staged, inputs, SrcLoc::current());

    size_t first = staged.results.size();
    Tensor value = outputs.front();
    auto gradients = gradientsOf<Tensor>(outputs, first, firstLeaf, args...);
    if constexpr (Aux) {
      using AuxTraced = typename std::invoke_result_t<const F &, const A &...>::second_type;
      LeafCursorOf<Tensor> cursor{outputs, 1};
      auto aux = Tree<AuxTraced>::rebuild(std::any_cast<const AuxTraced &>(staged.auxLike), cursor);
      return std::pair{std::pair{std::move(value), std::move(aux)}, std::move(gradients)};
    } else {
      return std::pair{std::move(value), std::move(gradients)};
    }
  }

private:
  /// `fn_` as the transform traces it: under has_aux, it keeps the aux
  /// tree's structure in `staged` for rebuilding the results.
  auto keepingAux(detail::StagedGrad &staged) const {
    return [this, &staged](auto &...a) {
      auto result = fn_(a...);
      if constexpr (Aux) {
        static_assert(detail::IsPair<decltype(result)>::value,
                      "has_aux: the function must return std::pair{loss, aux}");
        staged.auxLike = result.second;
      }
      return result;
    };
  }

  void checkArgnums(const std::vector<std::pair<std::string, interp::Tensor>> &leaves,
                    const std::vector<size_t> &firstLeaf) const {
    // Without argnums every leaf has an entry, integer ones (a cond's
    // predicate, labels) a zero one; argnums selects float arguments only.
    if constexpr (!std::is_same_v<Nums, AllArguments>) {
      [&]<size_t... I>(Argnums<I...>) {
        (detail::checkDifferentiable(leaves, firstLeaf[I], firstLeaf[I + 1]), ...);
      }(Nums{});
    }
  }

  /// The gradients among `outputs` (after the `first` primal results):
  /// every leaf in order, or the argnums arguments' trees.
  template <class Leaf = interp::Tensor, class... A>
  static auto gradientsOf(const std::vector<Leaf> &outputs, size_t first,
                          const std::vector<size_t> &firstLeaf, const A &...args) {
    if constexpr (std::is_same_v<Nums, AllArguments>) {
      return std::vector<Leaf>(outputs.begin() + static_cast<ptrdiff_t>(first), outputs.end());
    } else {
      auto all = std::forward_as_tuple(args...);
      auto treeOf = [&]<size_t I>(std::integral_constant<size_t, I>) {
        const auto &arg = std::get<I>(all);
        LeafCursorOf<Leaf> cursor{outputs, first + firstLeaf[I]};
        return Tree<std::remove_cvref_t<decltype(arg)>>::rebuild(arg, cursor);
      };
      return [&]<size_t... I>(Argnums<I...>) {
        if constexpr (sizeof...(I) == 1)
          return treeOf(std::integral_constant<size_t, I>{}...);
        else
          return std::tuple{treeOf(std::integral_constant<size_t, I>{})...};
      }(Nums{});
    }
  }

  F fn_;
  GradOptions options_;
};

/// jax.grad: the gradients of `value_and_grad` (with has_aux: {grads, aux}).
template <class F, class Nums = AllArguments, bool Aux = false>
class Grad : public detail::InterpretedCall<Grad<F, Nums, Aux>> {
public:
  using IsGradTransform = void;
  explicit Grad(F fn, GradOptions options = {}) : inner_(std::move(fn), std::move(options)) {}

  template <class Backend, class... A>
  auto apply(Backend &backend, const A &...args) const {
    return pick(inner_.apply(backend, args...));
  }
  template <class... A>
  auto applyTraced(const A &...args) const {
    return pick(inner_.applyTraced(args...));
  }

private:
  template <class V, class G>
  static auto pick(std::pair<V, G> valueAndGrads) {
    if constexpr (Aux)
      return std::pair{std::move(valueAndGrads.second), std::move(valueAndGrads.first.second)};
    else
      return std::move(valueAndGrads.second);
  }
  ValueAndGrad<F, Nums, Aux> inner_;
};

template <class F>
auto value_and_grad(F fn, GradOptions options = {}) {
  return ValueAndGrad<F>(std::move(fn), std::move(options));
}
template <class F, size_t... I>
auto value_and_grad(F fn, Argnums<I...>, GradOptions options = {}) {
  return ValueAndGrad<F, Argnums<I...>>(std::move(fn), std::move(options));
}
template <class F, size_t... I>
auto value_and_grad(F fn, Argnums<I...>, HasAux, GradOptions options = {}) {
  return ValueAndGrad<F, Argnums<I...>, true>(std::move(fn), std::move(options));
}
template <class F>
auto grad(F fn, GradOptions options = {}) {
  return Grad<F>(std::move(fn), std::move(options));
}
template <class F, size_t... I>
auto grad(F fn, Argnums<I...>, GradOptions options = {}) {
  return Grad<F, Argnums<I...>>(std::move(fn), std::move(options));
}
template <class F, size_t... I>
auto grad(F fn, Argnums<I...>, HasAux, GradOptions options = {}) {
  return Grad<F, Argnums<I...>, true>(std::move(fn), std::move(options));
}

namespace detail {
/// Throws unless the cotangent's leaves match the primal outputs' (paths,
/// shapes and dtypes), naming each difference.
void checkCotangent(const std::vector<LeafSignature> &outputs,
                    const std::vector<std::pair<std::string, interp::Tensor>> &cotangent);
} // namespace detail

/// jax.vjp at run time, over trees of interp::Tensors, on the interpreter:
///
///   auto [y, backward] = pullback(f, params, x);   // runs @f_fwd
///   auto [dparams, dx] = backward(ct);             // runs @f_bwd
///
/// `y` is f's output tree, `backward(ct)` takes a cotangent tree shaped
/// like y and returns the arguments' cotangent trees (one tree for one
/// argument, else a tuple). Between the two calls only the residuals the
/// policies save are held (`vjp(f, ...).saved_residuals()` lists them).
template <class F, class... A>
auto pullback(const F &fn, const A &...primals) {
  static_assert((ValueTree<A> && ...), "pullback: every argument must be a tree of interp::Tensors");
  TraceOptions opts{.name = "main"};
  detail::FlatArguments flat = detail::flattenArguments(opts, primals...);
  using Out = std::invoke_result_t<const F &, detail::TracedArg<A> &...>;
  static_assert(TensorTree<Out>, "pullback: the function must return a tree of Tensors");
  std::optional<Out> like;
  auto traced = [&](auto &...a) {
    Out out = fn(a...);
    like.emplace(out);
    return out;
  };
  auto split = std::make_shared<Split>(trace(opts, traced, primals...));
  std::vector<interp::Tensor> forward = evaluate(*split, split->fwd(), flat.values());
  size_t outputs = flatten(*like).size();
  LeafCursorOf<interp::Tensor> cursor{forward};
  auto y = Tree<Out>::rebuild(*like, cursor);
  std::vector<interp::Tensor> residuals(forward.begin() + static_cast<ptrdiff_t>(outputs),
                                        forward.end());
  std::vector<LeafSignature> signature = signatureOf(flattenValues(y, "y"));
  auto backward = [split, residuals = std::move(residuals), signature = std::move(signature),
                   firstLeaf = flat.firstLeaf,
                   args = std::tuple<A...>(primals...)](const decltype(y) &ct) {
    auto leaves = flattenValues(ct, "y");
    detail::checkCotangent(signature, leaves);
    std::vector<interp::Tensor> inputs = residuals;
    for (auto &[path, t] : leaves)
      inputs.push_back(t);
    std::vector<interp::Tensor> cts = evaluate(*split, split->bwd(), inputs);
    auto treeOf = [&]<size_t I>(std::integral_constant<size_t, I>) {
      LeafCursorOf<interp::Tensor> at{cts, firstLeaf[I]};
      return Tree<std::tuple_element_t<I, std::tuple<A...>>>::rebuild(std::get<I>(args), at);
    };
    return [&]<size_t... I>(std::index_sequence<I...>) {
      if constexpr (sizeof...(A) == 1)
        return treeOf(std::integral_constant<size_t, 0>{});
      else
        return std::tuple{treeOf(std::integral_constant<size_t, I>{})...};
    }(std::index_sequence_for<A...>{});
  };
  return std::pair{std::move(y), std::move(backward)};
}

} // namespace cotangent

#endif // COTANGENT_TRACER_AUTODIFF_H
