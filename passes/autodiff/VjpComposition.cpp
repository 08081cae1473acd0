//===- VjpComposition.cpp - functions composing forward and backward ------===//

#include "passes/autodiff/VjpComposition.h"
#include "passes/autodiff/JxBuilder.h"
#include "dialects/jx/JxSplit.h"

using namespace mlir;
using namespace mlir::cotangent;

void mlir::cotangent::emitVjpFunctions(func::FuncOp fwd, func::FuncOp bwd) {
  auto module = fwd->getParentOfType<ModuleOp>();
  std::string base = jx::getSplitName({fwd, bwd}).str();
  for (StringRef suffix : {"_vjp", "_value_and_grad"})
    if (auto old = module.lookupSymbol<func::FuncOp>(base + suffix.str()))
      old.erase();

  OpBuilder b(module.getContext());
  b.setInsertionPointAfter(bwd);
  Location loc = fwd.getLoc();
  unsigned numResults = jx::numPrimalResults(fwd);
  TypeRange argTypes = fwd.getArgumentTypes();
  TypeRange resultTypes = fwd.getResultTypes().take_front(numResults);
  unsigned numArgs = argTypes.size();

  SmallVector<Type> inputs(argTypes), outputs(resultTypes);
  inputs.append(resultTypes.begin(), resultTypes.end());
  outputs.append(argTypes.begin(), argTypes.end());
  auto vjp = func::FuncOp::create(b, loc, base + "_vjp", b.getFunctionType(inputs, outputs));
  Block *entry = vjp.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  auto fwdCall = func::CallOp::create(body, loc, fwd, entry->getArguments().take_front(numArgs));
  SmallVector<Value> bwdArgs(fwdCall.getResults().drop_front(numResults));
  bwdArgs.append(entry->getArguments().begin() + numArgs, entry->getArguments().end());
  auto bwdCall = func::CallOp::create(body, loc, bwd, bwdArgs);
  SmallVector<Value> outs(fwdCall.getResults().take_front(numResults));
  outs.append(bwdCall.getResults().begin(), bwdCall.getResults().end());
  func::ReturnOp::create(body, loc, outs);

  // value_and_grad for a scalar float loss: seed the cotangent with 1.
  if (numResults != 1)
    return;
  auto loss = dyn_cast<RankedTensorType>(resultTypes.front());
  if (!loss || loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
    return;
  SmallVector<Type> vgOutputs{loss};
  vgOutputs.append(argTypes.begin(), argTypes.end());
  b.setInsertionPointAfter(vjp);
  auto vg = func::FuncOp::create(b, loc, base + "_value_and_grad",
                                 b.getFunctionType(argTypes, vgOutputs));
  Block *vgEntry = vg.addEntryBlock();
  OpBuilder vgBody = OpBuilder::atBlockEnd(vgEntry);
  JxBuilder jb(vgBody, loc);
  SmallVector<Value> args(vgEntry->getArguments());
  args.push_back(jb.splat(loss, 1.0));
  auto call = func::CallOp::create(vgBody, loc, vjp, args);
  func::ReturnOp::create(vgBody, loc, call.getResults());
}
