//===- SplitReport.cpp - the bytes a split run reports, printed once ------===//

#include "runtime/core/SplitReport.h"

namespace cotangent::core {

std::string splitBytesReport(const SplitFigures &figures) {
  auto [numResiduals, residualBytes, argumentResidualBytes, offloadedBytes, peakBytes,
        keptOutputBytes, seconds] = figures;
  std::string report = "residual bytes: " + std::to_string(residualBytes);
  if (argumentResidualBytes)
    report += " (" + std::to_string(argumentResidualBytes) +
              " of them arguments, held without a copy)";
  report += "\n";
  if (offloadedBytes)
    report += "offloaded bytes: " + std::to_string(offloadedBytes) +
              " (held outside the device's memory)\n";
  report += "peak bytes: " + std::to_string(peakBytes);
  if (keptOutputBytes)
    report += " (" + std::to_string(keptOutputBytes) + " of them the outputs, held to the step's end)";
  return report + "\n";
}

} // namespace cotangent::core
