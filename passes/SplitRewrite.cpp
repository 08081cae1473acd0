//===- SplitRewrite.cpp - rewriting the halves of a split -----------------===//
//
// Residual order, the forward's return and dead-code removal, shared by
// --jx-vjp (which builds the residual list) and --jx-remat (which changes it).
//
//===----------------------------------------------------------------------===//

#include "passes/SplitRewrite.h"
#include "dialects/jx/JxOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::cotangent;

void mlir::cotangent::sortResiduals(SmallVectorImpl<Value> &values) {
  llvm::stable_sort(values, [](Value a, Value b) {
    auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
    if (argA || argB)
      return argA && (!argB || argA.getArgNumber() < argB.getArgNumber());
    Operation *opA = a.getDefiningOp(), *opB = b.getDefiningOp();
    if (opA == opB)
      return cast<OpResult>(a).getResultNumber() < cast<OpResult>(b).getResultNumber();
    return opA->isBeforeInBlock(opB);
  });
}

/// The value whose buffer `v` is at run time.
static Value storageOf(Value v) {
  while (auto result = dyn_cast<OpResult>(v)) {
    auto barrier = dyn_cast<jx::OptimizationBarrierOp>(result.getOwner());
    if (!barrier)
      break;
    v = barrier->getOperand(result.getResultNumber());
  }
  return v;
}

void mlir::cotangent::mergeSharedStorage(SmallVectorImpl<Value> &ordered,
                                         function_ref<StringRef(Value)> memoryKind,
                                         function_ref<void(Value, Value)> merge) {
  llvm::DenseMap<Value, Value> holder; // storage -> the residual kept for it
  SmallVector<Value> kept;
  for (Value v : ordered) {
    auto [it, fresh] = holder.try_emplace(storageOf(v), v);
    if (!fresh && memoryKind(it->second) == memoryKind(v)) {
      merge(it->second, v);
      continue;
    }
    kept.push_back(v);
  }
  ordered.assign(kept.begin(), kept.end());
}

bool mlir::cotangent::isArgumentFree(Value v) {
  Operation *def = v.getDefiningOp();
  return def && isMemoryEffectFree(def) && def->getNumRegions() == 0 &&
         llvm::all_of(def->getOperands(), isArgumentFree);
}

void mlir::cotangent::setForwardReturn(func::FuncOp fwd, unsigned numPrimal,
                                       ArrayRef<Value> residuals) {
  auto ret = cast<func::ReturnOp>(fwd.getBody().front().getTerminator());
  SmallVector<Value> outs(ret.getOperands().take_front(numPrimal));
  outs.append(residuals.begin(), residuals.end());
  OpBuilder b(ret);
  func::ReturnOp::create(b, ret.getLoc(), outs);
  ret.erase();
  // Result attributes are positional: keep the primal results', empty for the rest.
  SmallVector<DictionaryAttr> resultAttrs;
  fwd.getAllResultAttrs(resultAttrs);
  resultAttrs.resize(numPrimal);
  resultAttrs.resize(outs.size(), DictionaryAttr::get(fwd.getContext()));
  fwd.setFunctionType(FunctionType::get(fwd.getContext(), fwd.getArgumentTypes(),
                                        ValueRange(outs).getTypes()));
  fwd.setAllResultAttrs(resultAttrs);
}

void mlir::cotangent::eraseDeadOps(Block &block) {
  for (Operation *op = block.empty() ? nullptr : &block.back(); op;) {
    Operation *prev = op->getPrevNode();
    if (op->use_empty() && isMemoryEffectFree(op) && !op->hasTrait<OpTrait::IsTerminator>())
      op->erase();
    op = prev;
  }
}
