//===- TraceState.h - the machinery behind an active trace -----*- C++ -*-===//
//
// Internal to the tracer. A `TraceState` is the builder, module and stack of
// frames of one active trace; traces nest per thread. A `Frame` is one region
// being traced: the func.func body or the body of a jx.remat, jx.scan or
// jx.cond. Those regions are isolated from above, so using a tensor of an
// outer frame captures it: the inner frame gets a new block argument and
// records the outer value, which becomes an extra operand of the op that
// eventually owns the region (closure conversion, as JAX's closed jaxprs).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_TRACESTATE_H
#define COTANGENT_TRACER_TRACESTATE_H

#include "tracer/Tensor.h"

#include "dialects/jx/JxOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cotangent::detail {

/// One region being traced.
struct Frame {
  mlir::Block *block = nullptr;
  /// Owns `block` while the op that will hold the region does not exist yet
  /// (null for the function body).
  std::unique_ptr<mlir::Region> region;
  std::string fnName;
  /// Where the next captured value's block argument is inserted.
  unsigned captureIndex = 0;
  /// Captured values of the enclosing frame, in capture order.
  std::vector<mlir::Value> captured;
  llvm::DenseMap<mlir::Value, mlir::Value> captureMap;
};

/// The state of one active trace.
class TraceState {
public:
  explicit TraceState(mlir::MLIRContext *ctx, std::string rootName = "main");
  ~TraceState();
  TraceState(const TraceState &) = delete;
  TraceState &operator=(const TraceState &) = delete;

  uint64_t id() const { return id_; }
  mlir::MLIRContext *context() const { return ctx_; }
  mlir::OpBuilder &builder() { return builder_; }
  Frame &top() { return *frames_.back(); }
  /// The module of the traced function (null before its frame exists).
  mlir::ModuleOp module() const;
  size_t depth() const { return frames_.size(); }

  /// `loc("fn"("file":line:col))` for the innermost frame's function name.
  mlir::Location location(const SrcLoc &loc);
  /// `loc` under the current traced function's (or body's) name: for what
  /// the tracer itself adds to a body, such as its terminator.
  mlir::Location frameLocation(const SrcLoc &loc);

  /// Pushes a frame whose ops go into `block` (owned by `region` if given).
  Frame &pushFrame(mlir::Block *block, std::unique_ptr<mlir::Region> region,
                   std::string fnName, unsigned captureIndex);
  /// Pops the innermost frame and returns it (with its region and captures).
  std::unique_ptr<Frame> popFrame();

  /// `v` as seen from the innermost frame, capturing it through every frame
  /// between its definition and here. Throws if `v` is in no active frame.
  mlir::Value resolve(mlir::Value v, std::string_view op, const SrcLoc &loc);

  /// Diagnostics emitted since the last call (for error messages).
  std::string takeDiagnostics();

  /// Verifies `op` alone (not its regions); on failure erases it and throws
  /// a TraceError naming `opName`, the operand shapes and `loc`.
  void verifyOrThrow(mlir::Operation *op, std::string_view opName, const SrcLoc &loc);

private:
  uint64_t id_;
  mlir::MLIRContext *ctx_;
  mlir::OpBuilder builder_;
  std::vector<std::unique_ptr<Frame>> frames_;
  std::string rootName_;
  std::string diagnostics_;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> handler_;
};

/// The innermost active trace; throws if `op` is used outside any trace.
TraceState &activeTrace(std::string_view op, const SrcLoc &loc);

/// Checks that `t` belongs to the innermost active trace and returns its value
/// as seen from the current frame.
mlir::Value use(const Tensor &t, std::string_view op, const SrcLoc &loc);

/// Wraps a value of the innermost trace.
Tensor wrap(mlir::Value v, bool weak = false);

/// Formats shapes of types for error messages ("f32[5,4]").
std::vector<std::string> describe(mlir::TypeRange types);
std::vector<std::string> describe(const std::vector<Tensor> &tensors);

/// The ranked tensor type of `shape` x `dtype` in the active trace's context.
mlir::RankedTensorType tensorType(TraceState &s, const Shape &shape, DType dtype);

/// Checks, before building an op whose builder infers its result type, that
/// inference succeeds (builders abort on failure); throws a TraceError with
/// the shape rule's message otherwise.
template <class OpT>
void checkInference(TraceState &s, std::string_view opName, const SrcLoc &loc,
                    mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs) {
  mlir::MLIRContext *ctx = s.context();
  auto dict = mlir::DictionaryAttr::get(ctx, attrs);
  typename OpT::Properties props;
  mlir::Location l = s.location(loc);
  llvm::SmallVector<mlir::Type> types;
  bool ok = mlir::succeeded(OpT::setPropertiesFromAttr(
                props, dict, [&] { return mlir::emitError(l); })) &&
            mlir::succeeded(OpT::inferReturnTypes(
                ctx, l, typename OpT::Adaptor(operands, dict, props, {}), types));
  if (!ok)
    throwTraceError(opName, s.takeDiagnostics(), describe(mlir::TypeRange(operands)), loc);
}

/// Creates `OpT` at the innermost frame with the caller's location, then
/// verifies it (throwing instead of letting a malformed op through).
template <class OpT, class... Args>
OpT emit(std::string_view opName, const SrcLoc &loc, Args &&...args) {
  TraceState &s = activeTrace(opName, loc);
  auto op = OpT::create(s.builder(), s.location(loc), std::forward<Args>(args)...);
  s.verifyOrThrow(op, opName, loc);
  return op;
}

} // namespace cotangent::detail

#endif // COTANGENT_TRACER_TRACESTATE_H
