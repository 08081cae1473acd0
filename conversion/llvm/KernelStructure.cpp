//===- KernelStructure.cpp - when two kernels compute the same ------------===//

#include "conversion/llvm/KernelStructure.h"

#include "mlir/IR/OperationSupport.h"

using namespace mlir;

llvm::hash_code cotangent::structuralHash(FunctionOpInterface kernel) {
  llvm::hash_code hash = llvm::hash_value(kernel.getFunctionType().getAsOpaquePointer());
  kernel.getFunctionBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash,
        OperationEquivalence::computeHash(op, OperationEquivalence::ignoreHashValue,
                                          OperationEquivalence::ignoreHashValue,
                                          OperationEquivalence::IgnoreLocations),
        op->getNumOperands(), op->getNumRegions());
  });
  return hash;
}

bool cotangent::sameStructure(FunctionOpInterface a, FunctionOpInterface b) {
  return a.getFunctionType() == b.getFunctionType() &&
         OperationEquivalence::isRegionEquivalentTo(&a.getFunctionBody(), &b.getFunctionBody(),
                                                    OperationEquivalence::IgnoreLocations);
}
