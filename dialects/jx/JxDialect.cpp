//===- JxDialect.cpp - jx dialect registration ---------------------------===//
//
// Registers the ops and attributes of `jx` and materializes folded constants.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::jx;

#include "dialects/jx/JxDialect.cpp.inc"
#include "dialects/jx/JxEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/jx/JxAttrs.cpp.inc"

void JxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/jx/JxOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/jx/JxAttrs.cpp.inc"
      >();
}

Operation *JxDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
