//===- TraceState.cpp - active traces, frames and closure conversion ------===//
//
// Keeps the per-thread stack of active traces, checks that tensors belong to
// the innermost one, and captures values of outer frames into the isolated
// regions being traced.
//
//===----------------------------------------------------------------------===//

#include "tracer/TraceState.h"

#include "mlir/IR/Verifier.h"

#include <atomic>

namespace cotangent::detail {
namespace {

thread_local std::vector<TraceState *> activeStack;
std::atomic<uint64_t> nextTraceId{1};

} // namespace

TraceState::TraceState(mlir::MLIRContext *ctx, std::string rootName)
    : id_(nextTraceId++), ctx_(ctx), builder_(ctx), rootName_(std::move(rootName)) {
  handler_ = std::make_unique<mlir::ScopedDiagnosticHandler>(ctx, [this](mlir::Diagnostic &d) {
    if (!diagnostics_.empty())
      diagnostics_ += "; ";
    diagnostics_ += d.str();
    return mlir::success();
  });
  activeStack.push_back(this);
}

TraceState::~TraceState() {
  // Traces end in LIFO order, also when unwinding.
  if (!activeStack.empty() && activeStack.back() == this)
    activeStack.pop_back();
  while (!frames_.empty())
    frames_.pop_back();
}

/// The bare name of a named C++ function from std::source_location's
/// function_name() ("Tensor {anonymous}::g(Tensor, Tensor)" from gcc,
/// "Tensor (anonymous namespace)::g(Tensor, Tensor)" from clang -> "g");
/// empty for lambdas and operators, which have no name a user would
/// recognize.
static std::string_view namedFunction(std::string_view pretty) {
  if (pretty.find("<lambda") != std::string_view::npos ||
      pretty.find("lambda at ") != std::string_view::npos ||
      pretty.find("operator") != std::string_view::npos)
    return {};
  // The parameter list is the first '(' that does not open clang's
  // "(anonymous namespace)".
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  size_t open = 0;
  while ((open = pretty.find('(', open)) != std::string_view::npos &&
         pretty.substr(open, kAnonymous.size()) == kAnonymous)
    open += kAnonymous.size();
  std::string_view head = pretty.substr(0, open);
  if (!head.empty() && head.back() == '>') { // a template's arguments: g<int>
    int depth = 0;
    size_t i = head.size();
    while (i-- > 0) {
      depth += head[i] == '>' ? 1 : head[i] == '<' ? -1 : 0;
      if (depth == 0)
        break;
    }
    head = head.substr(0, i);
  }
  size_t start = head.find_last_of(": *&");
  return start == std::string_view::npos ? head : head.substr(start + 1);
}

mlir::Location TraceState::location(const SrcLoc &loc) {
  // Like JAX's source info: the function the op was written in, when it has
  // a name; else the traced function (or checkpoint/scan body) it belongs to.
  std::string_view name = namedFunction(loc.function_name());
  if (name.empty() || name == "main")
    return frameLocation(loc);
  auto fileLoc = mlir::FileLineColLoc::get(ctx_, loc.file_name(), loc.line(), loc.column());
  return mlir::NameLoc::get(mlir::StringAttr::get(ctx_, name), fileLoc);
}

mlir::Location TraceState::frameLocation(const SrcLoc &loc) {
  auto fileLoc = mlir::FileLineColLoc::get(ctx_, loc.file_name(), loc.line(), loc.column());
  std::string_view name = frames_.empty() ? rootName_ : top().fnName;
  return mlir::NameLoc::get(mlir::StringAttr::get(ctx_, name), fileLoc);
}

mlir::ModuleOp TraceState::module() const {
  if (frames_.empty() || !frames_.front()->block || !frames_.front()->block->getParentOp())
    return {};
  return frames_.front()->block->getParentOp()->getParentOfType<mlir::ModuleOp>();
}

Frame &TraceState::pushFrame(mlir::Block *block, std::unique_ptr<mlir::Region> region,
                             std::string fnName, unsigned captureIndex) {
  auto frame = std::make_unique<Frame>();
  frame->block = block;
  frame->region = std::move(region);
  frame->fnName = std::move(fnName);
  frame->captureIndex = captureIndex;
  frames_.push_back(std::move(frame));
  builder_.setInsertionPointToEnd(block);
  return top();
}

std::unique_ptr<Frame> TraceState::popFrame() {
  std::unique_ptr<Frame> frame = std::move(frames_.back());
  frames_.pop_back();
  if (!frames_.empty())
    builder_.setInsertionPointToEnd(top().block);
  return frame;
}

mlir::Value TraceState::resolve(mlir::Value v, std::string_view op, const SrcLoc &loc) {
  mlir::Block *home = v.getParentBlock();
  size_t j = frames_.size();
  for (size_t i = 0; i < frames_.size(); ++i)
    if (frames_[i]->block == home)
      j = i;
  if (j == frames_.size())
    throwTraceError(op,
                    "a tensor escaped from a finished checkpoint, scan or cond body; return "
                    "it from the body instead",
                    describe(mlir::TypeRange(v.getType())), loc);
  // Thread the value through every frame between its home and the innermost.
  for (size_t k = j + 1; k < frames_.size(); ++k) {
    Frame &f = *frames_[k];
    auto it = f.captureMap.find(v);
    if (it != f.captureMap.end()) {
      v = it->second;
      continue;
    }
    mlir::Value arg = f.block->insertArgument(f.captureIndex++, v.getType(), v.getLoc());
    f.captured.push_back(v);
    f.captureMap[v] = arg;
    v = arg;
  }
  return v;
}

std::string TraceState::takeDiagnostics() {
  std::string d = std::move(diagnostics_);
  diagnostics_.clear();
  return d.empty() ? "invalid operands" : d;
}

void TraceState::verifyOrThrow(mlir::Operation *op, std::string_view opName, const SrcLoc &loc) {
  if (mlir::succeeded(mlir::verify(op, /*verifyRecursively=*/false)))
    return;
  std::vector<std::string> shapes = describe(op->getOperandTypes());
  op->erase();
  throwTraceError(opName, takeDiagnostics(), shapes, loc);
}

TraceState &activeTrace(std::string_view op, const SrcLoc &loc) {
  if (activeStack.empty())
    throwTraceError(op, "called outside of a trace (use cotangent::trace)", {}, loc);
  return *activeStack.back();
}

mlir::Value use(const Tensor &t, std::string_view op, const SrcLoc &loc) {
  if (!t.valid())
    throwTraceError(op, "uses a default-constructed Tensor that holds no value", {}, loc);
  TraceState &s = activeTrace(op, loc);
  if (t.traceId() != s.id()) {
    bool enclosing = false;
    for (TraceState *other : activeStack)
      enclosing |= other->id() == t.traceId();
    throwTraceError(op,
                    enclosing ? "tensor " + t.str() + " comes from another trace (an enclosing one)"
                              : "tensor " + t.str() + " comes from another trace, which has finished",
                    {t.str()}, loc);
  }
  return s.resolve(t.value(), op, loc);
}

Tensor wrap(mlir::Value v, bool weak) {
  return Tensor::fromValue(activeStack.back()->id(), v, weak);
}

std::vector<std::string> describe(mlir::TypeRange types) {
  std::vector<std::string> out;
  for (mlir::Type t : types) {
    auto ranked = mlir::dyn_cast<mlir::RankedTensorType>(t);
    if (!ranked) {
      out.push_back("?");
      continue;
    }
    out.push_back(shapeString(fromMlirType(ranked.getElementType()),
                              Shape(ranked.getShape().begin(), ranked.getShape().end())));
  }
  return out;
}

std::vector<std::string> describe(const std::vector<Tensor> &tensors) {
  std::vector<std::string> out;
  for (const Tensor &t : tensors)
    out.push_back(t.str());
  return out;
}

mlir::RankedTensorType tensorType(TraceState &s, const Shape &shape, DType dtype) {
  return mlir::RankedTensorType::get(shape, toMlirType(s.context(), dtype));
}

} // namespace cotangent::detail
