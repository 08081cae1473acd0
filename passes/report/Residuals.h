//===- Residuals.h - what a forward function saves --------------*- C++ -*-===//
//
// The structured form of the saved-residuals report, read off an @f_fwd made
// by --jx-vjp (and --jx-remat): the C++ API returns it, the report pass
// prints it as text (JAX's print_saved_residuals format) or JSON.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REPORT_RESIDUALS_H
#define COTANGENT_PASSES_REPORT_RESIDUALS_H

#include "passes/report/JsonReport.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::cotangent {

struct Residual {
  enum class Kind { Argument, Output, Named };
  Kind kind;
  std::string type;     ///< JAX's short form: "f32[5,4]"
  int64_t bytes;
  std::string what;     ///< argument name, primitive name, or checkpoint name
  std::string location; ///< "FILE:LINE (fn)"; empty for arguments
  std::string memoryKind; ///< empty unless offloaded ("pinned_host")
  /// For a scan's stacked residual, what each iteration contributes
  /// ("sub from model.cpp:12 (layer)", "the carry"); empty otherwise.
  std::string stackedFrom;
};

/// JAX's element type names: f32, bf16, i32, bool.
std::string elementTypeName(Type element);

/// JAX's short type form of a ranked tensor or memref: f32[5,4], bool[3], f64[].
std::string shortTypeName(Type type);

/// "FILE:LINE (fn)" from an op's location (NameLoc over FileLineColLoc).
std::string describeLocation(Location loc);

/// The residuals `fwd` returns, in order. Fails if `fwd` is not a forward function.
FailureOr<std::vector<Residual>> describeResiduals(func::FuncOp fwd);

/// JAX's print_saved_residuals lines, then a total.
void printResiduals(llvm::ArrayRef<Residual> residuals, llvm::raw_ostream &os);
/// One split's residuals as its object in a JSON report (JsonReport.h):
/// {"function", "residuals": [...], "total_bytes"}.
llvm::json::Object residualsJson(StringRef function, llvm::ArrayRef<Residual> residuals);

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_REPORT_RESIDUALS_H
