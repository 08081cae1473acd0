//===- Passes.h - Cotangent's passes ----------------------------*- C++ -*-===//

#ifndef COTANGENT_PASSES_PASSES_H
#define COTANGENT_PASSES_PASSES_H

#include "dialects/jx/JxOps.h"
#include "passes/report/FwdBwdDump.h"
#include "passes/report/ReportFormat.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::cotangent {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The default-policy of --jx-remat where Cotangent compiles a step
/// (cotangent-run --vjp, the bench's steps): outside every remat region, keep
/// the fewest bytes that elementwise ops rebuild the rest from, as XLA's
/// fusions do. The pass itself and the tracer's Split keep JAX's residuals
/// (everything_saveable), so that what they report is jax.grad's.
inline constexpr llvm::StringLiteral kCompileDefaultPolicy = "min_residual_bytes";

} // namespace mlir::cotangent

#endif // COTANGENT_PASSES_PASSES_H
