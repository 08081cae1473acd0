//===- ReportFormat.h - how a report pass prints ----------------*- C++ -*-===//
//
// The `format` option of the report passes (--jx-print-saved-residuals,
// --jx-print-memory-plan), an enum their ODS options parse: a value outside
// it is refused by the option parser, which lists the valid ones.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REPORT_REPORTFORMAT_H
#define COTANGENT_PASSES_REPORT_REPORTFORMAT_H

namespace mlir::cotangent {

enum class ReportFormat { Text, Json };

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REPORT_REPORTFORMAT_H
