//===- ControlFlow.h - jax.lax.scan, cond and switch ------------*- C++ -*-===//
//
// `scan(body, init, xs)` emits jx.scan: `body(carry, x)` returns
// `std::pair{new_carry, y}`; the result is `std::pair{final_carry, ys}`.
// `cond(pred, true_fn, false_fn, operands...)` emits jx.cond with its
// branches in JAX's (false, true) order; `switch_(index, branches, ...)` picks
// among any number of branches. Tensors of enclosing scopes used by a body
// become operands: scan's consts, extra inputs of cond.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_CONTROLFLOW_H
#define COTANGENT_TRACER_CONTROLFLOW_H

#include "tracer/Pytree.h"
#include "tracer/Tensor.h"

#include <functional>
#include <optional>

namespace cotangent {

struct ScanOptions {
  /// Number of iterations; needed when xs is empty (None).
  std::optional<int64_t> length;
  bool reverse = false;
  /// A checkpoint schedule for differentiation (see jx.scan): nested chunk
  /// lengths whose product is the length, e.g. {25, 40} for 1000 iterations.
  std::vector<int64_t> checkpoint_lengths;
  /// Or a binomial (revolve) schedule keeping at most this many carries:
  /// the fewest re-run iterations for that memory (see jx.scan).
  std::optional<int64_t> snapshots;
  /// Function name for the body's op locations (default: the enclosing one).
  std::string name;
};

namespace detail {

using BodyTracer = std::function<std::vector<Tensor>(std::vector<Tensor>)>;

/// Emits jx.scan; `trace` gets (carry..., x...) and returns (carry..., y...).
/// Returns (final carry..., ys...).
std::vector<Tensor> emitScan(const std::vector<Tensor> &carry, const std::vector<Tensor> &xs,
                             const BodyTracer &trace,
                             const ScanOptions &opts, const SrcLoc &loc);

/// Emits jx.cond with one region per tracer; each gets the operands' inner
/// values and returns the branch's result leaves.
std::vector<Tensor> emitCond(const Operand &index, bool boolean,
                             const std::vector<Tensor> &operands,
                             const std::vector<BodyTracer> &branches, const SrcLoc &loc);

template <class... Ops>
auto rebindAll(const std::tuple<Ops...> &ops, const std::vector<Tensor> &inner) {
  LeafCursor cursor{inner};
  return std::apply(
      [&](const Ops &...o) { return std::tuple<Ops...>{Tree<Ops>::rebuild(o, cursor)...}; }, ops);
}

} // namespace detail

/// jax.lax.scan over the leading axis of the leaves of `xs`.
template <class Body, TensorTree Carry, TensorTree Xs>
auto scan(const Body &body, const Carry &init, const Xs &xs, ScanOptions opts = {},
          SrcLoc loc = SrcLoc::current()) {
  using Result = std::invoke_result_t<const Body &, const Carry &, const Xs &>;
  using Y = typename Result::second_type;
  static_assert(TensorTree<Result>, "a scan body returns std::pair{new_carry, y}");
  std::vector<Tensor> carry = flatten(init), xsLeaves = flatten(xs);
  std::optional<Result> out;
  std::vector<Tensor> results = detail::emitScan(
      carry, xsLeaves,
      [&](std::vector<Tensor> inner) {
        std::vector<Tensor> c(inner.begin(), inner.begin() + carry.size());
        std::vector<Tensor> x(inner.begin() + carry.size(), inner.end());
        out.emplace(body(unflatten(init, c), unflatten(xs, x)));
        std::vector<Tensor> leaves = flatten(out->first);
        if (leaves.size() != carry.size())
          throwTraceError("scan",
                          "the body returns " + std::to_string(leaves.size()) +
                              " carry leaves, but the initial carry has " +
                              std::to_string(carry.size()),
                          {}, loc);
        std::vector<Tensor> ys = flatten(out->second);
        leaves.insert(leaves.end(), ys.begin(), ys.end());
        return leaves;
      },
      opts, loc);
  std::vector<Tensor> finalCarry(results.begin(), results.begin() + carry.size());
  std::vector<Tensor> ys(results.begin() + carry.size(), results.end());
  return std::pair<Carry, Y>{unflatten(init, finalCarry), unflatten(out->second, ys)};
}

/// jax.lax.cond: `true_fn(operands...)` if `pred` else `false_fn(operands...)`.
/// `pred` is a 0-d tensor (or a C++ scalar); non-bool values are compared with 0.
template <class TrueFn, class FalseFn, TensorTree... Ops>
auto cond(const Operand &pred, const TrueFn &true_fn, const FalseFn &false_fn,
          const Ops &...operands) {
  using Result = std::invoke_result_t<const TrueFn &, const Ops &...>;
  static_assert(TensorTree<Result>, "cond branches must return a tree of Tensors");
  std::tuple<Ops...> ops{operands...};
  std::vector<Tensor> leaves;
  ((void)[&] { auto l = flatten(operands); leaves.insert(leaves.end(), l.begin(), l.end()); }(),
   ...);
  std::optional<Result> shape;
  auto tracer = [&](const auto &fn) -> detail::BodyTracer {
    return [&](std::vector<Tensor> inner) {
      auto result = std::apply(fn, detail::rebindAll(ops, inner));
      if (!shape)
        shape.emplace(result);
      return flatten(result);
    };
  };
  std::vector<Tensor> results =
      detail::emitCond(pred, true, leaves, {tracer(false_fn), tracer(true_fn)}, pred.loc);
  return unflatten(*shape, results);
}

/// jax.lax.switch: `branches[index](operands...)`, the index clamped into range.
template <class Fn, TensorTree... Ops>
auto switch_(const Operand &index, const std::vector<Fn> &branches, const Ops &...operands) {
  using Result = std::invoke_result_t<const Fn &, const Ops &...>;
  static_assert(TensorTree<Result>, "switch branches must return a tree of Tensors");
  std::tuple<Ops...> ops{operands...};
  std::vector<Tensor> leaves;
  ((void)[&] { auto l = flatten(operands); leaves.insert(leaves.end(), l.begin(), l.end()); }(),
   ...);
  std::optional<Result> shape;
  std::vector<detail::BodyTracer> tracers;
  for (const Fn &fn : branches)
    tracers.push_back([&](std::vector<Tensor> inner) {
      auto result = std::apply(fn, detail::rebindAll(ops, inner));
      if (!shape)
        shape.emplace(result);
      return flatten(result);
    });
  std::vector<Tensor> results = detail::emitCond(index, false, leaves, tracers, index.loc);
  return unflatten(*shape, results);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_CONTROLFLOW_H
