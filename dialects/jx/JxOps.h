//===- JxOps.h - jx ops -----------------------------------------*- C++ -*-===//

#ifndef COTANGENT_DIALECTS_JX_JXOPS_H
#define COTANGENT_DIALECTS_JX_JXOPS_H

#include "dialects/jx/JxDialect.h"
#include "dialects/jx/JxOpFacts.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/jx/JxOps.h.inc"

#endif // COTANGENT_DIALECTS_JX_JXOPS_H
