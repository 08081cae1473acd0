//===- EvalControlFlow.cpp - Regions and calls in the interpreter ---------===//
//
// Implements evalControlFlowOp: jx.scan, jx.cond, jx.while and jx.remat run
// their regions through the Evaluator (scan and while via the drivers of
// OpsControlFlow.cpp); func.call looks its callee up and runs it.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Evaluator.h"
#include "runtime/interpreter/Ops.h"

#include "dialects/jx/JxOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace cotangent::interp;
using namespace cotangent::interp::detail;
using namespace mlir;

namespace {

std::vector<Tensor> toVector(ArrayRef<Tensor> tensors) { return {tensors.begin(), tensors.end()}; }

Results evalScan(Evaluator &evaluator, jx::ScanOp op, ArrayRef<Tensor> in) {
  int64_t numConsts = static_cast<int64_t>(op.getNumConsts());
  int64_t numCarry = static_cast<int64_t>(op.getNumCarry());
  SmallVector<RankedTensorType> ysTypes;
  for (Type t : llvm::drop_begin(op.getResultTypes(), numCarry))
    ysTypes.push_back(cast<RankedTensorType>(t));
  auto body = [&](std::vector<Tensor> args) { return evaluator.evalRegion(op.getBody(), std::move(args)); };
  return scanOp(in.take_front(numConsts), toVector(in.slice(numConsts, numCarry)),
                in.drop_front(numConsts + numCarry), static_cast<int64_t>(op.getLength()),
                op.getReverse(), ysTypes, body);
}

Results evalCond(Evaluator &evaluator, jx::CondOp op, ArrayRef<Tensor> in) {
  int64_t branch = condBranchIndex(in[0], op.getBranches().size());
  return evaluator.evalRegion(op.getBranches()[branch], toVector(in.drop_front()));
}

Results evalWhile(Evaluator &evaluator, jx::WhileOp op, ArrayRef<Tensor> in) {
  auto cond = [&](std::vector<Tensor> args) { return evaluator.evalRegion(op.getCond(), std::move(args)); };
  auto body = [&](std::vector<Tensor> args) { return evaluator.evalRegion(op.getBody(), std::move(args)); };
  return whileOp(toVector(in), cond, body);
}

Results evalCall(Evaluator &evaluator, func::CallOp op, ArrayRef<Tensor> in) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, op.getCalleeAttr());
  if (!callee)
    return emitError(op.getLoc()) << "func.call of '" << op.getCallee() << "', which is not a func.func here";
  return evaluator.callFunction(callee, toVector(in));
}

} // namespace

Results cotangent::interp::detail::evalControlFlowOp(Evaluator &evaluator, Operation &op,
                                                     ArrayRef<Tensor> in) {
  return llvm::TypeSwitch<Operation *, Results>(&op)
      .Case([&](jx::ScanOp o) { return evalScan(evaluator, o, in); })
      .Case([&](jx::CondOp o) { return evalCond(evaluator, o, in); })
      .Case([&](jx::WhileOp o) { return evalWhile(evaluator, o, in); })
      .Case([&](jx::RematOp o) { return evaluator.evalRegion(o.getBody(), toVector(in)); })
      .Case([&](func::CallOp o) { return evalCall(evaluator, o, in); })
      .Default([&](Operation *other) -> Results {
        return emitError(other->getLoc()) << "'" << other->getName() << "' is not supported by the interpreter";
      });
}
