//===- PlotScript.cpp - draw the policy plot with tools/plot-policies.py --===//
//
// The script's location and the build directory are compiled in
// (COTANGENT_PLOT_SCRIPT, COTANGENT_BUILD_DIR; see bench/CMakeLists.txt).
// The script itself explains a missing matplotlib (exit code 3, see
// kMissingMatplotlib), so the hint is written in one place.
//
//===----------------------------------------------------------------------===//

#include "bench/PlotScript.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace cotangent;

namespace {
/// tools/plot-policies.py's exit code when `import matplotlib` fails.
constexpr int kMissingMatplotlib = 3;
} // namespace

std::string bench::inBuildDir(llvm::StringRef file) {
  llvm::SmallString<256> path(COTANGENT_BUILD_DIR);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

llvm::LogicalResult bench::drawPolicyPlot(llvm::StringRef data, llvm::StringRef image,
                                          std::ostream &os) {
  const llvm::StringRef script = COTANGENT_PLOT_SCRIPT;
  auto python = llvm::sys::findProgramByName("python3");
  if (!python) {
    os << "plot: not drawn, python3 is not installed; install python3 and matplotlib\n"
       << "  (apt-get install python3-matplotlib), then run:\n"
       << "  python3 " << script.str() << " " << data.str() << " -o " << image.str() << "\n";
    return llvm::success();
  }
  // The child writes to the same stdout: what we printed comes first.
  os.flush();
  std::fflush(stdout);
  std::string error;
  llvm::StringRef argv[] = {*python, script, data, "-o", image};
  int code = llvm::sys::ExecuteAndWait(*python, argv, /*Env=*/std::nullopt, /*Redirects=*/{},
                                       /*SecondsToWait=*/0, /*MemoryLimit=*/0, &error);
  if (code == kMissingMatplotlib)
    return llvm::success();
  if (code != 0) {
    llvm::errs() << "error: " << script << " failed" << (error.empty() ? "" : ": " + error) << "\n";
    return llvm::failure();
  }
  os << "plot: " << image.str() << "\n";
  return llvm::success();
}
