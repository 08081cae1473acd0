//===- JxDialect.h - The jx dialect and its attributes ----------*- C++ -*-===//

#ifndef COTANGENT_DIALECTS_JX_JXDIALECT_H
#define COTANGENT_DIALECTS_JX_JXDIALECT_H

#include "dialects/jx/PolicyKind.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

// The attributes first: the dialect's discardable-attribute helpers use them.
#define GET_ATTRDEF_CLASSES
#include "dialects/jx/JxAttrs.h.inc"

#include "dialects/jx/JxDialect.h.inc"

#endif // COTANGENT_DIALECTS_JX_JXDIALECT_H
