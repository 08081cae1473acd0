//===- Checkpoint.cpp - jx.remat emission, policies, checkpoint_name ------===//

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

std::vector<StringRef> refs(const std::vector<std::string> &names) {
  return {names.begin(), names.end()};
}

Policy simple(PolicyKind kind, std::string description) {
  return Policy(std::move(description),
                [kind](MLIRContext *ctx, std::string &) { return PolicyAttr::get(ctx, kind); });
}

Policy named(PolicyKind kind, std::string description, std::vector<std::string> names) {
  return Policy(description + "(" + quoted(names) + ")",
                [kind, names](MLIRContext *ctx, std::string &) {
                  return PolicyAttr::getNamed(ctx, kind, refs(names));
                });
}

} // namespace

Policy everything_saveable() {
  return simple(PolicyKind::everything_saveable, "everything_saveable");
}
Policy nothing_saveable() { return simple(PolicyKind::nothing_saveable, "nothing_saveable"); }
Policy dots_saveable() { return simple(PolicyKind::dots_saveable, "dots_saveable"); }
Policy checkpoint_dots() { return dots_saveable(); }
Policy dots_with_no_batch_dims_saveable() {
  return simple(PolicyKind::dots_with_no_batch_dims_saveable, "dots_with_no_batch_dims_saveable");
}
Policy checkpoint_dots_with_no_batch_dims() { return dots_with_no_batch_dims_saveable(); }

Policy save_only_these_names(std::vector<std::string> names) {
  return named(PolicyKind::save_only_these_names, "save_only_these_names", std::move(names));
}
Policy save_any_names_but_these(std::vector<std::string> names) {
  return named(PolicyKind::save_any_names_but_these, "save_any_names_but_these", std::move(names));
}
Policy save_anything_except_these_names(std::vector<std::string> names) {
  return named(PolicyKind::save_anything_except_these_names, "save_anything_except_these_names",
               std::move(names));
}
Policy save_anything_but_these_names(std::vector<std::string> names) {
  return save_anything_except_these_names(std::move(names));
}

Policy save_and_offload_only_these_names(std::vector<std::string> saved,
                                         std::vector<std::string> offloaded, std::string src,
                                         std::string dst) {
  std::string description = "save_and_offload_only_these_names([" + quoted(saved) + "], [" +
                            quoted(offloaded) + "], '" + src + "', '" + dst + "')";
  return Policy(description, [=](MLIRContext *ctx, std::string &error) -> PolicyAttr {
    for (const std::string &n : offloaded)
      if (std::find(saved.begin(), saved.end(), n) != saved.end()) {
        error = "name '" + n + "' is both saveable and offloadable; the two sets must be disjoint";
        return {};
      }
    if (src.empty() || dst.empty()) {
      error = "needs a source and a destination memory kind";
      return {};
    }
    return PolicyAttr::getSaveAndOffload(ctx, refs(saved), refs(offloaded), src, dst);
  });
}

Policy offload_dot_with_no_batch_dims(std::string src, std::string dst) {
  return Policy("offload_dot_with_no_batch_dims('" + src + "', '" + dst + "')",
                [=](MLIRContext *ctx, std::string &error) -> PolicyAttr {
                  if (src.empty() || dst.empty()) {
                    error = "needs a source and a destination memory kind";
                    return {};
                  }
                  return PolicyAttr::getOffloadDots(ctx, src, dst);
                });
}

Policy save_from_both_policies(const Policy &p, const Policy &q) {
  return Policy("save_from_both_policies(" + p.str() + ", " + q.str() + ")",
                [p, q](MLIRContext *ctx, std::string &error) -> PolicyAttr {
                  PolicyAttr a = p.build(ctx, error);
                  PolicyAttr b = a ? q.build(ctx, error) : PolicyAttr();
                  return a && b ? PolicyAttr::getBoth(a, b) : PolicyAttr();
                });
}

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
