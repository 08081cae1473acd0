//===- Autodiff.cpp - vjp, grad and value_and_grad over traced C++ --------===//

#include "tracer/Autodiff.h"
#include "tracer/DType.h"
#include "tracer/Errors.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace cotangent {

namespace {

/// Collects diagnostics emitted while `body` runs, as one message.
template <class Body>
std::string collectDiagnostics(MLIRContext *ctx, Body &&body) {
  std::string messages;
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    std::string loc;
    llvm::raw_string_ostream os(loc);
    diag.getLocation().print(os);
    messages += (messages.empty() ? "" : "\n") + loc + ": " + diag.str();
    return success();
  });
  body();
  return messages;
}

} // namespace

Split::Split(Traced traced, SplitOptions options) : traced_(std::move(traced)) {
  PassManager pm(traced_.context());
  pm.addPass(mlir::cotangent::createJxVjpPass());
  if (options.remat)
    pm.addPass(mlir::cotangent::createJxRematPass());
  LogicalResult result = failure();
  std::string errors =
      collectDiagnostics(traced_.context(), [&] { result = pm.run(traced_.module()); });
  if (failed(result))
    throw TraceError("vjp: cannot differentiate: " + errors);
}

func::FuncOp Split::lookup(const std::string &suffix) const {
  return module().lookupSymbol<func::FuncOp>((primal().getSymName() + suffix).str());
}

func::FuncOp Split::fwd() const {
  std::optional<jx::SplitPair> pair = jx::lookupSplitPair(module(), primal().getSymName());
  return pair ? pair->fwd : func::FuncOp();
}

func::FuncOp Split::bwd() const {
  std::optional<jx::SplitPair> pair = jx::lookupSplitPair(module(), primal().getSymName());
  return pair ? pair->bwd : func::FuncOp();
}

func::FuncOp Split::vjp() const { return lookup("_vjp"); }
func::FuncOp Split::value_and_grad() const { return lookup("_value_and_grad"); }

std::vector<Residual> Split::saved_residuals() const {
  FailureOr<std::vector<Residual>> residuals = failure();
  std::string errors = collectDiagnostics(
      traced_.context(), [&] { residuals = mlir::cotangent::describeResiduals(fwd()); });
  if (failed(residuals))
    throw TraceError("saved_residuals: " + errors);
  return *residuals;
}

std::string Split::print_saved_residuals() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::cotangent::printResiduals(saved_residuals(), os);
  return text;
}

std::string Split::print_fwd_bwd(DumpSyntax syntax, unsigned width) const {
  return mlir::cotangent::printFwdBwd(fwd(), bwd(), syntax, width);
}

Spec specOf(const interp::Tensor &t) {
  auto type = t.getType();
  return Spec{Shape(type.getShape().begin(), type.getShape().end()),
              fromMlirType(type.getElementType())};
}

std::vector<interp::Tensor> evaluate(const Split &split, func::FuncOp fn,
                                     const std::vector<interp::Tensor> &args,
                                     interp::MemoryStats *stats) {
  FailureOr<std::vector<interp::Tensor>> out = failure();
  std::string errors = collectDiagnostics(split.module().getContext(),
                                          [&] { out = interp::run(fn, args, stats); });
  if (failed(out))
    throw TraceError("evaluate @" + fn.getSymName().str() + ": " + errors);
  return *out;
}

} // namespace cotangent
