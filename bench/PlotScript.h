//===- PlotScript.h - draw a plot with a script in tools/ ------*- C++ -*-===//
//
// The bench and the demo write their figures as data (PolicyFigures.h, the
// --jx-remat-frontier JSON) and leave the drawing to matplotlib, through
// tools/plot-policies.py and tools/plot-frontier.py. Python and matplotlib
// are optional: without them the tools say how to get them and how to draw
// the plot later, and carry on.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_PLOTSCRIPT_H
#define COTANGENT_BENCH_PLOTSCRIPT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <ostream>
#include <string>

namespace cotangent::bench {

/// `file` in the build directory, where the tools write by default (not the
/// current directory, which may be the source tree).
std::string inBuildDir(llvm::StringRef file);

/// The plotting scripts in tools/.
enum class Plot { Policies, Frontier };

/// Runs `python3 tools/plot-<plot>.py DATA -o IMAGE [extra...]` and says on
/// `os` where the picture is, or, when python3 or matplotlib is missing, how
/// to install it and the command that draws the picture afterwards. Fails
/// only when the script ran and failed (its messages are on stderr).
/// `os` is the tools' stdout (std::cout, synced with printf's).
llvm::LogicalResult drawPlot(Plot plot, llvm::StringRef data, llvm::StringRef image,
                             std::ostream &os, llvm::ArrayRef<llvm::StringRef> extra = {});

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_PLOTSCRIPT_H
