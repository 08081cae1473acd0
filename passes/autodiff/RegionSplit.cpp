//===- RegionSplit.cpp - a region op's body split as a function ------------===//

#include "passes/autodiff/RegionSplit.h"
#include "dialects/jx/JxOps.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

RankedTensorType mlir::cotangent::stackedType(Type t, int64_t length) {
  auto tensor = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape{length};
  shape.append(tensor.getShape().begin(), tensor.getShape().end());
  return tensor.clone(shape);
}

func::FuncOp mlir::cotangent::regionToFunction(Operation *op, Region &region, StringRef name) {
  auto module = op->getParentOfType<ModuleOp>();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Block &block = region.front();
  auto yield = cast<YieldOp>(block.getTerminator());
  // A name free for the function and for the _fwd/_bwd split made from it.
  std::string unique;
  for (int i = 0;; ++i) {
    unique = (name + "_" + Twine(i)).str();
    if (llvm::none_of(std::initializer_list<std::string>{unique, unique + "_fwd", unique + "_bwd"},
                      [&](const std::string &n) { return module.lookupSymbol(n); }))
      break;
  }
  auto fn = func::FuncOp::create(b, op->getLoc(), unique,
                                 b.getFunctionType(block.getArgumentTypes(), yield.getOperandTypes()));
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  IRMapping map;
  map.map(block.getArguments(), entry->getArguments());
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  for (Operation &inner : block.without_terminator())
    body.clone(inner, map);
  func::ReturnOp::create(body, yield.getLoc(),
                         llvm::map_to_vector(yield.getOperands(), [&](Value v) { return map.lookup(v); }));
  return fn;
}

SmallVector<Value> mlir::cotangent::inlineBody(func::FuncOp fn, OpBuilder &b, IRMapping &map) {
  Block &entry = fn.getBody().front();
  for (Operation &op : entry.without_terminator())
    stripRematScopes(b.clone(op, map));
  return llvm::map_to_vector(entry.getTerminator()->getOperands(),
                             [&](Value v) { return map.lookupOrDefault(v); });
}

ValueRange mlir::cotangent::residualsOf(func::FuncOp fwd) {
  return fwd.getBody().front().getTerminator()->getOperands().drop_front(numPrimalResults(fwd));
}

void mlir::cotangent::eraseSplit(ForwardBackward &split) {
  for (func::FuncOp fn : {split.fwd, split.bwd})
    if (fn)
      fn.erase();
  split = {};
}

FailureOr<ForwardBackward> mlir::cotangent::splitRegionAsFunction(
    Operation *op, Region &region, StringRef name,
    llvm::function_ref<FailureOr<ForwardBackward>(func::FuncOp)> split) {
  func::FuncOp temp = regionToFunction(op, region, name);
  FailureOr<ForwardBackward> halves = split(temp);
  temp.erase();
  return halves;
}
