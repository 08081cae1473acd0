//===- JxDialect.h - The jx dialect and its attributes ----------*- C++ -*-===//

#ifndef COTANGENT_DIALECTS_JX_JXDIALECT_H
#define COTANGENT_DIALECTS_JX_JXDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/jx/JxDialect.h.inc"
#include "dialects/jx/JxEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/jx/JxAttrs.h.inc"

#endif // COTANGENT_DIALECTS_JX_JXDIALECT_H
