//===- CompositeBuilder.cpp - a composite's expansion as a function -------===//

#include "dialects/jx/CompositeBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

OwningOpRef<ModuleOp> jx::expandIntoFunction(CompositeOpInterface composite) {
  Operation *op = composite.getOperation();
  OpBuilder b(op->getContext());
  OwningOpRef<ModuleOp> module = ModuleOp::create(op->getLoc());
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, op->getLoc(), "expanded",
                                 b.getFunctionType(op->getOperandTypes(), op->getResultTypes()));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToEnd(body);
  IRMapping map;
  map.map(op->getOperands(), body->getArguments());
  auto copy = cast<CompositeOpInterface>(b.clone(*op, map));
  SmallVector<Value> results = copy.expand(b);
  copy->erase();
  func::ReturnOp::create(b, op->getLoc(), results);
  return module;
}
