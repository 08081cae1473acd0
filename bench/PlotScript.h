//===- PlotScript.h - draw the policy plot with tools/plot-policies.py -*- C++ -*-===//
//
// The bench and the demo write their figures as data (PolicyFigures.h) and
// leave the drawing to matplotlib, through tools/plot-policies.py. Python
// and matplotlib are optional: without them the tools say how to get them
// and how to draw the plot later, and carry on.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_PLOTSCRIPT_H
#define COTANGENT_BENCH_PLOTSCRIPT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <ostream>
#include <string>

namespace cotangent::bench {

/// `file` in the build directory, where the tools write by default (not the
/// current directory, which may be the source tree).
std::string inBuildDir(llvm::StringRef file);

/// Runs `python3 tools/plot-policies.py DATA -o IMAGE` and says on `os` where
/// the picture is, or, when python3 or matplotlib is missing, how to install
/// it and the command that draws the picture afterwards. Fails only when the
/// script ran and failed (its messages are on stderr).
/// `os` is the tools' stdout (std::cout, synced with printf's).
llvm::LogicalResult drawPolicyPlot(llvm::StringRef data, llvm::StringRef image, std::ostream &os);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_PLOTSCRIPT_H
