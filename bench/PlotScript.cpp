//===- PlotScript.cpp - draw a plot with a script in tools/ ---------------===//
//
// The scripts' folder and the build directory are compiled in
// (COTANGENT_TOOLS_DIR, COTANGENT_BUILD_DIR; see bench/CMakeLists.txt).
// The scripts themselves explain a missing matplotlib (exit code 3, see
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
/// The scripts' exit code when `import matplotlib` fails.
constexpr int kMissingMatplotlib = 3;
} // namespace

std::string bench::inBuildDir(llvm::StringRef file) {
  llvm::SmallString<256> path(COTANGENT_BUILD_DIR);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

llvm::LogicalResult bench::drawPlot(Plot plot, llvm::StringRef data, llvm::StringRef image,
                                    std::ostream &os, llvm::ArrayRef<llvm::StringRef> extra) {
  llvm::SmallString<256> path(COTANGENT_TOOLS_DIR);
  llvm::sys::path::append(path, plot == Plot::Policies ? "plot-policies.py" : "plot-frontier.py");
  const llvm::StringRef script = path;
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
  llvm::SmallVector<llvm::StringRef> argv{*python, script, data, "-o", image};
  argv.append(extra.begin(), extra.end());
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
