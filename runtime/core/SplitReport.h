//===- SplitReport.h - what a split run reports, printed once ---*- C++ -*-===//
//
// The lines every tool prints of a run (cotangent-run on the CPU and the
// GPU, cotangent-step): each result's summary and the split's bytes, one
// spelling for every target.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CORE_SPLITREPORT_H
#define COTANGENT_RUNTIME_CORE_SPLITREPORT_H

#include "runtime/core/SplitRun.h"

#include <functional>
#include <string>
#include <string_view>

namespace cotangent::core {

/// "residual bytes: R (A of them arguments, held without a copy)\n"
/// "offloaded bytes: O (held outside the device's memory)\n" (when O > 0)
/// "peak bytes: P (K of them the outputs, held to the step's end)\n"
std::string splitBytesReport(const SplitFigures &figures);

/// "LABEL: TYPE [v0, v1, v2, v3, ...] sum=S\n": the first `numValues` of
/// `n` elements (`at(i)`, as doubles) and the sum of all.
std::string valueSummary(std::string_view label, std::string_view type, int64_t n,
                         const std::function<double(int64_t)> &at, unsigned numValues = 4);

} // namespace cotangent::core

#endif // COTANGENT_RUNTIME_CORE_SPLITREPORT_H
