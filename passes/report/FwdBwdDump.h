//===- FwdBwdDump.h - forward and backward side by side ---------*- C++ -*-===//
//
// The seed's print_fwd_bwd: a forward function and its backward in two
// columns, so one can read which residual feeds which cotangent.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REPORT_FWDBWDDUMP_H
#define COTANGENT_PASSES_REPORT_FWDBWDDUMP_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::cotangent {

enum class DumpSyntax { Mlir, Jaxpr };

/// Two texts in two columns of a `width`-column page under their titles;
/// lines longer than a column wrap inside it.
std::string sideBySide(StringRef left, StringRef right, StringRef leftTitle,
                       StringRef rightTitle, unsigned width);

/// `fwd` and `bwd` printed in `syntax`, side by side. `width` 0 means the
/// terminal's width ($COLUMNS, then the tty), else 160.
std::string printFwdBwd(func::FuncOp fwd, func::FuncOp bwd, DumpSyntax syntax,
                        unsigned width = 0);

/// The width `printFwdBwd` uses for 0.
unsigned terminalWidth();

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REPORT_FWDBWDDUMP_H
