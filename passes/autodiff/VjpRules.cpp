//===- VjpRules.cpp - the table of reverse-mode rules ---------------------===//

#include "passes/autodiff/VjpRules.h"

using namespace mlir;
using namespace mlir::cotangent;

VjpRule mlir::cotangent::zeroVjpRule() {
  return {[](JxBuilder &, Operation *, ArrayRef<bool>) { return SmallVector<Value>(); },
          [](JxBuilder &, Operation *op, ArrayRef<bool>, ValueRange, ArrayRef<Value>) {
            return SmallVector<Value>(op->getNumOperands());
          },
          /*zeroDerivative=*/true};
}

const VjpRule *mlir::cotangent::lookupVjpRule(Operation *op) {
  static const VjpRuleTable table = [] {
    VjpRuleTable t;
    addElementwiseVjpRules(t);
    addStructuralVjpRules(t);
    addCollectiveVjpRules(t);
    addCompositeVjpRules(t);
    return t;
  }();
  auto it = table.find(op->getName().getTypeID());
  return it == table.end() ? nullptr : &it->second;
}
