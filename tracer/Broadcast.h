//===- Broadcast.h - implicit broadcasting and promotion, made explicit -*- C++ -*-===//
//
// Internal to the tracer. NumPy-style implicit conversions become explicit
// jx ops, as in a jaxpr: a dtype change is a jx.convert_element_type, a shape
// change a jx.broadcast_in_dim, and a C++ scalar a splat jx.constant of the
// dtype it adopts.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_BROADCAST_H
#define COTANGENT_TRACER_BROADCAST_H

#include "tracer/Tensor.h"

#include <optional>
#include <span>
#include <string_view>

namespace cotangent::detail {

/// NumPy's broadcast of `shapes` (aligned at the trailing dimension); throws
/// a TraceError naming `op` if two sizes differ and neither is 1.
Shape broadcastShapes(const std::vector<Shape> &shapes, std::string_view op,
                      const std::vector<std::string> &described, const SrcLoc &loc);

/// `t` with the shape `shape`, through jx.broadcast_in_dim when it differs.
Tensor broadcastTo(const Tensor &t, const Shape &shape, std::string_view op, const SrcLoc &loc);

/// `t` converted to `dtype` (jx.convert_element_type when it differs).
Tensor convertTo(const Tensor &t, DType dtype, const SrcLoc &loc);

/// A splat jx.constant.
Tensor splat(double value, DType dtype, const Shape &shape, const SrcLoc &loc, bool weak = false);

/// The operands as tensors of one shape and one dtype: the promoted dtype
/// (or `dtype` if given) and the broadcast shape. Scalars become weak constants.
std::vector<Tensor> harmonize(std::span<const Operand> operands, std::string_view op,
                              const SrcLoc &loc, std::optional<DType> dtype = std::nullopt);

/// The dtype JAX computes in for an op that needs floats ("inexact"): ints
/// and bools become f32.
DType inexact(DType t);

/// Normalizes a possibly negative axis of a rank-`rank` tensor; throws if
/// out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank, std::string_view op, const Tensor &t,
                      const SrcLoc &loc);

} // namespace cotangent::detail

#endif // COTANGENT_TRACER_BROADCAST_H
