//===- JxContract.cpp - verifying the jx attributes on other ops ----------===//
//
// The dialect's checks of every `jx.*` attribute it finds on an op, a
// function argument or a function result (declared in JxDialect.td), and the
// syntax and invariants of the contract attributes (#jx.forward, #jx.backward,
// #jx.residual, #jx.remat_scope). A split is checked from its forward: the
// backward exists and names it back, the counts add up, and every residual,
// cotangent and gradient has the type its other side expects. Errors are
// reported at the forward, with a note at the backward.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxSplit.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::jx;

namespace {

//===----------------------------------------------------------------------===//
// Syntax helpers
//===----------------------------------------------------------------------===//

/// `[1, 2]`
ParseResult parseIntList(AsmParser &p, SmallVectorImpl<int64_t> &out) {
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    int64_t v;
    if (p.parseInteger(v))
      return failure();
    out.push_back(v);
    return success();
  });
}

void printIntList(AsmPrinter &p, ArrayRef<int64_t> values) {
  p << "[";
  llvm::interleaveComma(values, p);
  p << "]";
}

/// `key = ` where `key` must be `expected`.
ParseResult parseKey(AsmParser &p, StringRef expected) {
  return failure(p.parseKeyword(expected) || p.parseEqual());
}

/// The op's location, for diagnostics about one of its attributes.
InFlightDiagnostic emitAttrError(Operation *op, StringRef name) {
  return op->emitOpError() << "attribute '" << name << "' ";
}

//===----------------------------------------------------------------------===//
// The split, checked from its forward
//===----------------------------------------------------------------------===//

func::FuncOp lookupFunction(Operation *from, FlatSymbolRefAttr name) {
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(from, name);
}

/// "(tensor<4xf32>, tensor<f32>)"
std::string typeList(TypeRange types) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "(";
  llvm::interleaveComma(types, os);
  os << ")";
  return s;
}

LogicalResult verifyPrimal(func::FuncOp fwd, ForwardAttr forward) {
  func::FuncOp primal = lookupFunction(fwd, forward.getPrimal());
  if (!primal)
    return emitAttrError(fwd, kForwardAttrName)
           << "names " << forward.getPrimal() << " as its primal, but there is no such function";
  TypeRange primalResults = fwd.getResultTypes().take_front(forward.getPrimalResults());
  if (primal.getArgumentTypes() != fwd.getArgumentTypes() ||
      TypeRange(primal.getResultTypes()) != primalResults)
    return (emitAttrError(fwd, kForwardAttrName)
            << "names " << forward.getPrimal() << " as its primal, which maps "
            << typeList(primal.getArgumentTypes()) << " to " << typeList(primal.getResultTypes())
            << ", but the forward maps " << typeList(fwd.getArgumentTypes()) << " to "
            << typeList(primalResults) << " (then its residuals)")
               .attachNote(primal.getLoc())
           << "the primal is here";
  return success();
}

LogicalResult verifyForward(func::FuncOp fwd, ForwardAttr forward) {
  StringRef attr = kForwardAttrName;
  if (getBackwardAttr(fwd))
    return emitAttrError(fwd, attr) << "on a function that is also a backward: a function is "
                                       "one half of one split";
  int64_t numPrimal = forward.getPrimalResults();
  if (numPrimal > static_cast<int64_t>(fwd.getNumResults()))
    return emitAttrError(fwd, attr) << "says " << numPrimal << " primal results, but the forward "
                                    << "returns only " << fwd.getNumResults();
  if (forward.getPrimal() && failed(verifyPrimal(fwd, forward)))
    return failure();

  func::FuncOp bwd = lookupFunction(fwd, forward.getBackward());
  if (!bwd)
    return emitAttrError(fwd, attr) << "names " << forward.getBackward()
                                    << " as the backward, but there is no such function";
  auto withNote = [&](InFlightDiagnostic &&diag) -> LogicalResult {
    diag.attachNote(bwd.getLoc()) << "the backward is here";
    return failure();
  };
  BackwardAttr backward = getBackwardAttr(bwd);
  if (!backward || backward.getForward().getAttr() != fwd.getSymNameAttr())
    return withNote(emitAttrError(fwd, attr)
                    << "names " << forward.getBackward() << " as the backward, but "
                    << forward.getBackward() << " does not name @" << fwd.getSymName()
                    << " as its forward");

  // Forward: (args) -> (primal results, residuals); backward: (residuals,
  // cotangents of the primal results) -> (cotangents of the args).
  int64_t numResiduals = backward.getResiduals();
  if (static_cast<int64_t>(fwd.getNumResults()) != numPrimal + numResiduals)
    return withNote(emitAttrError(fwd, attr)
                    << "does not match the backward: the forward returns " << fwd.getNumResults()
                    << " results, but the split has " << numPrimal << " primal results and "
                    << numResiduals << " residuals");
  if (static_cast<int64_t>(bwd.getNumArguments()) != numResiduals + numPrimal)
    return withNote(emitAttrError(fwd, attr)
                    << "does not match the backward: " << forward.getBackward() << " takes "
                    << bwd.getNumArguments() << " arguments, but the split has " << numResiduals
                    << " residuals and " << numPrimal << " cotangents");
  for (int64_t i = 0; i < numResiduals; ++i) {
    Type saved = fwd.getResultTypes()[numPrimal + i], taken = bwd.getArgumentTypes()[i];
    if (saved != taken)
      return withNote(emitAttrError(fwd, attr)
                      << "residual #" << i << " is " << saved << " here (result #"
                      << numPrimal + i << ") but " << taken << " in " << forward.getBackward()
                      << " (argument #" << i << ")");
    StringRef savedKind = getResultMemoryKind(fwd, numPrimal + i);
    StringRef takenKind = getArgMemoryKind(bwd, i);
    if (savedKind != takenKind)
      return withNote(emitAttrError(fwd, attr)
                      << "residual #" << i << " lives in memory kind '" << savedKind
                      << "' here but '" << takenKind << "' in " << forward.getBackward());
  }
  for (int64_t j = 0; j < numPrimal; ++j) {
    Type result = fwd.getResultTypes()[j], cotangent = bwd.getArgumentTypes()[numResiduals + j];
    if (result != cotangent)
      return withNote(emitAttrError(fwd, attr)
                      << "primal result #" << j << " is " << result << " but its cotangent, "
                      << "argument #" << numResiduals + j << " of " << forward.getBackward()
                      << ", is " << cotangent);
  }
  if (bwd.getResultTypes() != fwd.getArgumentTypes())
    return withNote(emitAttrError(fwd, attr)
                    << "takes " << typeList(fwd.getArgumentTypes()) << " but "
                    << forward.getBackward() << " returns " << typeList(bwd.getResultTypes())
                    << ": the backward returns one cotangent per argument, of its type");
  return success();
}

LogicalResult verifyBackward(func::FuncOp bwd, BackwardAttr backward) {
  StringRef attr = kBackwardAttrName;
  if (backward.getResiduals() > static_cast<int64_t>(bwd.getNumArguments()))
    return emitAttrError(bwd, attr) << "says " << backward.getResiduals()
                                    << " residuals, but the backward takes only "
                                    << bwd.getNumArguments() << " arguments";
  func::FuncOp fwd = lookupFunction(bwd, backward.getForward());
  if (!fwd)
    return emitAttrError(bwd, attr) << "names " << backward.getForward()
                                    << " as the forward, but there is no such function";
  ForwardAttr forward = getForwardAttr(fwd);
  if (!forward || forward.getBackward().getAttr() != bwd.getSymNameAttr())
    return (emitAttrError(bwd, attr) << "names " << backward.getForward()
                                     << " as the forward, but " << backward.getForward()
                                     << " does not name @" << bwd.getSymName()
                                     << " as its backward")
               .attachNote(fwd.getLoc())
           << "the forward is here";
  return success();
}

LogicalResult verifyScanSchedule(Operation *op, Attribute value) {
  StringRef attr = kScanScheduleAttrName;
  auto scan = dyn_cast<ScanOp>(op);
  if (!scan)
    return emitAttrError(op, attr) << "belongs on a jx.scan";
  auto lengths = dyn_cast<DenseI64ArrayAttr>(value);
  if (!lengths)
    return emitAttrError(op, attr) << "must be an array<i64> of lengths, got " << value;
  ArrayRef<int64_t> l = lengths.asArrayRef();
  if (l.size() < 2 || llvm::any_of(l, [](int64_t v) { return v < 1; }) ||
      l.front() != scan.getLength())
    return emitAttrError(op, attr) << "must list two or more positive lengths, the first being "
                                   << "the scan's length (" << scan.getLength() << "), got "
                                   << value;
  return success();
}

LogicalResult verifyName(Operation *op, StringRef attr, Attribute value) {
  auto name = dyn_cast<StringAttr>(value);
  if (!name || name.getValue().empty())
    return emitAttrError(op, attr) << "must be a non-empty string, got " << value;
  return success();
}

/// `jx.residual` on position `index` of `fn`, where the split puts residuals
/// at [first, first + count).
LogicalResult verifyResidualPosition(Operation *op, Attribute value, StringRef position,
                                     unsigned index, int64_t first, int64_t count,
                                     StringRef half) {
  StringRef attr = kResidualAttrName;
  if (!isa<ResidualAttr>(value))
    return emitAttrError(op, attr) << "must be a #jx.residual, got " << value;
  if (count < 0)
    return emitAttrError(op, attr) << "on " << position << " #" << index
                                   << " of a function that is not the " << half
                                   << " half of a split";
  if (static_cast<int64_t>(index) >= first && static_cast<int64_t>(index) < first + count)
    return success();
  InFlightDiagnostic diag = emitAttrError(op, attr) << "on " << position << " #" << index
                                                    << ", which is not a residual: ";
  if (count == 0)
    return diag << "the " << half << " has no residuals";
  return diag << "the residuals are " << position << "s #" << first << " to #"
              << first + count - 1;
}

} // namespace

//===----------------------------------------------------------------------===//
// The dialect hooks
//===----------------------------------------------------------------------===//

LogicalResult JxDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  Attribute value = attribute.getValue();
  if (name == kForwardAttrName || name == kBackwardAttrName) {
    auto fn = dyn_cast<func::FuncOp>(op);
    if (!fn)
      return emitAttrError(op, name) << "belongs on a func.func";
    if (auto forward = dyn_cast<ForwardAttr>(value); forward && name == kForwardAttrName)
      return verifyForward(fn, forward);
    if (auto backward = dyn_cast<BackwardAttr>(value);
        backward && name == kBackwardAttrName)
      return verifyBackward(fn, backward);
    return emitAttrError(op, name) << "must be a #" << name << ", got " << value;
  }
  if (name == kRematScopeAttrName) {
    if (!isa<RematScopeAttr>(value))
      return emitAttrError(op, name) << "must be a #jx.remat_scope, got " << value;
    return success();
  }
  if (name == kScanScheduleAttrName)
    return verifyScanSchedule(op, value);
  if (name == kArgNameAttrName || name == kResultNameAttrName ||
      name == kResidualAttrName || name == kDonatedToAttrName)
    return emitAttrError(op, name) << "belongs on a function argument or result, not on an op";
  return op->emitOpError() << "has an unknown jx attribute '" << name
                           << "'; the jx attributes of ops are " << kForwardAttrName
                           << ", " << kBackwardAttrName << ", "
                           << kRematScopeAttrName << " and "
                           << kScanScheduleAttrName;
}

/// `jx.donated_to` on argument `index` of `op`: a result of the argument's
/// type, which no other argument is donated to.
static LogicalResult verifyDonatedTo(Operation *op, unsigned index, Attribute value) {
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn)
    return emitAttrError(op, kDonatedToAttrName) << "belongs on an argument of a func.func";
  auto result = dyn_cast<IntegerAttr>(value);
  if (!result || !result.getType().isSignlessInteger(64))
    return emitAttrError(op, kDonatedToAttrName)
           << "on argument #" << index << " must be a result index (i64), got " << value;
  int64_t k = result.getInt();
  if (k < 0 || k >= static_cast<int64_t>(fn.getNumResults()))
    return emitAttrError(op, kDonatedToAttrName)
           << "on argument #" << index << " names result #" << k << " but @" << fn.getName()
           << " has " << fn.getNumResults() << " results";
  Type argType = fn.getArgumentTypes()[index], resultType = fn.getResultTypes()[k];
  if (argType != resultType)
    return emitAttrError(op, kDonatedToAttrName)
           << "on argument #" << index << " names result #" << k << " of type " << resultType
           << ", not the argument's " << argType << ": a result is written over a donated "
           << "buffer only if it has the buffer's shape and element type";
  for (unsigned other = 0; other < index; ++other)
    if (getDonatedTo(fn, other) == static_cast<unsigned>(k))
      return emitAttrError(op, kDonatedToAttrName)
             << "on argument #" << index << " names result #" << k
             << ", which argument #" << other << " is donated to already";
  return success();
}

/// A jx attribute on argument (or result) `index` of a function: its name, or
/// a residual's #jx.residual. Residuals are the backward's leading arguments
/// and the forward's trailing results.
static LogicalResult verifyPositionAttribute(Operation *op, unsigned index,
                                             NamedAttribute attribute, bool isArgument) {
  StringRef name = attribute.getName().strref();
  StringRef position = isArgument ? "argument" : "result";
  StringRef nameAttr = isArgument ? kArgNameAttrName : kResultNameAttrName;
  if (name == nameAttr)
    return verifyName(op, name, attribute.getValue());
  if (name == kResidualAttrName) {
    auto fn = dyn_cast<func::FuncOp>(op);
    int64_t first = 0, count = -1;
    if (BackwardAttr backward = fn ? getBackwardAttr(fn) : BackwardAttr(); isArgument && backward)
      count = backward.getResiduals();
    if (ForwardAttr forward = fn ? getForwardAttr(fn) : ForwardAttr(); !isArgument && forward) {
      first = forward.getPrimalResults();
      count = static_cast<int64_t>(fn.getNumResults()) - first;
    }
    return verifyResidualPosition(op, attribute.getValue(), position, index, first, count,
                                  isArgument ? "backward" : "forward");
  }
  if (name == kDonatedToAttrName && isArgument)
    return verifyDonatedTo(op, index, attribute.getValue());
  return op->emitOpError() << position << " #" << index << " has an unknown jx attribute '"
                           << name << "'; the jx attributes of " << position << "s are "
                           << (isArgument ? (nameAttr + ", " + kResidualAttrName + " and " +
                                             kDonatedToAttrName)
                                                .str()
                                          : (nameAttr + " and " + kResidualAttrName).str());
}

LogicalResult JxDialect::verifyRegionArgAttribute(Operation *op, unsigned, unsigned index,
                                                  NamedAttribute attribute) {
  return verifyPositionAttribute(op, index, attribute, /*isArgument=*/true);
}

LogicalResult JxDialect::verifyRegionResultAttribute(Operation *op, unsigned, unsigned index,
                                                     NamedAttribute attribute) {
  return verifyPositionAttribute(op, index, attribute, /*isArgument=*/false);
}

//===----------------------------------------------------------------------===//
// #jx.forward, #jx.backward
//===----------------------------------------------------------------------===//

LogicalResult ForwardAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  FlatSymbolRefAttr primal, FlatSymbolRefAttr backward,
                                  int64_t primalResults) {
  if (!backward)
    return emitError() << "#jx.forward needs the backward function";
  if (primalResults < 0)
    return emitError() << "#jx.forward: primal_results must not be negative, got "
                       << primalResults;
  return success();
}

LogicalResult BackwardAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FlatSymbolRefAttr forward, int64_t residuals) {
  if (!forward)
    return emitError() << "#jx.backward needs the forward function";
  if (residuals < 0)
    return emitError() << "#jx.backward: residuals must not be negative, got " << residuals;
  return success();
}

//===----------------------------------------------------------------------===//
// #jx.residual<requested_by = [[0, 1], []], memory_kind = "pinned_host">
//===----------------------------------------------------------------------===//

Attribute ResidualAttr::parse(AsmParser &p, Type) {
  MLIRContext *ctx = p.getContext();
  SMLoc start = p.getCurrentLocation();
  ArrayAttr requestedBy;
  StringAttr memoryKind;
  if (p.parseLess())
    return {};
  auto parseField = [&]() -> ParseResult {
    SMLoc loc = p.getCurrentLocation();
    StringRef key;
    if (p.parseKeyword(&key) || p.parseEqual())
      return failure();
    if (key == "requested_by" && !requestedBy) {
      SmallVector<Attribute> stacks;
      if (p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
            SmallVector<int64_t> ids;
            if (parseIntList(p, ids))
              return failure();
            stacks.push_back(DenseI64ArrayAttr::get(ctx, ids));
            return success();
          }))
        return failure();
      requestedBy = ArrayAttr::get(ctx, stacks);
      return success();
    }
    if (key == "memory_kind" && !memoryKind) {
      std::string kind;
      if (p.parseString(&kind))
        return failure();
      memoryKind = StringAttr::get(ctx, kind);
      return success();
    }
    return p.emitError(loc) << "expected 'requested_by' or 'memory_kind' (each at most once), "
                               "got '"
                            << key << "'";
  };
  if (failed(p.parseOptionalGreater())) {
    do {
      if (parseField())
        return {};
    } while (succeeded(p.parseOptionalComma()));
    if (p.parseGreater())
      return {};
  }
  return getChecked([&] { return p.emitError(start); }, ctx, requestedBy, memoryKind);
}

void ResidualAttr::print(AsmPrinter &p) const {
  p << "<";
  bool first = true;
  if (ArrayAttr stacks = getRequestedBy()) {
    p << "requested_by = [";
    llvm::interleaveComma(stacks, p, [&](Attribute stack) {
      printIntList(p, cast<DenseI64ArrayAttr>(stack).asArrayRef());
    });
    p << "]";
    first = false;
  }
  if (StringAttr kind = getMemoryKind()) {
    p << (first ? "" : ", ") << "memory_kind = ";
    p.printString(kind.getValue());
  }
  p << ">";
}

LogicalResult ResidualAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayAttr requestedBy, StringAttr memoryKind) {
  for (Attribute stack : requestedBy ? requestedBy.getValue() : ArrayRef<Attribute>()) {
    auto ids = dyn_cast<DenseI64ArrayAttr>(stack);
    if (!ids)
      return emitError() << "#jx.residual: requested_by holds remat-region stacks "
                            "(array<i64>), got "
                         << stack;
    if (llvm::any_of(ids.asArrayRef(), [](int64_t id) { return id < 0; }))
      return emitError() << "#jx.residual: remat-region ids are not negative, got " << stack;
  }
  if (memoryKind && memoryKind.getValue().empty())
    return emitError() << "#jx.residual: memory_kind must not be empty";
  return success();
}

//===----------------------------------------------------------------------===//
// #jx.remat_scope<regions = [1, 0], policies = [...], prevent_cse = true>
//===----------------------------------------------------------------------===//

Attribute RematScopeAttr::parse(AsmParser &p, Type) {
  MLIRContext *ctx = p.getContext();
  SMLoc start = p.getCurrentLocation();
  SmallVector<int64_t> regions;
  SmallVector<PolicyAttr> policies;
  StringRef preventCse;
  auto parsePolicy = [&]() -> ParseResult {
    SMLoc loc = p.getCurrentLocation();
    Attribute attr;
    if (p.parseAttribute(attr))
      return failure();
    auto policy = dyn_cast<PolicyAttr>(attr);
    if (!policy)
      return p.emitError(loc) << "expected a #jx.policy, got " << attr;
    policies.push_back(policy);
    return success();
  };
  if (p.parseLess() || parseKey(p, "regions") || parseIntList(p, regions) || p.parseComma() ||
      parseKey(p, "policies") ||
      p.parseCommaSeparatedList(AsmParser::Delimiter::Square, parsePolicy) || p.parseComma() ||
      parseKey(p, "prevent_cse"))
    return {};
  SMLoc boolLoc = p.getCurrentLocation();
  if (p.parseKeyword(&preventCse))
    return {};
  if (preventCse != "true" && preventCse != "false") {
    p.emitError(boolLoc) << "expected true or false, got '" << preventCse << "'";
    return {};
  }
  if (p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(start); }, ctx, ArrayRef<int64_t>(regions),
                    ArrayRef<PolicyAttr>(policies), preventCse == "true");
}

void RematScopeAttr::print(AsmPrinter &p) const {
  p << "<regions = ";
  printIntList(p, getRegions());
  p << ", policies = [";
  llvm::interleaveComma(getPolicies(), p, [&](PolicyAttr policy) { p.printAttribute(policy); });
  p << "], prevent_cse = " << (getPreventCse() ? "true" : "false") << ">";
}

LogicalResult RematScopeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     ArrayRef<int64_t> regions, ArrayRef<PolicyAttr> policies,
                                     bool) {
  if (regions.empty() || regions.size() != policies.size())
    return emitError() << "#jx.remat_scope lists one policy per region, innermost first: got "
                       << regions.size() << " regions and " << policies.size() << " policies";
  if (llvm::any_of(policies, [](PolicyAttr policy) { return !policy; }))
    return emitError() << "#jx.remat_scope: a policy is missing";
  for (auto [i, id] : llvm::enumerate(regions)) {
    if (id < 0)
      return emitError() << "#jx.remat_scope: region ids are not negative, got " << id;
    if (llvm::is_contained(regions.take_front(i), id))
      return emitError() << "#jx.remat_scope: region " << id << " is listed twice";
  }
  return success();
}
