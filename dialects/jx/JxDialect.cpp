//===- JxDialect.cpp - jx dialect registration ---------------------------===//
//
// Registers the ops and attributes of `jx` and materializes folded constants.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::jx;

#include "dialects/jx/JxDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/jx/JxAttrs.cpp.inc"

namespace {
/// jx ops are pure tensor computations (regions are isolated from above), so
/// calls to functions of jx ops may always be inlined -- which is how
/// @f_vjp becomes one function in which CSE could undo rematerialization.
struct JxInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final { return true; }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final { return true; }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final { return true; }
};
} // namespace

void JxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/jx/JxOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/jx/JxAttrs.cpp.inc"
      >();
  addInterfaces<JxInlinerInterface>();
}

Operation *JxDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
