//===- Checkpoint.cpp - jx.remat emission, policies, checkpoint_name ------===//
//
// The policy constructors (one per entry of Policies.def, built by the
// signature's builder), checkpoint_name, and the emission of jx.remat for a
// checkpointed call.
//
//===----------------------------------------------------------------------===//

#include "tracer/Checkpoint.h"

#include "tracer/Region.h"

using namespace mlir;
using mlir::jx::PolicyAttr;
using mlir::jx::PolicyKind;

namespace cotangent {

PolicyAttr Policy::build(MLIRContext *ctx, std::string &error) const {
  return build_(ctx, error);
}

namespace policies {
namespace {

std::string quoted(const std::vector<std::string> &names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", '" : "'") + names[i] + "'";
  return s;
}

/// The parameters of a #jx.policy, held without a context until it is built.
struct Parameters {
  PolicyKind kind;
  std::vector<std::string> names, offloaded;
  std::optional<std::pair<std::string, std::string>> memoryKinds;
  std::vector<Policy> operands;
  std::optional<MemoryBudget> budget;
};

/// A policy whose attribute is built, and verified by the dialect, when a
/// remat is emitted; `arguments` is JAX's spelling of its arguments.
Policy make(Parameters params, const std::string &arguments) {
  std::string description = stringifyPolicyKind(params.kind).str() + arguments;
  return Policy(description, [params](MLIRContext *ctx, std::string &error) -> PolicyAttr {
    SmallVector<PolicyAttr> operands;
    for (const Policy &operand : params.operands) {
      operands.push_back(operand.build(ctx, error));
      if (!operands.back())
        return {};
    }
    auto attrs = [&](const std::vector<std::string> &names) {
      return llvm::map_to_vector(names, [&](const std::string &n) { return StringAttr::get(ctx, n); });
    };
    StringAttr src, dst;
    if (params.memoryKinds) {
      src = StringAttr::get(ctx, params.memoryKinds->first);
      dst = StringAttr::get(ctx, params.memoryKinds->second);
    }
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      if (error.empty())
        error = diag.str();
      return success();
    });
    SmallVector<StringAttr> names = attrs(params.names), offloaded = attrs(params.offloaded);
    Attribute budget;
    if (params.budget && params.budget->bytes)
      budget = IntegerAttr::get(IntegerType::get(ctx, 64), *params.budget->bytes);
    else if (params.budget)
      budget = FloatAttr::get(Float64Type::get(ctx), *params.budget->fraction);
    return PolicyAttr::getChecked([&] { return emitError(UnknownLoc::get(ctx)); }, ctx,
                                  params.kind, ArrayRef<StringAttr>(names),
                                  ArrayRef<StringAttr>(offloaded), src, dst,
                                  ArrayRef<PolicyAttr>(operands), budget);
  });
}

// One builder per signature; Policies.def instantiates them per policy.
Policy plain(PolicyKind kind) { return make({kind, {}, {}, {}, {}, {}}, ""); }

Policy named(PolicyKind kind, std::vector<std::string> names) {
  std::string arguments = "(" + quoted(names) + ")";
  return make({kind, std::move(names), {}, {}, {}, {}}, arguments);
}

Policy saveOffload(PolicyKind kind, std::vector<std::string> saved,
                   std::vector<std::string> offloaded, std::string src, std::string dst) {
  std::string arguments = "([" + quoted(saved) + "], [" + quoted(offloaded) + "], '" + src +
                          "', '" + dst + "')";
  return make({kind, std::move(saved), std::move(offloaded), {{src, dst}}, {}, {}}, arguments);
}

Policy memoryKinds(PolicyKind kind, std::string src, std::string dst) {
  std::string arguments = "('" + src + "', '" + dst + "')";
  return make({kind, {}, {}, {{src, dst}}, {}, {}}, arguments);
}

Policy composed(PolicyKind kind, const Policy &p, const Policy &q) {
  return make({kind, {}, {}, {}, {p, q}, {}}, "(" + p.str() + ", " + q.str() + ")");
}

Policy budgeted(PolicyKind kind, MemoryBudget budget) {
  std::string arguments =
      "(" + (budget.bytes ? std::to_string(*budget.bytes) : std::to_string(*budget.fraction)) + ")";
  return make({kind, {}, {}, {}, {}, budget}, arguments);
}

} // namespace

#define COTANGENT_POLICY_Plain(fn, kind)                                                      \
  Policy fn() { return plain(PolicyKind::kind); }
#define COTANGENT_POLICY_Names(fn, kind)                                                      \
  Policy fn(std::vector<std::string> names) { return named(PolicyKind::kind, std::move(names)); }
#define COTANGENT_POLICY_SaveOffload(fn, kind)                                                \
  Policy fn(std::vector<std::string> saved, std::vector<std::string> offloaded,               \
            std::string src, std::string dst) {                                               \
    return saveOffload(PolicyKind::kind, std::move(saved), std::move(offloaded),              \
                       std::move(src), std::move(dst));                                       \
  }
#define COTANGENT_POLICY_MemoryKinds(fn, kind)                                                \
  Policy fn(std::string src, std::string dst) {                                               \
    return memoryKinds(PolicyKind::kind, std::move(src), std::move(dst));                     \
  }
#define COTANGENT_POLICY_Policies(fn, kind)                                                   \
  Policy fn(const Policy &p, const Policy &q) { return composed(PolicyKind::kind, p, q); }
#define COTANGENT_POLICY_Budget(fn, kind)                                                     \
  Policy fn(MemoryBudget budget) { return budgeted(PolicyKind::kind, budget); }
#define JX_POLICY(name, signature, ...) COTANGENT_POLICY_##signature(name, name)
#define JX_POLICY_ALIAS(alias, name, signature) COTANGENT_POLICY_##signature(alias, name)
#include "dialects/jx/Policies.def"

Policy parse(std::string text) {
  return Policy(text, [text](MLIRContext *ctx, std::string &error) {
    return PolicyAttr::parsePolicy(ctx, text, error);
  });
}

} // namespace policies

Tensor checkpoint_name(const Tensor &x, const std::string &name, SrcLoc loc) {
  Value v = detail::use(x, "checkpoint_name", loc);
  detail::TraceState &s = detail::activeTrace("checkpoint_name", loc);
  return detail::wrap(detail::emit<jx::CheckpointNameOp>("checkpoint_name", loc, v,
                                                         s.builder().getStringAttr(name)));
}

namespace detail {

void throwStaticArgumentError(size_t index, bool isTensor, const SrcLoc &loc) {
  std::string i = std::to_string(index);
  throwTraceError("remat",
                  isTensor ? "argument " + i + " is listed in static_argnums but holds Tensors"
                           : "argument " + i + " is not a tree of Tensors; list it in "
                                               "static_argnums to pass it as a static value",
                  {}, loc);
}

std::vector<Tensor> emitRemat(const std::vector<Tensor> &operands,
                              const std::function<std::vector<Tensor>(std::vector<Tensor>)> &trace,
                              const CheckpointOptions &opts, const SrcLoc &loc) {
  RegionTrace region("remat", opts.name, loc);
  TraceState &s = region.state();
  Policy policy = opts.policy ? *opts.policy : policies::nothing_saveable();
  std::string error;
  PolicyAttr attr = policy.build(s.context(), error);
  if (!attr)
    throwTraceError("remat", "invalid policy " + policy.str() + ": " + error, {}, loc);

  SmallVector<Value> outer = useAll(operands, "remat", loc);
  std::vector<Tensor> inner = region.begin(ValueRange(outer).getTypes(), outer.size());
  std::vector<Tensor> results = trace(std::move(inner));
  std::unique_ptr<Frame> frame = region.end(results);

  outer.append(frame->captured.begin(), frame->captured.end());
  SmallVector<Type> resultTypes(frame->block->getTerminator()->getOperandTypes());
  OpBuilder &b = s.builder();
  auto op = jx::RematOp::create(b, region.location(), resultTypes, outer, attr,
                                b.getBoolAttr(opts.prevent_cse));
  op.getBody().takeBody(*frame->region);
  s.verifyOrThrow(op, "remat", loc);
  std::vector<Tensor> out;
  for (Value r : op.getResults())
    out.push_back(wrap(r));
  return out;
}

} // namespace detail
} // namespace cotangent
