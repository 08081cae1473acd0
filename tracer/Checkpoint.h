//===- Checkpoint.h - jax.checkpoint / remat, policies, names ---*- C++ -*-===//
//
// `checkpoint(fn, {policy, prevent_cse, static_argnums})` (alias `remat`)
// returns a callable; calling it while tracing emits a `jx.remat` whose body
// is `fn` traced on the call's tensor arguments. Tensors of enclosing scopes
// that the body uses become extra operands (the region is isolated from
// above). Checkpointed callables nest and recurse freely.
//
// `policies::` builds JAX's policies by their names; each is a thin,
// context-free wrapper that becomes a `#jx.policy` when a remat is emitted.
// There is one constructor per policy and alias of dialects/jx/Policies.def,
// its arguments given by the policy's signature (the list, with what each
// policy saves: docs/generated/policies-table.md).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_CHECKPOINT_H
#define COTANGENT_TRACER_CHECKPOINT_H

#include "tracer/Pytree.h"
#include "tracer/Tensor.h"

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mlir::jx {
class PolicyAttr;
}
namespace mlir {
class MLIRContext;
}

namespace cotangent {

/// A remat policy, by JAX's name; built into a #jx.policy per context.
class Policy {
public:
  /// Builds the attribute, or returns null and sets `error`.
  using Builder = std::function<mlir::jx::PolicyAttr(mlir::MLIRContext *, std::string &error)>;
  Policy(std::string description, Builder build)
      : description_(std::move(description)), build_(std::move(build)) {}
  mlir::jx::PolicyAttr build(mlir::MLIRContext *ctx, std::string &error) const;
  /// JAX's spelling, e.g. "save_only_these_names('a')".
  const std::string &str() const { return description_; }

private:
  std::string description_;
  Builder build_;
};

/// The argument of memory_budget: bytes (an integer) or a fraction of the
/// step's peak without remat (a floating-point number in (0, 1]).
struct MemoryBudget {
  template <std::integral T>
  MemoryBudget(T bytes) : bytes(static_cast<int64_t>(bytes)) {}
  template <std::floating_point T>
  MemoryBudget(T fraction) : fraction(static_cast<double>(fraction)) {}
  std::optional<int64_t> bytes;
  std::optional<double> fraction;
};

namespace policies {

// The constructor of a policy, by its signature (PolicySignature):
//   Plain        Policy dots_saveable();
//   Names        Policy save_only_these_names(std::vector<std::string> names);
//   SaveOffload  Policy save_and_offload_only_these_names(std::vector<std::string> saved,
//                    std::vector<std::string> offloaded, std::string src, std::string dst);
//   MemoryKinds  Policy offload_dot_with_no_batch_dims(std::string src, std::string dst);
//   Policies     Policy save_from_both_policies(const Policy &p, const Policy &q);
//   Budget       Policy memory_budget(MemoryBudget budget);   // 64 << 20, or 0.5
#define COTANGENT_POLICY_Plain(fn) Policy fn();
#define COTANGENT_POLICY_Names(fn) Policy fn(std::vector<std::string> names);
#define COTANGENT_POLICY_SaveOffload(fn)                                                      \
  Policy fn(std::vector<std::string> saved, std::vector<std::string> offloaded,               \
            std::string src, std::string dst);
#define COTANGENT_POLICY_MemoryKinds(fn) Policy fn(std::string src, std::string dst);
#define COTANGENT_POLICY_Policies(fn) Policy fn(const Policy &p, const Policy &q);
#define COTANGENT_POLICY_Budget(fn) Policy fn(MemoryBudget budget);
#define JX_POLICY(name, signature, ...) COTANGENT_POLICY_##signature(name)
#define JX_POLICY_ALIAS(alias, name, signature) COTANGENT_POLICY_##signature(alias)
#include "dialects/jx/Policies.def"
#undef COTANGENT_POLICY_Plain
#undef COTANGENT_POLICY_Names
#undef COTANGENT_POLICY_SaveOffload
#undef COTANGENT_POLICY_MemoryKinds
#undef COTANGENT_POLICY_Policies
#undef COTANGENT_POLICY_Budget

/// Any policy in #jx.policy's syntax ("save_only_these_names(\"a\")");
/// errors surface as TraceError when the remat is emitted.
Policy parse(std::string text);
} // namespace policies

struct CheckpointOptions {
  /// Default: nothing_saveable (JAX's policy=None).
  std::optional<Policy> policy;
  bool prevent_cse = true;
  /// Positions of arguments passed through as C++ values, not traced.
  std::vector<int> static_argnums;
  /// Function name for the body's op locations (default: the enclosing one).
  std::string name;
};

/// jax.ad_checkpoint.checkpoint_name: identity that names `x` for policies.
Tensor checkpoint_name(const Tensor &x, const std::string &name, SrcLoc loc = SrcLoc::current());

namespace detail {

/// Emits the jx.remat for a body traced by `trace` (non-template part).
/// `trace` receives the inner tensors for `operands` and returns the body's
/// result leaves.
std::vector<Tensor> emitRemat(const std::vector<Tensor> &operands,
                              const std::function<std::vector<Tensor>(std::vector<Tensor>)> &trace,
                              const CheckpointOptions &opts, const SrcLoc &loc);

[[noreturn]] void throwStaticArgumentError(size_t index, bool isTensor, const SrcLoc &loc);

/// The tensor leaves of a checkpointed call's argument (none if static).
template <class A>
void collectOperands(const A &arg, size_t index, const std::vector<int> &statics,
                     std::vector<Tensor> &out, const SrcLoc &loc) {
  bool isStatic = std::find(statics.begin(), statics.end(), static_cast<int>(index)) != statics.end();
  if constexpr (TensorTree<A>) {
    std::vector<Tensor> leaves = flatten(arg);
    if (isStatic && !leaves.empty())
      throwStaticArgumentError(index, true, loc);
    out.insert(out.end(), leaves.begin(), leaves.end());
  } else if (!isStatic) {
    throwStaticArgumentError(index, false, loc);
  }
}

/// The argument as seen inside the body: tensor leaves replaced by block arguments.
template <class A>
A rebindOperand(const A &arg, LeafCursor &cursor) {
  if constexpr (TensorTree<A>)
    return Tree<A>::rebuild(arg, cursor);
  else
    return arg;
}

} // namespace detail

/// The callable `checkpoint` returns.
template <class F>
class Checkpointed {
public:
  Checkpointed(F fn, CheckpointOptions opts, SrcLoc loc)
      : fn_(std::move(fn)), opts_(std::move(opts)), loc_(loc) {}

  template <class... Args>
  auto operator()(const Args &...args) const {
    using Result = std::invoke_result_t<const F &, const Args &...>;
    static_assert(TensorTree<Result>, "a checkpointed function must return a tree of Tensors");
    std::vector<Tensor> operands;
    size_t index = 0;
    (detail::collectOperands(args, index++, opts_.static_argnums, operands, loc_), ...);
    std::optional<Result> result;
    std::vector<Tensor> outer = detail::emitRemat(
        operands,
        [&](std::vector<Tensor> inner) {
          LeafCursor cursor{inner};
          auto rebound = std::tuple<Args...>{detail::rebindOperand(args, cursor)...};
          result.emplace(std::apply(fn_, rebound));
          return flatten(*result);
        },
        opts_, loc_);
    return unflatten(*result, outer);
  }

private:
  F fn_;
  CheckpointOptions opts_;
  SrcLoc loc_;
};

/// jax.checkpoint: see the file comment.
template <class F>
Checkpointed<F> checkpoint(F fn, CheckpointOptions opts = {}, SrcLoc loc = SrcLoc::current()) {
  return Checkpointed<F>(std::move(fn), std::move(opts), loc);
}

/// jax.remat, an alias of checkpoint.
template <class F>
Checkpointed<F> remat(F fn, CheckpointOptions opts = {}, SrcLoc loc = SrcLoc::current()) {
  return Checkpointed<F>(std::move(fn), std::move(opts), loc);
}

} // namespace cotangent

#endif // COTANGENT_TRACER_CHECKPOINT_H
