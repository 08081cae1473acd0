//===- JxSplit.cpp - reading and writing the forward/backward contract ----===//
//
// The accessors of JxSplit.h over the dialect's discardable attributes
// (declared in JxDialect.td, verified in JxContract.cpp). Every attribute
// name is taken from the dialect's generated helpers, so no string spells one.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxSplit.h"

using namespace mlir;
using namespace mlir::jx;

namespace {

/// A residual attribute with the given fields (empty ones left out), or null
/// if both are empty: an empty #jx.residual says nothing and is not written.
ResidualAttr makeResidual(MLIRContext *ctx, ArrayAttr requestedBy, StringAttr memoryKind) {
  if (requestedBy && requestedBy.empty())
    requestedBy = {};
  if (memoryKind && memoryKind.getValue().empty())
    memoryKind = {};
  if (!requestedBy && !memoryKind)
    return {};
  return ResidualAttr::get(ctx, requestedBy, memoryKind);
}

ResidualAttr argResidual(func::FuncOp fn, unsigned index) {
  return fn.getArgAttrOfType<ResidualAttr>(index, kResidualAttrName);
}

ResidualAttr resultResidual(func::FuncOp fn, unsigned index) {
  return fn.getResultAttrOfType<ResidualAttr>(index, kResidualAttrName);
}

void setArgResidual(func::FuncOp fn, unsigned index, ResidualAttr attr) {
  if (attr)
    fn.setArgAttr(index, kResidualAttrName, attr);
  else
    fn.removeArgAttr(index, StringAttr::get(fn.getContext(), kResidualAttrName));
}

void setResultResidual(func::FuncOp fn, unsigned index, ResidualAttr attr) {
  if (attr)
    fn.setResultAttr(index, kResidualAttrName, attr);
  else
    fn.removeResultAttr(index, StringAttr::get(fn.getContext(), kResidualAttrName));
}

} // namespace

//===----------------------------------------------------------------------===//
// Pairs
//===----------------------------------------------------------------------===//

void mlir::jx::markSplit(func::FuncOp fwd, func::FuncOp bwd, FlatSymbolRefAttr primal,
                         int64_t numPrimalResults, int64_t numResiduals) {
  MLIRContext *ctx = fwd.getContext();
  fwd->setAttr(kForwardAttrName,
               ForwardAttr::get(ctx, primal, FlatSymbolRefAttr::get(bwd.getSymNameAttr()),
                                numPrimalResults));
  bwd->setAttr(kBackwardAttrName,
               BackwardAttr::get(ctx, FlatSymbolRefAttr::get(fwd.getSymNameAttr()), numResiduals));
}

ForwardAttr mlir::jx::getForwardAttr(func::FuncOp fn) {
  return fn->getAttrOfType<ForwardAttr>(kForwardAttrName);
}

BackwardAttr mlir::jx::getBackwardAttr(func::FuncOp fn) {
  return fn->getAttrOfType<BackwardAttr>(kBackwardAttrName);
}

bool mlir::jx::isSplitHalf(func::FuncOp fn) { return getForwardAttr(fn) || getBackwardAttr(fn); }

func::FuncOp mlir::jx::getSplitPartner(func::FuncOp fn) {
  FlatSymbolRefAttr partner;
  if (ForwardAttr forward = getForwardAttr(fn))
    partner = forward.getBackward();
  else if (BackwardAttr backward = getBackwardAttr(fn))
    partner = backward.getForward();
  if (!partner)
    return {};
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(fn, partner);
}

std::optional<SplitPair> mlir::jx::getSplitPair(func::FuncOp fn) {
  func::FuncOp partner = getSplitPartner(fn);
  if (!partner)
    return std::nullopt;
  return getForwardAttr(fn) ? SplitPair{fn, partner} : SplitPair{partner, fn};
}

SmallVector<SplitPair> mlir::jx::getSplitPairs(ModuleOp module) {
  SmallVector<SplitPair> pairs;
  for (auto fn : module.getOps<func::FuncOp>())
    if (getForwardAttr(fn))
      if (std::optional<SplitPair> pair = getSplitPair(fn); pair && getBackwardAttr(pair->bwd))
        pairs.push_back(*pair);
  return pairs;
}

std::optional<SplitPair> mlir::jx::lookupSplitPair(ModuleOp module, StringRef name) {
  for (SplitPair pair : getSplitPairs(module)) {
    FlatSymbolRefAttr primal = getForwardAttr(pair.fwd).getPrimal();
    if ((primal && primal.getValue() == name) || pair.fwd.getSymName() == name ||
        pair.bwd.getSymName() == name)
      return pair;
  }
  return std::nullopt;
}

StringRef mlir::jx::getSplitName(SplitPair pair) {
  if (FlatSymbolRefAttr primal = getForwardAttr(pair.fwd).getPrimal())
    return primal.getValue();
  return pair.fwd.getSymName();
}

llvm::StringMap<SplitSymbols> mlir::jx::getSplitSymbols(ModuleOp module) {
  llvm::StringMap<SplitSymbols> out;
  for (SplitPair pair : getSplitPairs(module))
    out[getSplitName(pair)] = {pair.fwd.getSymName().str(), pair.bwd.getSymName().str(),
                               numPrimalResults(pair.fwd)};
  return out;
}

int64_t mlir::jx::numPrimalResults(func::FuncOp fwd) {
  return getForwardAttr(fwd).getPrimalResults();
}

int64_t mlir::jx::numResiduals(func::FuncOp bwd) { return getBackwardAttr(bwd).getResiduals(); }

void mlir::jx::setNumResiduals(func::FuncOp bwd, int64_t numResiduals) {
  BackwardAttr old = getBackwardAttr(bwd);
  bwd->setAttr(kBackwardAttrName,
               BackwardAttr::get(bwd.getContext(), old.getForward(), numResiduals));
}

void mlir::jx::stripJxAttributes(func::FuncOp fn) {
  auto isJx = [](NamedAttribute a) { return a.getName().strref().starts_with("jx."); };
  auto kept = [&](DictionaryAttr attrs) {
    SmallVector<NamedAttribute> out;
    if (attrs)
      llvm::copy_if(attrs, std::back_inserter(out), [&](NamedAttribute a) { return !isJx(a); });
    return out;
  };
  for (NamedAttribute a : llvm::to_vector(fn->getDiscardableAttrs()))
    if (isJx(a))
      fn->removeDiscardableAttr(a.getName());
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.setArgAttrs(i, kept(fn.getArgAttrDict(i)));
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    fn.setResultAttrs(i, kept(fn.getResultAttrDict(i)));
}

//===----------------------------------------------------------------------===//
// Residuals
//===----------------------------------------------------------------------===//

ArrayAttr mlir::jx::getRequestedBy(func::FuncOp bwd, unsigned index) {
  ResidualAttr residual = argResidual(bwd, index);
  return residual ? residual.getRequestedBy() : ArrayAttr();
}

void mlir::jx::setRequestedBy(func::FuncOp bwd, unsigned index, ArrayAttr stacks) {
  ResidualAttr old = argResidual(bwd, index);
  setArgResidual(bwd, index,
                 makeResidual(bwd.getContext(), stacks, old ? old.getMemoryKind() : StringAttr()));
}

static StringRef memoryKindOf(ResidualAttr residual) {
  return residual && residual.getMemoryKind() ? residual.getMemoryKind().getValue() : "";
}

StringRef mlir::jx::getResultMemoryKind(func::FuncOp fn, unsigned index) {
  return memoryKindOf(resultResidual(fn, index));
}

StringRef mlir::jx::getArgMemoryKind(func::FuncOp fn, unsigned index) {
  return memoryKindOf(argResidual(fn, index));
}

void mlir::jx::setResidualMemoryKind(SplitPair pair, unsigned index, StringRef memoryKind) {
  MLIRContext *ctx = pair.fwd.getContext();
  auto kind = StringAttr::get(ctx, memoryKind);
  unsigned result = numPrimalResults(pair.fwd) + index;
  ResidualAttr onResult = resultResidual(pair.fwd, result);
  setResultResidual(pair.fwd, result,
                    makeResidual(ctx, onResult ? onResult.getRequestedBy() : ArrayAttr(), kind));
  ResidualAttr onArg = argResidual(pair.bwd, index);
  setArgResidual(pair.bwd, index,
                 makeResidual(ctx, onArg ? onArg.getRequestedBy() : ArrayAttr(), kind));
}

int64_t mlir::jx::getTensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return tensor.getNumElements() * std::max<int64_t>(1, tensor.getElementTypeBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// Remat scopes
//===----------------------------------------------------------------------===//

RematScopeAttr mlir::jx::getRematScope(Operation *op) {
  return op->getAttrOfType<RematScopeAttr>(kRematScopeAttrName);
}

ArrayRef<int64_t> mlir::jx::getRematRegions(Operation *op) {
  RematScopeAttr scope = getRematScope(op);
  return scope ? scope.getRegions() : ArrayRef<int64_t>();
}

void mlir::jx::enterRematScope(Operation *op, PolicyAttr policy, int64_t id, bool preventCse) {
  SmallVector<int64_t> regions;
  SmallVector<PolicyAttr> policies;
  if (RematScopeAttr old = getRematScope(op)) {
    regions.append(old.getRegions().begin(), old.getRegions().end());
    policies.append(old.getPolicies().begin(), old.getPolicies().end());
    preventCse = old.getPreventCse();
  }
  regions.push_back(id);
  policies.push_back(policy);
  op->setAttr(kRematScopeAttrName,
              RematScopeAttr::get(op->getContext(), ArrayRef<int64_t>(regions),
                                  ArrayRef<PolicyAttr>(policies), preventCse));
}

void mlir::jx::copyRematScope(Operation *from, Operation *to) {
  if (RematScopeAttr scope = getRematScope(from))
    to->setAttr(kRematScopeAttrName, scope);
}

void mlir::jx::stripRematScopes(Operation *root) {
  root->walk([](Operation *op) { op->removeAttr(kRematScopeAttrName); });
}

//===----------------------------------------------------------------------===//
// Names and schedules
//===----------------------------------------------------------------------===//

StringAttr mlir::jx::getArgName(func::FuncOp fn, unsigned index) {
  return fn.getArgAttrOfType<StringAttr>(index, kArgNameAttrName);
}

void mlir::jx::setArgName(func::FuncOp fn, unsigned index, StringRef name) {
  fn.setArgAttr(index, kArgNameAttrName, StringAttr::get(fn.getContext(), name));
}

std::optional<unsigned> mlir::jx::getDonatedTo(func::FuncOp fn, unsigned index) {
  if (auto result = fn.getArgAttrOfType<IntegerAttr>(index, kDonatedToAttrName))
    return static_cast<unsigned>(result.getInt());
  return std::nullopt;
}

void mlir::jx::setDonatedTo(func::FuncOp fn, unsigned index, unsigned result) {
  fn.setArgAttr(index, kDonatedToAttrName,
                IntegerAttr::get(IntegerType::get(fn.getContext(), 64), result));
}

StringAttr mlir::jx::getResultName(func::FuncOp fn, unsigned index) {
  return fn.getResultAttrOfType<StringAttr>(index, kResultNameAttrName);
}

void mlir::jx::setResultName(func::FuncOp fn, unsigned index, StringRef name) {
  fn.setResultAttr(index, kResultNameAttrName, StringAttr::get(fn.getContext(), name));
}

ArrayRef<int64_t> mlir::jx::getScanSchedule(ScanOp scan) {
  auto lengths = scan->getAttrOfType<DenseI64ArrayAttr>(kScanScheduleAttrName);
  return lengths ? lengths.asArrayRef() : ArrayRef<int64_t>();
}

void mlir::jx::setScanSchedule(ScanOp scan, ArrayRef<int64_t> lengths) {
  scan->setAttr(kScanScheduleAttrName,
                DenseI64ArrayAttr::get(scan.getContext(), lengths));
}
