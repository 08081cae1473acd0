//===- JxPolicy.cpp - the remat policy attribute --------------------------===//
//
// Parsing, printing, verification and evaluation of #jx.policy. The syntax
// is JAX's call syntax for the policy constructors. Everything here follows
// the table in Policies.def: the parser, printer and verifier switch on a
// policy's signature, `decide` evaluates the table's decision expressions.
//
//   #jx.policy<dots_with_no_batch_dims_saveable>
//   #jx.policy<save_only_these_names("a", "b")>
//   #jx.policy<save_and_offload_only_these_names(["a"], ["b"], "device", "pinned_host")>
//   #jx.policy<save_from_both_policies(dots_saveable, save_only_these_names("a"))>
//   #jx.policy<memory_budget(1048576)>     (bytes)
//   #jx.policy<memory_budget(0.5)>         (of the peak without remat)
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"

#include <charconv>

using namespace mlir;
using namespace mlir::jx;

namespace {

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
  std::optional<PolicyKind> kind = symbolizePolicyKind(name);
  if (!kind) {
    auto diag = p.emitError(loc) << "unknown remat policy '" << name << "'; expected one of: ";
    llvm::interleaveComma(kPolicySpellings, diag,
                          [&](const PolicySpelling &spelling) { diag << spelling.name; });
    return failure();
  }
  SmallVector<StringAttr> names, offloaded;
  SmallVector<PolicyAttr> operands;
  Attribute budget;
  std::string src, dst;
  auto parseMemoryKinds = [&]() -> ParseResult {
    if (p.parseString(&src) || p.parseComma() || p.parseString(&dst))
      return failure();
    return success();
  };
  switch (getPolicySignature(*kind)) {
  case PolicySignature::Plain:
    if (succeeded(p.parseOptionalLParen())) {
      p.emitError(loc) << "remat policy '" << name << "' takes no arguments";
      return failure();
    }
    break;
  case PolicySignature::Names:
    if (parseStringList(p, AsmParser::Delimiter::Paren, names))
      return failure();
    break;
  case PolicySignature::SaveOffload:
    if (p.parseLParen() || parseStringList(p, AsmParser::Delimiter::Square, names) ||
        p.parseComma() || parseStringList(p, AsmParser::Delimiter::Square, offloaded) ||
        p.parseComma() || parseMemoryKinds() || p.parseRParen())
      return failure();
    break;
  case PolicySignature::MemoryKinds:
    if (p.parseLParen() || parseMemoryKinds() || p.parseRParen())
      return failure();
    break;
  case PolicySignature::Policies:
    if (p.parseCommaSeparatedList(AsmParser::Delimiter::Paren, [&]() -> ParseResult {
          FailureOr<PolicyAttr> sub = parsePolicyBody(p);
          if (failed(sub))
            return failure();
          operands.push_back(*sub);
          return success();
        }))
      return failure();
    break;
  case PolicySignature::Budget:
    // An integer literal parses as i64 (bytes), a float one as f64 (fraction).
    if (p.parseLParen() || p.parseAttribute(budget) || p.parseRParen())
      return failure();
    break;
  }
  // Memory kinds are absent, not empty, where the signature has none.
  auto memoryKind = [&](const std::string &s) {
    bool takesThem = getPolicySignature(*kind) == PolicySignature::SaveOffload ||
                     getPolicySignature(*kind) == PolicySignature::MemoryKinds;
    return takesThem ? StringAttr::get(ctx, s) : StringAttr();
  };
  PolicyAttr policy = PolicyAttr::getChecked(
      [&] { return p.emitError(loc); }, ctx, *kind, ArrayRef<StringAttr>(names),
      ArrayRef<StringAttr>(offloaded), memoryKind(src), memoryKind(dst),
      ArrayRef<PolicyAttr>(operands), budget);
  // getChecked reports a failed verify as a null attribute, which FailureOr
  // would take for success: a composition would then hold a null policy.
  if (!policy)
    return failure();
  return policy;
}

void printStrings(AsmPrinter &printer, ArrayRef<StringAttr> names) {
  llvm::interleaveComma(names, printer, [&](StringAttr s) { printer.printString(s.getValue()); });
}

/// The shortest spelling that reads back as the same float (and as a float:
/// "1.0", not "1", which would be bytes).
std::string printedFraction(double fraction) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), fraction);
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

void printPolicyBody(AsmPrinter &printer, PolicyAttr policy) {
  printer << stringifyPolicyKind(policy.getKind());
  auto printMemoryKinds = [&] {
    printer.printString(policy.getOffloadSrc().getValue());
    printer << ", ";
    printer.printString(policy.getOffloadDst().getValue());
  };
  switch (getPolicySignature(policy.getKind())) {
  case PolicySignature::Plain:
    return;
  case PolicySignature::Names:
    printer << "(";
    printStrings(printer, policy.getNames());
    printer << ")";
    return;
  case PolicySignature::SaveOffload:
    printer << "([";
    printStrings(printer, policy.getNames());
    printer << "], [";
    printStrings(printer, policy.getOffloadNames());
    printer << "], ";
    printMemoryKinds();
    printer << ")";
    return;
  case PolicySignature::MemoryKinds:
    printer << "(";
    printMemoryKinds();
    printer << ")";
    return;
  case PolicySignature::Policies:
    printer << "(";
    llvm::interleaveComma(policy.getOperands(), printer,
                          [&](PolicyAttr sub) { printPolicyBody(printer, sub); });
    printer << ")";
    return;
  case PolicySignature::Budget:
    printer << "(";
    if (auto bytes = policy.getBudgetBytes())
      printer << *bytes;
    else
      printer << printedFraction(cast<FloatAttr>(policy.getBudget()).getValueAsDouble());
    printer << ")";
    return;
  }
}

/// What the decision expressions of Policies.def may ask about a value: the
/// facts JAX's policies look at (is it a dot, is it named, and how).
struct PolicyQuery {
  Operation *op;
  bool chosen;

  /// Fused attention is two batched products: its output and logsumexp are
  /// what a dot policy keeps of it (JAX's xla attention keeps the products'
  /// [B, N, T, S] scores instead; the fused op never has them).
  bool isDot() const { return isa<DotGeneralOp, DotProductAttentionOp>(op); }
  bool isDotWithoutBatchDims() const {
    auto dot = dyn_cast<DotGeneralOp>(op);
    return dot && dot.hasNoBatchDims();
  }
  bool isNamed() const { return isa<CheckpointNameOp>(op); }
  bool isNamedIn(ArrayRef<StringAttr> names) const {
    auto named = dyn_cast<CheckpointNameOp>(op);
    return named && contains(names, named.getName());
  }
};

/// The union of two decisions: save beats offload beats recompute.
PolicyAttr::Decision strongest(PolicyAttr::Decision a, PolicyAttr::Decision b) {
  using Decision = PolicyAttr::Decision;
  if (a == Decision::Save || b == Decision::Save)
    return Decision::Save;
  if (a == Decision::Offload || b == Decision::Offload)
    return Decision::Offload;
  return Decision::Recompute;
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
                                 StringAttr src, StringAttr dst, ArrayRef<PolicyAttr> operands,
                                 Attribute budget) {
  PolicySignature signature = getPolicySignature(kind);
  bool wantsNames = signature == PolicySignature::Names || signature == PolicySignature::SaveOffload;
  bool wantsOffload =
      signature == PolicySignature::SaveOffload || signature == PolicySignature::MemoryKinds;
  bool wantsOperands = signature == PolicySignature::Policies;
  StringRef name = stringifyPolicyKind(kind);
  if (!wantsNames && !names.empty())
    return emitError() << "remat policy '" << name << "' takes no names";
  if (signature != PolicySignature::SaveOffload && !offloadNames.empty())
    return emitError() << "remat policy '" << name << "' takes no offloaded names";
  if (wantsOffload && (!src || !dst || src.getValue().empty() || dst.getValue().empty()))
    return emitError() << "remat policy '" << name
                       << "' needs a source and a destination memory kind";
  if (!wantsOffload && (src || dst))
    return emitError() << "remat policy '" << name << "' takes no memory kinds";
  if (wantsOperands != !operands.empty() || (wantsOperands && operands.size() != 2))
    return emitError() << "remat policy '" << name << "' "
                       << (wantsOperands ? "combines exactly 2 policies" : "takes no policies");
  if (llvm::any_of(operands, [](PolicyAttr p) { return !p; }))
    return emitError() << "remat policy '" << name << "' combines a null policy";
  if (signature == PolicySignature::Budget) {
    auto bytes = dyn_cast_if_present<IntegerAttr>(budget);
    auto fraction = dyn_cast_if_present<FloatAttr>(budget);
    if (bytes ? bytes.getValue().getSExtValue() <= 0
              : !fraction || !(fraction.getValueAsDouble() > 0 && fraction.getValueAsDouble() <= 1))
      return emitError() << "remat policy '" << name
                         << "' takes a budget in bytes (an integer > 0) or a fraction of the "
                            "peak without remat (a float in (0, 1])";
  } else if (budget) {
    return emitError() << "remat policy '" << name << "' takes no budget";
  }
  for (PolicyAttr operand : operands)
    if (operand && getPolicySignature(operand.getKind()) == PolicySignature::Budget)
      return emitError() << "remat policy '" << name
                         << "' cannot combine memory_budget: a budget bounds the whole step";
  for (StringAttr n : offloadNames)
    if (contains(names, n.getValue()))
      return emitError() << "name '" << n.getValue()
                         << "' is both saveable and offloadable; the two sets must be disjoint";
  return success();
}

PolicyAttr::MinimumCut PolicyAttr::getMinimumCut() const {
  switch (getKind()) {
  case PolicyKind::min_residual_bytes:
    return MinimumCut::Elementwise;
  case PolicyKind::min_residual_bytes_recomputing_dots:
    return MinimumCut::WithDots;
  default:
    break;
  }
  MinimumCut most = MinimumCut::None;
  for (PolicyAttr sub : getOperands())
    most = std::max(most, sub.getMinimumCut());
  return most;
}

std::optional<int64_t> PolicyAttr::getBudgetBytes() const {
  if (auto bytes = dyn_cast_if_present<IntegerAttr>(getBudget()))
    return bytes.getValue().getSExtValue();
  return std::nullopt;
}

std::optional<double> PolicyAttr::getBudgetFraction() const {
  if (auto fraction = dyn_cast_if_present<FloatAttr>(getBudget()))
    return fraction.getValueAsDouble();
  return std::nullopt;
}

PolicyAttr::Decision PolicyAttr::decide(Operation *op, bool chosen) const {
  // The names the decision expressions of Policies.def are written in.
  constexpr Decision Save = Decision::Save, Offload = Decision::Offload,
                     Recompute = Decision::Recompute;
  (void)Save, (void)Offload, (void)Recompute;
  PolicyAttr policy = *this;
  PolicyQuery value{op, chosen};
  switch (getKind()) {
#define JX_POLICY(name, signature, saveable, offloadable, ...)                                \
  case PolicyKind::name:                                                                      \
    return __VA_ARGS__;
#include "dialects/jx/Policies.def"
  }
  llvm_unreachable("all policy kinds handled");
}

PolicyAttr PolicyAttr::get(MLIRContext *ctx, PolicyKind kind) {
  return get(ctx, kind, {}, {}, StringAttr(), StringAttr(), {}, Attribute());
}

PolicyAttr PolicyAttr::getNamed(MLIRContext *ctx, PolicyKind kind, ArrayRef<StringRef> names) {
  return get(ctx, kind, toAttrs(ctx, names), {}, StringAttr(), StringAttr(), {}, Attribute());
}

PolicyAttr PolicyAttr::getSaveAndOffload(MLIRContext *ctx, PolicyKind kind,
                                         ArrayRef<StringRef> saved,
                                         ArrayRef<StringRef> offloaded, StringRef src,
                                         StringRef dst) {
  return get(ctx, kind, toAttrs(ctx, saved), toAttrs(ctx, offloaded), StringAttr::get(ctx, src),
             StringAttr::get(ctx, dst), {}, Attribute());
}

PolicyAttr PolicyAttr::getOffloading(MLIRContext *ctx, PolicyKind kind, StringRef src,
                                     StringRef dst) {
  return get(ctx, kind, {}, {}, StringAttr::get(ctx, src), StringAttr::get(ctx, dst), {},
             Attribute());
}

PolicyAttr PolicyAttr::getComposed(PolicyKind kind, PolicyAttr p, PolicyAttr q) {
  return get(p.getContext(), kind, {}, {}, StringAttr(), StringAttr(), {p, q}, Attribute());
}

PolicyAttr PolicyAttr::getBudgeted(MLIRContext *ctx, PolicyKind kind, Attribute budget) {
  return get(ctx, kind, {}, {}, StringAttr(), StringAttr(), {}, budget);
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
