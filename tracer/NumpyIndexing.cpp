//===- NumpyIndexing.cpp - np::take, take_along_axis and scatter_add -----===//
//
// Indexing by run-time integer arrays. Indices of any shape are flattened
// to the 1-D form of jx.take / jx.scatter_add and the result reshaped back,
// negative indices count from the end (NumPy), and out-of-range ones are
// clamped (XLA's gather: jnp.take(..., mode="clip"), and what `x[i]`
// compiles to).
//
//===----------------------------------------------------------------------===//

#include "tracer/Broadcast.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"
#include "tracer/TraceState.h"

#include <limits>
#include <optional>

using namespace mlir;
using cotangent::detail::checkInference;
using cotangent::detail::emit;
using cotangent::detail::TraceState;
using cotangent::detail::use;
using cotangent::detail::wrap;

namespace cotangent::np {
namespace {

/// `indices` as the 1-D operand of jx.take / jx.scatter_add along an axis of
/// size n: integers checked, negatives mapped from the end, flattened.
Tensor flatIndices(const Tensor &x, const Tensor &indices, int64_t n, std::string_view op,
                   const SrcLoc &loc) {
  use(indices, op, loc);
  if (!isInteger(indices.dtype()))
    throwTraceError(op, "indices must be int32 or int64, got " + indices.str(),
                    {x.str(), indices.str()}, loc);
  Tensor wrapped = where(less(indices, 0, loc), add(indices, n, loc), indices, loc);
  return reshape(wrapped, {indices.size()}, loc);
}

/// x's shape with `axis` replaced by `inner`.
Shape replaceAxis(const Shape &shape, int64_t axis, const Shape &inner) {
  Shape out(shape.begin(), shape.begin() + axis);
  out.insert(out.end(), inner.begin(), inner.end());
  out.insert(out.end(), shape.begin() + axis + 1, shape.end());
  return out;
}

/// jx.take of x's slices along axis `a` at the 1-D indices `flat`.
Tensor emitTake(const Tensor &x, const Tensor &flat, int64_t a, std::string_view op,
                const SrcLoc &loc) {
  TraceState &s = detail::activeTrace(op, loc);
  auto axisAttr = s.builder().getI64IntegerAttr(a);
  Value operand = use(x, op, loc), idx = use(flat, op, loc);
  checkInference<jx::TakeOp>(s, op, loc, {operand, idx},
                             {s.builder().getNamedAttr("axis", axisAttr)});
  return wrap(emit<jx::TakeOp>(op, loc, operand, idx, axisAttr));
}

} // namespace

Tensor take(const Tensor &x, const Tensor &indices, int64_t axis, SrcLoc loc) {
  use(x, "take", loc);
  int64_t a = detail::normalizeAxis(axis, x.rank(), "take", x, loc);
  Tensor rows = emitTake(x, flatIndices(x, indices, x.shape()[a], "take", loc), a, "take", loc);
  return reshape(rows, replaceAxis(x.shape(), a, indices.shape()), loc);
}

Tensor take_along_axis(const Tensor &x, const Tensor &indices, int64_t axis, SrcLoc loc) {
  use(x, "take_along_axis", loc);
  use(indices, "take_along_axis", loc);
  int64_t a = detail::normalizeAxis(axis, x.rank(), "take_along_axis", x, loc);
  if (!isInteger(indices.dtype()) || indices.rank() != x.rank())
    throwTraceError("take_along_axis", "indices must be integers of x's rank",
                    {x.str(), indices.str()}, loc);
  // The result's shape: the indices' along `axis`, broadcast elsewhere.
  Shape out(x.shape());
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t xd = x.shape()[d], id = indices.shape()[d];
    if (d == a)
      out[d] = id;
    else if (xd == id || xd == 1 || id == 1)
      out[d] = std::max(xd, id);
    else
      throwTraceError("take_along_axis",
                      "x and indices must broadcast on every axis but " + std::to_string(a),
                      {x.str(), indices.str()}, loc);
  }
  Shape source = out;
  source[a] = x.shape()[a];
  Tensor operand = broadcast_to(x, source, loc);
  // Element positions are i32 unless x has more elements than i32 counts.
  DType position = operand.size() > std::numeric_limits<int32_t>::max() ? DType::I64 : DType::I32;
  const int64_t n = x.shape()[a];
  Tensor picked = astype(broadcast_to(indices, out, loc), position, loc);
  picked = clip(where(less(picked, 0, loc), add(picked, n, loc), picked, loc), 0, n - 1, loc);
  // Row-major position in `operand` of every result element.
  std::optional<Tensor> flat;
  int64_t stride = 1;
  for (int64_t d = x.rank() - 1; d >= 0; --d) {
    Tensor coordinate = picked;
    if (d != a) {
      Shape along(out.size(), 1);
      along[d] = out[d];
      coordinate = broadcast_to(reshape(astype(arange(out[d], loc), position, loc), along, loc),
                                out, loc);
    }
    Tensor term = stride == 1 ? coordinate : multiply(coordinate, stride, loc);
    flat = flat ? add(*flat, term, loc) : term;
    stride *= source[d];
  }
  Shape positions{1};
  for (int64_t e : out)
    positions[0] *= e;
  // The positions are in range already: jx.take directly, not np::take's
  // normalization again.
  Tensor rows = emitTake(reshape(operand, {operand.size()}, loc), reshape(*flat, positions, loc), 0,
                         "take_along_axis", loc);
  return reshape(rows, out, loc);
}

Tensor scatter_add(const Tensor &x, const Tensor &indices, const Tensor &updates, int64_t axis,
                   SrcLoc loc) {
  use(x, "scatter_add", loc);
  use(updates, "scatter_add", loc);
  int64_t a = detail::normalizeAxis(axis, x.rank(), "scatter_add", x, loc);
  Shape expected = replaceAxis(x.shape(), a, indices.shape());
  if (updates.shape() != expected || updates.dtype() != x.dtype())
    throwTraceError("scatter_add",
                    "updates must be " + shapeString(x.dtype(), expected) +
                        " (x's shape with axis " + std::to_string(a) +
                        " replaced by the indices' shape), got " + updates.str(),
                    {x.str(), indices.str(), updates.str()}, loc);
  Tensor flat = flatIndices(x, indices, x.shape()[a], "scatter_add", loc);
  Tensor rows = reshape(updates, replaceAxis(x.shape(), a, {indices.size()}), loc);
  TraceState &s = detail::activeTrace("scatter_add", loc);
  return wrap(emit<jx::ScatterAddOp>("scatter_add", loc, use(x, "scatter_add", loc),
                                     use(flat, "scatter_add", loc),
                                     use(rows, "scatter_add", loc),
                                     s.builder().getI64IntegerAttr(a)));
}

} // namespace cotangent::np
