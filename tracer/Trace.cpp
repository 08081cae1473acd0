//===- Trace.cpp - trace sessions and the Traced result -------------------===//
//
// A session owns (or borrows) the context, creates the module and the
// func.func whose entry block receives the arguments, and at the end adds the
// return, fixes the function type, records argument and result names as
// `jx.arg_name` / `jx.result_name` attributes and verifies the module.
//
//===----------------------------------------------------------------------===//

#include "tracer/Trace.h"

#include "dialects/jx/JxSplit.h"
#include "passes/report/JaxprPrinter.h"
#include "tracer/TraceState.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace cotangent {

Traced::Traced(std::unique_ptr<MLIRContext> owned, OwningOpRef<ModuleOp> module)
    : owned_(std::move(owned)), module_(std::move(module)) {}
Traced::Traced(Traced &&) noexcept = default;
Traced &Traced::operator=(Traced &&other) noexcept {
  module_ = std::move(other.module_); // release the module before its context
  owned_ = std::move(other.owned_);
  return *this;
}
Traced::~Traced() { module_ = nullptr; }

MLIRContext *Traced::context() const { return module().getContext(); }

func::FuncOp Traced::func() const {
  return *module().getOps<func::FuncOp>().begin();
}

std::string Traced::mlir(bool withLocations) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  module().print(os, OpPrintingFlags().enableDebugInfo(withLocations));
  return s;
}

std::string Traced::jaxpr() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  mlir::cotangent::printJaxpr(func(), os);
  return s;
}

namespace detail {

struct TraceSession::Impl {
  std::unique_ptr<MLIRContext> owned;
  MLIRContext *ctx;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  Block *entry;
  SrcLoc loc;
  std::vector<std::string> argNames;
  std::unique_ptr<TraceState> state; // last: torn down first
};

TraceSession::TraceSession(const TraceOptions &opts, const SrcLoc &loc)
    : impl_(std::make_unique<Impl>()), opts_(opts) {
  Impl &I = *impl_;
  if (opts.context) {
    I.ctx = opts.context;
  } else {
    I.owned = std::make_unique<MLIRContext>();
    I.ctx = I.owned.get();
  }
  I.ctx->loadDialect<jx::JxDialect, func::FuncDialect>();
  I.loc = loc;
  I.state = std::make_unique<TraceState>(I.ctx, opts.name);
  Location l = I.state->location(loc);
  I.module = ModuleOp::create(l);
  OpBuilder b(I.ctx);
  b.setInsertionPointToEnd(I.module->getBody());
  I.func = func::FuncOp::create(b, l, opts.name, FunctionType::get(I.ctx, {}, {}));
  I.entry = new Block();
  I.func.getBody().push_back(I.entry);
  I.state->pushFrame(I.entry, nullptr, opts.name, 0);
}

TraceSession::~TraceSession() = default;

std::string argumentName(const TraceOptions &opts, size_t index) {
  if (index < opts.arg_names.size())
    return opts.arg_names[index];
  return "args[" + std::to_string(index) + "]";
}

Tensor TraceSession::addArgument(const Spec &spec, const std::string &name) {
  Impl &I = *impl_;
  for (int64_t d : spec.shape)
    if (d < 0)
      throwTraceError("trace", "argument " + name + " has a negative dimension", {}, I.loc);
  Value arg = I.entry->addArgument(tensorType(*I.state, spec.shape, spec.dtype),
                                   I.state->location(I.loc));
  I.argNames.push_back(name);
  return wrap(arg);
}

Traced TraceSession::finish(const std::vector<std::pair<std::string, Tensor>> &results) {
  Impl &I = *impl_;
  SmallVector<Value> values;
  for (const auto &[path, t] : results)
    values.push_back(use(t, "return", I.loc));
  I.func.setFunctionType(
      FunctionType::get(I.ctx, I.entry->getArgumentTypes(), ValueRange(values).getTypes()));
  func::ReturnOp::create(I.state->builder(), I.state->frameLocation(I.loc), values);
  // An empty name says nothing (and would not verify): leave it out.
  for (auto [i, name] : llvm::enumerate(I.argNames))
    if (!name.empty())
      jx::setArgName(I.func, i, name);
  for (auto [i, r] : llvm::enumerate(results))
    if (!r.first.empty())
      jx::setResultName(I.func, i, r.first);
  if (failed(verify(*I.module)))
    throwTraceError("trace", "the traced module does not verify: " + I.state->takeDiagnostics(),
                    {}, I.loc);
  I.state.reset();
  return Traced(std::move(I.owned), std::move(I.module));
}

} // namespace detail
} // namespace cotangent
