//===- HostMemory.cpp - which buffers of GPU host code are the host's ------===//

#include "conversion/nvvm/HostMemory.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

bool mlir::cotangent::isHostMemory(Value buffer, const llvm::DenseSet<Operation *> &hostFunctions) {
  while (auto cast = buffer.getDefiningOp<memref::CastOp>())
    buffer = cast.getSource();
  if (buffer.getDefiningOp<memref::AllocaOp>())
    return true;
  auto arg = dyn_cast<BlockArgument>(buffer);
  return arg && hostFunctions.contains(arg.getOwner()->getParentOp());
}

llvm::DenseSet<Operation *> mlir::cotangent::hostFunctions(ModuleOp module) {
  llvm::DenseSet<Operation *> host, notHost;
  module.walk([&](func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal() || callee.isPublic())
      return;
    bool onStack = llvm::all_of(call.getOperands(), [&](Value v) {
      return !isa<MemRefType>(v.getType()) || isHostMemory(v, /*hostFunctions=*/{});
    });
    (onStack ? host : notHost).insert(callee);
  });
  for (Operation *fn : notHost)
    host.erase(fn);
  return host;
}
