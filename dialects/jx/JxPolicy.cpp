//===- JxPolicy.cpp - the remat policy attribute --------------------------===//
//
// Parsing, printing, verification and evaluation of #jx.policy. The syntax
// is JAX's call syntax for the policy constructors:
//
//   #jx.policy<dots_with_no_batch_dims_saveable>
//   #jx.policy<save_only_these_names("a", "b")>
//   #jx.policy<save_and_offload_only_these_names(["a"], ["b"], "device", "pinned_host")>
//   #jx.policy<save_from_both_policies(dots_saveable, save_only_these_names("a"))>
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::jx;

namespace {

/// Every accepted spelling, aliases last.
constexpr std::pair<const char *, PolicyKind> kPolicyNames[] = {
    {"everything_saveable", PolicyKind::everything_saveable},
    {"nothing_saveable", PolicyKind::nothing_saveable},
    {"dots_saveable", PolicyKind::dots_saveable},
    {"dots_with_no_batch_dims_saveable", PolicyKind::dots_with_no_batch_dims_saveable},
    {"save_only_these_names", PolicyKind::save_only_these_names},
    {"save_any_names_but_these", PolicyKind::save_any_names_but_these},
    {"save_anything_except_these_names", PolicyKind::save_anything_except_these_names},
    {"save_and_offload_only_these_names", PolicyKind::save_and_offload_only_these_names},
    {"offload_dot_with_no_batch_dims", PolicyKind::offload_dot_with_no_batch_dims},
    {"save_from_both_policies", PolicyKind::save_from_both_policies},
    {"checkpoint_dots", PolicyKind::dots_saveable},
    {"checkpoint_dots_with_no_batch_dims", PolicyKind::dots_with_no_batch_dims_saveable},
    {"save_anything_but_these_names", PolicyKind::save_anything_except_these_names},
};

std::optional<PolicyKind> kindFromName(StringRef name) {
  for (auto [spelling, kind] : kPolicyNames)
    if (name == spelling)
      return kind;
  return std::nullopt;
}

bool takesNameList(PolicyKind k) {
  return k == PolicyKind::save_only_these_names || k == PolicyKind::save_any_names_but_these ||
         k == PolicyKind::save_anything_except_these_names;
}

SmallVector<StringAttr> toAttrs(MLIRContext *ctx, ArrayRef<StringRef> names) {
  return llvm::map_to_vector(names, [&](StringRef n) { return StringAttr::get(ctx, n); });
}

bool contains(ArrayRef<StringAttr> names, StringRef name) {
  return llvm::any_of(names, [&](StringAttr a) { return a.getValue() == name; });
}

ParseResult parseStringList(AsmParser &p, AsmParser::Delimiter delim,
                            SmallVectorImpl<StringAttr> &out) {
  return p.parseCommaSeparatedList(delim, [&]() -> ParseResult {
    std::string s;
    if (p.parseString(&s))
      return failure();
    out.push_back(StringAttr::get(p.getContext(), s));
    return success();
  });
}

FailureOr<PolicyAttr> parsePolicyBody(AsmParser &p) {
  MLIRContext *ctx = p.getContext();
  SMLoc loc = p.getCurrentLocation();
  StringRef name;
  if (p.parseOptionalKeyword(&name)) {
    p.emitError(loc, "expected a remat policy name");
    return failure();
  }
  std::optional<PolicyKind> kind = kindFromName(name);
  if (!kind) {
    auto diag = p.emitError(loc) << "unknown remat policy '" << name << "'; expected one of: ";
    llvm::interleaveComma(kPolicyNames, diag, [&](auto &entry) { diag << entry.first; });
    return failure();
  }
  // getChecked reports a failed verify as a null attribute, which FailureOr
  // would take for success: a composition would then hold a null policy.
  auto emit = [&](auto &&...parts) -> FailureOr<PolicyAttr> {
    PolicyAttr policy =
        PolicyAttr::getChecked([&] { return p.emitError(loc); }, ctx, parts...);
    if (!policy)
      return failure();
    return policy;
  };
  SmallVector<StringAttr> names, offloaded;
  std::string src, dst;
  switch (*kind) {
  case PolicyKind::everything_saveable:
  case PolicyKind::nothing_saveable:
  case PolicyKind::dots_saveable:
  case PolicyKind::dots_with_no_batch_dims_saveable:
    if (succeeded(p.parseOptionalLParen())) {
      p.emitError(loc) << "remat policy '" << name << "' takes no arguments";
      return failure();
    }
    return emit(*kind, ArrayRef<StringAttr>(), ArrayRef<StringAttr>(), StringAttr(),
                StringAttr(), ArrayRef<PolicyAttr>());
  case PolicyKind::save_only_these_names:
  case PolicyKind::save_any_names_but_these:
  case PolicyKind::save_anything_except_these_names:
    if (parseStringList(p, AsmParser::Delimiter::Paren, names))
      return failure();
    return emit(*kind, ArrayRef<StringAttr>(names), ArrayRef<StringAttr>(), StringAttr(),
                StringAttr(), ArrayRef<PolicyAttr>());
  case PolicyKind::save_and_offload_only_these_names:
    if (p.parseLParen() || parseStringList(p, AsmParser::Delimiter::Square, names) ||
        p.parseComma() || parseStringList(p, AsmParser::Delimiter::Square, offloaded) ||
        p.parseComma() || p.parseString(&src) || p.parseComma() || p.parseString(&dst) ||
        p.parseRParen())
      return failure();
    return emit(*kind, ArrayRef<StringAttr>(names), ArrayRef<StringAttr>(offloaded),
                StringAttr::get(ctx, src), StringAttr::get(ctx, dst), ArrayRef<PolicyAttr>());
  case PolicyKind::offload_dot_with_no_batch_dims:
    if (p.parseLParen() || p.parseString(&src) || p.parseComma() || p.parseString(&dst) ||
        p.parseRParen())
      return failure();
    return emit(*kind, ArrayRef<StringAttr>(), ArrayRef<StringAttr>(), StringAttr::get(ctx, src),
                StringAttr::get(ctx, dst), ArrayRef<PolicyAttr>());
  case PolicyKind::save_from_both_policies: {
    SmallVector<PolicyAttr> operands;
    if (p.parseCommaSeparatedList(AsmParser::Delimiter::Paren, [&]() -> ParseResult {
          FailureOr<PolicyAttr> sub = parsePolicyBody(p);
          if (failed(sub))
            return failure();
          operands.push_back(*sub);
          return success();
        }))
      return failure();
    return emit(*kind, ArrayRef<StringAttr>(), ArrayRef<StringAttr>(), StringAttr(),
                StringAttr(), ArrayRef<PolicyAttr>(operands));
  }
  }
  llvm_unreachable("all policy kinds handled");
}

void printStrings(AsmPrinter &printer, ArrayRef<StringAttr> names) {
  llvm::interleaveComma(names, printer, [&](StringAttr s) { printer.printString(s.getValue()); });
}

void printPolicyBody(AsmPrinter &printer, PolicyAttr policy) {
  printer << stringifyPolicyKind(policy.getKind());
  switch (policy.getKind()) {
  case PolicyKind::save_only_these_names:
  case PolicyKind::save_any_names_but_these:
  case PolicyKind::save_anything_except_these_names:
    printer << "(";
    printStrings(printer, policy.getNames());
    printer << ")";
    return;
  case PolicyKind::save_and_offload_only_these_names:
    printer << "([";
    printStrings(printer, policy.getNames());
    printer << "], [";
    printStrings(printer, policy.getOffloadNames());
    printer << "], ";
    printer.printString(policy.getOffloadSrc().getValue());
    printer << ", ";
    printer.printString(policy.getOffloadDst().getValue());
    printer << ")";
    return;
  case PolicyKind::offload_dot_with_no_batch_dims:
    printer << "(";
    printer.printString(policy.getOffloadSrc().getValue());
    printer << ", ";
    printer.printString(policy.getOffloadDst().getValue());
    printer << ")";
    return;
  case PolicyKind::save_from_both_policies:
    printer << "(";
    llvm::interleaveComma(policy.getOperands(), printer,
                          [&](PolicyAttr sub) { printPolicyBody(printer, sub); });
    printer << ")";
    return;
  default:
    return;
  }
}

} // namespace

Attribute PolicyAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  FailureOr<PolicyAttr> policy = parsePolicyBody(parser);
  if (failed(policy) || parser.parseGreater())
    return {};
  return *policy;
}

void PolicyAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printPolicyBody(printer, *this);
  printer << ">";
}

LogicalResult PolicyAttr::verify(function_ref<InFlightDiagnostic()> emitError, PolicyKind kind,
                                 ArrayRef<StringAttr> names, ArrayRef<StringAttr> offloadNames,
                                 StringAttr src, StringAttr dst, ArrayRef<PolicyAttr> operands) {
  bool wantsNames = takesNameList(kind) || kind == PolicyKind::save_and_offload_only_these_names;
  bool wantsOffload = kind == PolicyKind::save_and_offload_only_these_names ||
                      kind == PolicyKind::offload_dot_with_no_batch_dims;
  bool wantsOperands = kind == PolicyKind::save_from_both_policies;
  StringRef name = stringifyPolicyKind(kind);
  if (!wantsNames && !names.empty())
    return emitError() << "remat policy '" << name << "' takes no names";
  if (kind != PolicyKind::save_and_offload_only_these_names && !offloadNames.empty())
    return emitError() << "remat policy '" << name << "' takes no offloaded names";
  if (wantsOffload && (!src || !dst || src.getValue().empty() || dst.getValue().empty()))
    return emitError() << "remat policy '" << name
                       << "' needs a source and a destination memory kind";
  if (!wantsOffload && (src || dst))
    return emitError() << "remat policy '" << name << "' takes no memory kinds";
  if (wantsOperands != !operands.empty() || (wantsOperands && operands.size() != 2))
    return emitError() << "remat policy '" << name << "' "
                       << (wantsOperands ? "combines exactly 2 policies" : "takes no policies");
  for (StringAttr n : offloadNames)
    if (contains(names, n.getValue()))
      return emitError() << "name '" << n.getValue()
                         << "' is both saveable and offloadable; the two sets must be disjoint";
  return success();
}

PolicyAttr::Decision PolicyAttr::decide(Operation *op) const {
  auto dot = dyn_cast<DotGeneralOp>(op);
  auto named = dyn_cast<CheckpointNameOp>(op);
  bool noBatchDot = dot && dot.hasNoBatchDims();
  auto nameIn = [&](ArrayRef<StringAttr> names) {
    return named && contains(names, named.getName());
  };
  switch (getKind()) {
  case PolicyKind::everything_saveable:
    return Decision::Save;
  case PolicyKind::nothing_saveable:
    return Decision::Recompute;
  case PolicyKind::dots_saveable:
    return dot ? Decision::Save : Decision::Recompute;
  case PolicyKind::dots_with_no_batch_dims_saveable:
    return noBatchDot ? Decision::Save : Decision::Recompute;
  case PolicyKind::save_only_these_names:
    return nameIn(getNames()) ? Decision::Save : Decision::Recompute;
  case PolicyKind::save_any_names_but_these:
    return named && !nameIn(getNames()) ? Decision::Save : Decision::Recompute;
  case PolicyKind::save_anything_except_these_names:
    return nameIn(getNames()) ? Decision::Recompute : Decision::Save;
  case PolicyKind::save_and_offload_only_these_names:
    if (nameIn(getNames()))
      return Decision::Save;
    return nameIn(getOffloadNames()) ? Decision::Offload : Decision::Recompute;
  case PolicyKind::offload_dot_with_no_batch_dims:
    return noBatchDot ? Decision::Offload : Decision::Recompute;
  case PolicyKind::save_from_both_policies: {
    // Save beats offload beats recompute: the union of what both allow.
    Decision a = getOperands()[0].decide(op), b = getOperands()[1].decide(op);
    if (a == Decision::Save || b == Decision::Save)
      return Decision::Save;
    if (a == Decision::Offload || b == Decision::Offload)
      return Decision::Offload;
    return Decision::Recompute;
  }
  }
  llvm_unreachable("all policy kinds handled");
}

PolicyAttr PolicyAttr::get(MLIRContext *ctx, PolicyKind kind) {
  return get(ctx, kind, {}, {}, StringAttr(), StringAttr(), {});
}

PolicyAttr PolicyAttr::getNamed(MLIRContext *ctx, PolicyKind kind, ArrayRef<StringRef> names) {
  return get(ctx, kind, toAttrs(ctx, names), {}, StringAttr(), StringAttr(), {});
}

PolicyAttr PolicyAttr::getSaveAndOffload(MLIRContext *ctx, ArrayRef<StringRef> saved,
                                         ArrayRef<StringRef> offloaded, StringRef src,
                                         StringRef dst) {
  return get(ctx, PolicyKind::save_and_offload_only_these_names, toAttrs(ctx, saved),
             toAttrs(ctx, offloaded), StringAttr::get(ctx, src), StringAttr::get(ctx, dst), {});
}

PolicyAttr PolicyAttr::getOffloadDots(MLIRContext *ctx, StringRef src, StringRef dst) {
  return get(ctx, PolicyKind::offload_dot_with_no_batch_dims, {}, {}, StringAttr::get(ctx, src),
             StringAttr::get(ctx, dst), {});
}

PolicyAttr PolicyAttr::getBoth(PolicyAttr p, PolicyAttr q) {
  return get(p.getContext(), PolicyKind::save_from_both_policies, {}, {}, StringAttr(),
             StringAttr(), {p, q});
}

PolicyAttr PolicyAttr::parsePolicy(MLIRContext *ctx, StringRef text, std::string &error) {
  ctx->getOrLoadDialect<JxDialect>();
  std::string message;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (message.empty())
      message = diag.str();
    return success();
  });
  Attribute attr = mlir::parseAttribute(("#jx.policy<" + text + ">").str(), ctx);
  auto policy = dyn_cast_if_present<PolicyAttr>(attr);
  if (!policy)
    error = message.empty() ? "invalid remat policy '" + text.str() + "'" : message;
  return policy;
}
