//===- SplitReport.cpp - what a split run reports, printed once -----------===//

#include "runtime/core/SplitReport.h"

#include <cstdio>

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

std::string valueSummary(std::string_view label, std::string_view type, int64_t n,
                         const std::function<double(int64_t)> &at, unsigned numValues) {
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return std::string(text);
  };
  std::string line = std::string(label) + ": " + std::string(type) + " [";
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = at(i);
    sum += v;
    if (i < static_cast<int64_t>(numValues))
      line += (i ? ", " : "") + number(v);
  }
  if (n > static_cast<int64_t>(numValues))
    line += ", ...";
  return line + "] sum=" + number(sum) + "\n";
}

} // namespace cotangent::core
