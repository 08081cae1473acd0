//===- JaxprPrinter.h - print a func.func of jx ops as a jaxpr --*- C++ -*-===//
//
// Prints jx IR the way jax.make_jaxpr shows a program:
//
//   { lambda ; a:f32[5,4] b:f32[4]. let
//       c:f32[5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
//       d:f32[5] = sin c
//     in (d,) }
//
// Bodies without sub-jaxprs that fit in 140 columns print on one line
// (`let c = ...; d = ... in`).
// Regions of jx.remat, jx.scan and jx.cond print nested as the `jaxpr=` /
// `branches=` parameters, as JAX prints sub-jaxprs; splat constants print as
// literals (`2.0:f32[]`). Works on any func.func, traced or parsed.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REPORT_JAXPRPRINTER_H
#define COTANGENT_PASSES_REPORT_JAXPRPRINTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::cotangent {

/// Prints `func` as a jaxpr to `os` (with a trailing newline). Bodies
/// without sub-jaxprs that fit in `oneLineWidth` columns print on one line.
void printJaxpr(mlir::func::FuncOp func, llvm::raw_ostream &os, unsigned oneLineWidth = 140);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REPORT_JAXPRPRINTER_H
