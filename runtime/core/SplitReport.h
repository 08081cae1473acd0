//===- SplitReport.h - the bytes a split run reports, printed once -*- C++ -*-===//
//
// The lines every tool prints of a split run's bytes (cotangent-run on the
// CPU and the GPU, cotangent-step): one spelling for every target.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CORE_SPLITREPORT_H
#define COTANGENT_RUNTIME_CORE_SPLITREPORT_H

#include "runtime/core/SplitRun.h"

#include <string>

namespace cotangent::core {

/// "residual bytes: R (A of them arguments, held without a copy)\n"
/// "offloaded bytes: O (held outside the device's memory)\n" (when O > 0)
/// "peak bytes: P (K of them the outputs, held to the step's end)\n"
std::string splitBytesReport(const SplitFigures &figures);

} // namespace cotangent::core

#endif // COTANGENT_RUNTIME_CORE_SPLITREPORT_H
