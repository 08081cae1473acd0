//===- JxRematFunction.cpp - a whole function under one remat policy ------===//
//
// Moves a function's body into one jx.remat region, so that a policy (a
// memory budget above all) can govern the whole step without the program
// being edited. The region's operands are the function's arguments.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/SelectFunctions.h"

#include "dialects/jx/JxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXREMATFUNCTIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

namespace {

LogicalResult wrapBody(func::FuncOp fn, PolicyAttr policy) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("--jx-remat-function: @")
           << fn.getSymName() << " has " << fn.getBody().getBlocks().size()
           << " blocks; a jx.remat region has one";
  for (BlockArgument arg : fn.getArguments())
    if (!isa<RankedTensorType>(arg.getType()))
      return fn.emitError("--jx-remat-function: argument ")
             << arg.getArgNumber() << " of @" << fn.getSymName() << " is " << arg.getType()
             << ", not a tensor; a jx.remat region takes tensors";
  Block &body = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  auto remat = RematOp::create(b, fn.getLoc(), ret.getOperandTypes(), fn.getArguments(), policy,
                               b.getBoolAttr(true));
  Block *inner = b.createBlock(&remat.getBody(), {}, fn.getArgumentTypes(),
                               SmallVector<Location>(fn.getNumArguments(), fn.getLoc()));
  inner->getOperations().splice(inner->end(), body.getOperations(),
                                std::next(remat->getIterator()), ret->getIterator());
  b.setInsertionPointToEnd(inner);
  YieldOp::create(b, ret.getLoc(), ret.getOperands());
  for (auto [outer, innerArg] : llvm::zip(fn.getArguments(), inner->getArguments()))
    outer.replaceUsesWithIf(innerArg, [&](OpOperand &use) {
      return remat->isProperAncestor(use.getOwner());
    });
  ret->setOperands(remat.getResults());
  return success();
}

struct JxRematFunctionPass : cotangent::impl::JxRematFunctionPassBase<JxRematFunctionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (policy.empty()) {
      module.emitError("--jx-remat-function: give the policy, e.g. "
                       "--jx-remat-function=\"policy=memory_budget(0.8)\"");
      return signalPassFailure();
    }
    std::string error;
    PolicyAttr attr = PolicyAttr::parsePolicy(module.getContext(), policy, error);
    if (!attr) {
      module.emitError("--jx-remat-function: ") << error;
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> selected = selectFunctions(module, function);
    for (func::FuncOp fn : selected)
      if (failed(wrapBody(fn, attr)))
        return signalPassFailure();
    if (!function.empty() && selected.empty()) {
      module.emitError("--jx-remat-function: no function @") << function << " with a body";
      return signalPassFailure();
    }
  }
};

} // namespace
