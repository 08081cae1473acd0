//===- Region.h - tracing the isolated regions of jx ops --------*- C++ -*-===//
//
// Internal to the tracer. `RegionTrace` traces one region of a jx.remat,
// jx.scan or jx.cond: it resolves the explicit operands in the enclosing
// frame, pushes a frame whose block takes them as arguments, and at the end
// yields the results and pops the frame, leaving the captured outer values
// (the closure) to become extra operands. If the body throws, the destructor
// pops the frame and drops the half-built region.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_REGION_H
#define COTANGENT_TRACER_REGION_H

#include "tracer/TraceState.h"

namespace cotangent::detail {

class RegionTrace {
public:
  /// `fnName` names the body in op locations; empty inherits the enclosing one.
  RegionTrace(std::string_view opName, std::string fnName, const SrcLoc &loc);
  ~RegionTrace();

  /// Block arguments for `types`, and captures inserted at `captureIndex`
  /// (counted among these arguments). Returns the block arguments.
  std::vector<Tensor> begin(mlir::TypeRange types, unsigned captureIndex);
  /// Pre-captures `outer` (a value of the enclosing frame), e.g. so that all
  /// branches of a cond share a capture order.
  void precapture(mlir::Value outer);
  /// Yields `results` and pops the frame; returns it (region and captures).
  std::unique_ptr<Frame> end(const std::vector<Tensor> &results);

  TraceState &state() { return state_; }
  mlir::Location location() { return state_.location(loc_); }
  const SrcLoc &loc() const { return loc_; }
  std::string_view opName() const { return opName_; }

private:
  TraceState &state_;
  std::string opName_;
  std::string fnName_;
  SrcLoc loc_;
  size_t depth_ = 0; // frames below ours, 0 until begin()
};

/// Values of `tensors` in the current frame (checks each belongs here).
llvm::SmallVector<mlir::Value> useAll(const std::vector<Tensor> &tensors, std::string_view op,
                                      const SrcLoc &loc);
/// Types of `tensors`.
llvm::SmallVector<mlir::Type> typesOf(const std::vector<Tensor> &tensors);

} // namespace cotangent::detail

#endif // COTANGENT_TRACER_REGION_H
