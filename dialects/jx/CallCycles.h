//===- CallCycles.h - jx programs do not call themselves ---------*- C++ -*-===//
//
// A jx program loops with jx.scan and jx.while; a function that reaches
// itself through calls would recurse forever in the interpreter (a stack
// overflow) and in compiled code. The interpreter and the runtimes check a
// module before they run it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DIALECTS_JX_CALLCYCLES_H
#define COTANGENT_DIALECTS_JX_CALLCYCLES_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::jx {

/// Failure, with an error at a call on the cycle naming the functions on it,
/// when a function of `module` reaches itself through func.call.
LogicalResult verifyNoCallCycles(ModuleOp module);

} // namespace mlir::jx

#endif // COTANGENT_DIALECTS_JX_CALLCYCLES_H
