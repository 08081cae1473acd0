//===- JsonReport.cpp - the one shape of every report's JSON --------------===//

#include "passes/report/JsonReport.h"

#include "llvm/Support/FormatVariadic.h"

void mlir::cotangent::printJsonReport(llvm::json::Array splits, llvm::raw_ostream &os) {
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(splits))) << "\n";
}
