//===- Autodiff.cpp - vjp, grad and value_and_grad over traced C++ --------===//

#include "tracer/Autodiff.h"
#include "tracer/DType.h"
#include "tracer/Errors.h"
#include "tracer/TraceState.h"
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
  if (options.remat) {
    mlir::cotangent::JxRematPassOptions remat;
    if (!options.defaultPolicy.empty())
      remat.defaultPolicy = options.defaultPolicy;
    remat.budgetStep = options.budgetStep;
    if (options.budgetSeconds)
      remat.budgetSeconds = *options.budgetSeconds;
    pm.addPass(mlir::cotangent::createJxRematPass(remat));
  }
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

namespace detail {

std::vector<interp::Tensor> FlatArguments::values() const {
  std::vector<interp::Tensor> out;
  for (const auto &leaf : leaves)
    out.push_back(leaf.second);
  return out;
}

std::vector<interp::Tensor> gradSeeds(const StagedGrad &staged) {
  std::vector<interp::Tensor> seeds;
  if (!staged.seeded)
    return seeds;
  for (size_t i = 0; i < staged.results.size(); ++i)
    seeds.push_back(i == 0 ? interp::Tensor::fromDoubles(staged.results[i], {1.0})
                           : interp::Tensor(staged.results[i]));
  return seeds;
}

std::string signatureKey(const std::vector<LeafSignature> &signature) {
  std::string key;
  for (const LeafSignature &leaf : signature)
    key += leaf.path + ":" + leaf.type + ";";
  return key;
}

void checkDifferentiable(const std::vector<std::pair<std::string, interp::Tensor>> &leaves,
                         size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i)
    if (!isa<FloatType>(leaves[i].second.getElementType()))
      throw TraceError("grad: " + leaves[i].first + " is " +
                       mlir::cotangent::shortTypeName(leaves[i].second.getType()) +
                       ": only float arguments can be differentiated (leave it out of argnums)");
}

void checkDifferentiableTraced(const std::vector<std::pair<std::string, Tensor>> &leaves,
                               size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i)
    if (!isFloating(leaves[i].second.dtype()))
      throw TraceError("grad: " + leaves[i].first + " is " + leaves[i].second.str() +
                       ": only float arguments can be differentiated (leave it out of argnums)");
}

std::string freshGradName() {
  TraceState &s = activeTrace("grad", SrcLoc::current());
  ModuleOp module = s.module();
  for (int n = 0;; ++n) {
    std::string name = "grad_" + std::to_string(n);
    bool used = module && llvm::any_of(module.getOps<func::FuncOp>(), [&](func::FuncOp f) {
                  return f.getSymName().starts_with(name);
                });
    if (!used)
      return name;
  }
}

std::vector<Tensor> callStagedGrad(const Split &split, const StagedGrad &staged,
                                   const std::vector<Tensor> &inputs, const SrcLoc &loc) {
  TraceState &s = activeTrace("grad", loc);
  ModuleOp module = s.module();
  if (!module)
    throw TraceError("grad: no traced function to call the gradient from");
  // After the traced function, which stays the module's first.
  for (func::FuncOp f : split.module().getOps<func::FuncOp>()) {
    if (module.lookupSymbol(f.getSymName()))
      throw TraceError("grad: '" + f.getSymName().str() + "' is already in the traced module");
    module.push_back(f.clone());
  }
  auto callee = module.lookupSymbol<func::FuncOp>(staged.entry);
  SmallVector<Value> operands;
  for (const Tensor &t : inputs)
    operands.push_back(use(t, "grad", loc));
  for (const interp::Tensor &seed : gradSeeds(staged))
    operands.push_back(use(np::asarray(seed, loc), "grad", loc));
  auto call = emit<func::CallOp>("grad", loc, callee, operands);
  std::vector<Tensor> out;
  for (Value r : call.getResults())
    out.push_back(wrap(r));
  return out;
}

void describeGradResults(const Split &split, bool hasAux, StagedGrad &staged) {
  func::FuncOp primal = split.primal();
  for (Type t : primal.getResultTypes())
    staged.results.push_back(cast<RankedTensorType>(t));
  auto loss = staged.results.empty() ? RankedTensorType() : staged.results.front();
  bool scalarFloat = loss && loss.getRank() == 0 && isa<FloatType>(loss.getElementType());
  std::string got = loss ? mlir::cotangent::shortTypeName(loss) : "nothing";
  if (hasAux) {
    if (!scalarFloat)
      throw TraceError("grad (has_aux): the loss, first of std::pair{loss, aux}, must be one "
                       "scalar float tensor, got " + got);
    staged.entry = (primal.getSymName() + "_vjp").str();
    staged.seeded = true;
    return;
  }
  if (!scalarFloat || staged.results.size() != 1)
    throw TraceError("grad: the function must return one scalar float tensor, got " +
                     (staged.results.size() == 1 ? got
                                                 : std::to_string(staged.results.size()) +
                                                       " results (use has_aux for more)"));
  staged.entry = split.value_and_grad().getSymName().str();
}

void checkCotangent(
    const std::vector<LeafSignature> &outputs,
    const std::vector<std::pair<std::string, interp::Tensor>> &cotangent) {
  if (std::string diff = describeMismatch(outputs, signatureOf(cotangent)); !diff.empty())
    throwTreeMismatch("pullback: the cotangent must be shaped like the output", diff);
}

} // namespace detail

} // namespace cotangent

