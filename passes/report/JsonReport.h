//===- JsonReport.h - the one shape of every report's JSON ------*- C++ -*-===//
//
// Every report printed as JSON (--jx-print-saved-residuals, --jx-print-memory-plan,
// the examples' reports) is one array with an object per split, each naming
// its "function": one reader for all of them (json.load, a list).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REPORT_JSONREPORT_H
#define COTANGENT_PASSES_REPORT_JSONREPORT_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::cotangent {

/// Prints `splits` (an object per split) as the report's JSON array.
void printJsonReport(llvm::json::Array splits, llvm::raw_ostream &os);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REPORT_JSONREPORT_H
