//===- NumpyShape.cpp - np's shape, creation and slicing functions --------===//
//
// Shape manipulation validates its arguments here, before any builder runs:
// ops whose result type is a parameter (reshape, broadcast_in_dim) cannot
// infer, and those that infer would abort on bad input.
//
//===----------------------------------------------------------------------===//

#include "tracer/Broadcast.h"
#include "tracer/Numpy.h"
#include "tracer/TraceState.h"

#include <algorithm>

using namespace mlir;
using cotangent::detail::checkInference;
using cotangent::detail::emit;
using cotangent::detail::TraceState;
using cotangent::detail::use;
using cotangent::detail::wrap;

namespace cotangent::np {
namespace {

std::string join(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// Normalized, sorted, distinct axes of a rank-`rank` tensor.
std::vector<int64_t> normalizeAxes(const std::vector<int64_t> &axes, int64_t rank,
                                   std::string_view op, const Tensor &t, const SrcLoc &loc) {
  std::vector<int64_t> out;
  for (int64_t a : axes)
    out.push_back(detail::normalizeAxis(a, rank, op, t, loc));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    throwTraceError(op, "repeated axis in " + join(axes), {t.str()}, loc);
  return out;
}

} // namespace

Tensor reshape(const Tensor &x, Shape shape, SrcLoc loc) {
  Value v = use(x, "reshape", loc);
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred < 0)
      inferred = static_cast<int64_t>(i);
    else if (shape[i] < 0)
      throwTraceError("reshape", "invalid target shape " + join(shape), {x.str()}, loc);
    else
      known *= shape[i];
  }
  if (inferred >= 0 && known != 0 && x.size() % known == 0)
    shape[inferred] = x.size() / known;
  if ((inferred >= 0 && shape[inferred] < 0) || (inferred < 0 && known != x.size()) ||
      (inferred >= 0 && known * shape[inferred] != x.size()))
    throwTraceError("reshape", "cannot reshape " + x.str() + " into shape " + join(shape),
                    {x.str()}, loc);
  if (shape == x.shape())
    return x;
  TraceState &s = detail::activeTrace("reshape", loc);
  return wrap(emit<jx::ReshapeOp>("reshape", loc, detail::tensorType(s, shape, x.dtype()), v));
}

Tensor transpose(const Tensor &x, std::vector<int64_t> perm, SrcLoc loc) {
  Value v = use(x, "transpose", loc);
  if (perm.empty())
    for (int64_t i = x.rank() - 1; i >= 0; --i)
      perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != x.rank())
    throwTraceError("transpose", "permutation " + join(perm) + " does not match rank " +
                                     std::to_string(x.rank()),
                    {x.str()}, loc);
  for (int64_t &p : perm)
    p = detail::normalizeAxis(p, x.rank(), "transpose", x, loc);
  TraceState &s = detail::activeTrace("transpose", loc);
  auto attr = s.builder().getDenseI64ArrayAttr(perm);
  checkInference<jx::TransposeOp>(s, "transpose", loc, v,
                                  {s.builder().getNamedAttr("permutation", attr)});
  return wrap(emit<jx::TransposeOp>("transpose", loc, v, attr));
}

Tensor broadcast_to(const Tensor &x, const Shape &shape, SrcLoc loc) {
  use(x, "broadcast_in_dim", loc);
  return detail::broadcastTo(x, shape, "broadcast_in_dim", loc);
}

Tensor expand_dims(const Tensor &x, Axes axes, SrcLoc loc) {
  Value v = use(x, "expand_dims", loc);
  if (!axes.axes)
    throwTraceError("expand_dims", "needs explicit axes", {x.str()}, loc);
  int64_t rank = x.rank() + static_cast<int64_t>(axes.axes->size());
  std::vector<int64_t> dims = normalizeAxes(*axes.axes, rank, "expand_dims", x, loc);
  TraceState &s = detail::activeTrace("expand_dims", loc);
  return wrap(emit<jx::ExpandDimsOp>("expand_dims", loc, v, s.builder().getDenseI64ArrayAttr(dims)));
}

Tensor squeeze(const Tensor &x, Axes axes, SrcLoc loc) {
  Value v = use(x, "squeeze", loc);
  std::vector<int64_t> dims;
  if (!axes.axes) {
    for (int64_t i = 0; i < x.rank(); ++i)
      if (x.shape()[i] == 1)
        dims.push_back(i);
  } else {
    dims = normalizeAxes(*axes.axes, x.rank(), "squeeze", x, loc);
    for (int64_t d : dims)
      if (x.shape()[d] != 1)
        throwTraceError("squeeze", "cannot squeeze axis " + std::to_string(d) + " of size " +
                                       std::to_string(x.shape()[d]),
                        {x.str()}, loc);
  }
  if (dims.empty())
    return x;
  TraceState &s = detail::activeTrace("squeeze", loc);
  return wrap(emit<jx::SqueezeOp>("squeeze", loc, v, s.builder().getDenseI64ArrayAttr(dims)));
}

Tensor concatenate(const std::vector<Tensor> &xs, int64_t axis, SrcLoc loc) {
  if (xs.empty())
    throwTraceError("concatenate", "needs at least one tensor", {}, loc);
  std::vector<Operand> ops(xs.begin(), xs.end());
  std::vector<PromotionInput> inputs;
  for (const Tensor &t : xs) {
    use(t, "concatenate", loc);
    inputs.push_back({t.dtype(), t.weak()});
  }
  DType dtype = promoteTypes(inputs);
  int64_t a = detail::normalizeAxis(axis, xs[0].rank(), "concatenate", xs[0], loc);
  SmallVector<Value> values;
  for (const Tensor &t : xs)
    values.push_back(use(detail::convertTo(t, dtype, loc), "concatenate", loc));
  TraceState &s = detail::activeTrace("concatenate", loc);
  auto attr = s.builder().getI64IntegerAttr(a);
  checkInference<jx::ConcatenateOp>(s, "concatenate", loc, values,
                                    {s.builder().getNamedAttr("dimension", attr)});
  return wrap(emit<jx::ConcatenateOp>("concatenate", loc, values, attr));
}

Tensor stack(const std::vector<Tensor> &xs, int64_t axis, SrcLoc loc) {
  if (xs.empty())
    throwTraceError("stack", "needs at least one tensor", {}, loc);
  std::vector<Tensor> expanded;
  int64_t a = detail::normalizeAxis(axis, xs[0].rank() + 1, "stack", xs[0], loc);
  for (const Tensor &t : xs)
    expanded.push_back(expand_dims(t, a, loc));
  return concatenate(expanded, a, loc);
}

Tensor astype(const Tensor &x, DType dtype, SrcLoc loc) {
  use(x, "convert_element_type", loc);
  return detail::convertTo(x, dtype, loc);
}

Tensor full(const Shape &shape, double value, DType dtype, SrcLoc loc) {
  for (int64_t d : shape)
    if (d < 0)
      throwTraceError("constant", "negative dimension in shape " + join(shape), {}, loc);
  return detail::splat(value, dtype, shape, loc);
}
Tensor asarray(const interp::Tensor &value, SrcLoc loc) {
  TraceState &s = detail::activeTrace("constant", loc);
  DType dtype = fromMlirType(value.getElementType());
  // Rebuilt in the trace's context: `value` may belong to another one.
  RankedTensorType type = detail::tensorType(s, value.getShape().vec(), dtype);
  Type element = type.getElementType();
  SmallVector<Attribute> elements;
  for (int64_t i = 0; i < value.getNumElements(); ++i) {
    if (isFloating(dtype))
      elements.push_back(FloatAttr::get(element, value.getDouble(i)));
    else
      elements.push_back(IntegerAttr::get(element, value.getInt(i)));
  }
  return wrap(emit<jx::ConstantOp>("constant", loc, DenseElementsAttr::get(type, elements)));
}

Tensor zeros(const Shape &shape, DType dtype, SrcLoc loc) { return full(shape, 0, dtype, loc); }
Tensor ones(const Shape &shape, DType dtype, SrcLoc loc) { return full(shape, 1, dtype, loc); }
Tensor zeros_like(const Tensor &x, SrcLoc loc) {
  use(x, "constant", loc);
  return full(x.shape(), 0, x.dtype(), loc);
}
Tensor ones_like(const Tensor &x, SrcLoc loc) {
  use(x, "constant", loc);
  return full(x.shape(), 1, x.dtype(), loc);
}

Tensor arange(int64_t stop, SrcLoc loc) { return arange(0, stop, 1, loc); }

Tensor arange(int64_t start, int64_t stop, int64_t step, SrcLoc loc) {
  if (step == 0)
    throwTraceError("iota", "arange step must not be zero", {}, loc);
  int64_t n = std::max<int64_t>(0, (stop - start + step - (step > 0 ? 1 : -1)) / step);
  TraceState &s = detail::activeTrace("iota", loc);
  Tensor t = wrap(emit<jx::IotaOp>("iota", loc, detail::tensorType(s, {n}, DType::I32),
                                   s.builder().getI64IntegerAttr(0)));
  if (step != 1)
    t = multiply(t, step, loc);
  if (start != 0)
    t = add(t, start, loc);
  return t;
}

Tensor slice(const Tensor &x, const std::vector<int64_t> &start, const std::vector<int64_t> &limit,
             std::vector<int64_t> strides, SrcLoc loc) {
  Value v = use(x, "slice", loc);
  if (strides.empty())
    strides.assign(x.rank(), 1);
  TraceState &s = detail::activeTrace("slice", loc);
  OpBuilder &b = s.builder();
  auto st = b.getDenseI64ArrayAttr(start), li = b.getDenseI64ArrayAttr(limit),
       sd = b.getDenseI64ArrayAttr(strides);
  checkInference<jx::SliceOp>(s, "slice", loc, v,
                              {b.getNamedAttr("start_indices", st),
                               b.getNamedAttr("limit_indices", li), b.getNamedAttr("strides", sd)});
  return wrap(emit<jx::SliceOp>("slice", loc, v, st, li, sd));
}

Tensor slice_in_dim(const Tensor &x, int64_t start, int64_t limit, int64_t stride, int64_t axis,
                    SrcLoc loc) {
  use(x, "slice", loc);
  int64_t a = detail::normalizeAxis(axis, x.rank(), "slice", x, loc);
  std::vector<int64_t> starts(x.rank(), 0), limits(x.shape()), strides(x.rank(), 1);
  starts[a] = start;
  limits[a] = limit;
  strides[a] = stride;
  return slice(x, starts, limits, strides, loc);
}

Tensor index_in_dim(const Tensor &x, int64_t i, int64_t axis, SrcLoc loc) {
  use(x, "slice", loc);
  int64_t a = detail::normalizeAxis(axis, x.rank(), "slice", x, loc);
  int64_t size = x.shape()[a];
  int64_t idx = i < 0 ? i + size : i;
  if (idx < 0 || idx >= size)
    throwTraceError("slice", "index " + std::to_string(i) + " is out of bounds for axis " +
                                 std::to_string(a) + " of size " + std::to_string(size),
                    {x.str()}, loc);
  return squeeze(slice_in_dim(x, idx, idx + 1, 1, a, loc), a, loc);
}

Tensor dynamic_slice(const Tensor &x, const std::vector<Tensor> &starts,
                     const std::vector<int64_t> &sizes, SrcLoc loc) {
  Value v = use(x, "dynamic_slice", loc);
  SmallVector<Value> idx;
  for (const Tensor &t : starts) {
    use(t, "dynamic_slice", loc);
    if (t.rank() != 0 || !isInteger(t.dtype()))
      throwTraceError("dynamic_slice", "start indices must be 0-d integer tensors, got " + t.str(),
                      {x.str(), t.str()}, loc);
    idx.push_back(use(t, "dynamic_slice", loc));
  }
  TraceState &s = detail::activeTrace("dynamic_slice", loc);
  auto attr = s.builder().getDenseI64ArrayAttr(sizes);
  SmallVector<Value> operands{v};
  operands.append(idx.begin(), idx.end());
  checkInference<jx::DynamicSliceOp>(s, "dynamic_slice", loc, operands,
                                     {s.builder().getNamedAttr("slice_sizes", attr)});
  return wrap(emit<jx::DynamicSliceOp>("dynamic_slice", loc, v, idx, attr));
}

Tensor dynamic_index_in_dim(const Tensor &x, const Tensor &i, int64_t axis, SrcLoc loc) {
  use(x, "dynamic_slice", loc);
  int64_t a = detail::normalizeAxis(axis, x.rank(), "dynamic_slice", x, loc);
  Tensor zero = full({}, 0, i.dtype() == DType::I64 ? DType::I64 : DType::I32, loc);
  std::vector<Tensor> starts(x.rank(), zero);
  starts[a] = i;
  Shape sizes = x.shape();
  sizes[a] = 1;
  return squeeze(dynamic_slice(x, starts, sizes, loc), a, loc);
}

Tensor dynamic_update_slice(const Tensor &x, const Tensor &update,
                            const std::vector<Tensor> &starts, SrcLoc loc) {
  Value v = use(x, "dynamic_update_slice", loc);
  use(update, "dynamic_update_slice", loc);
  Tensor u = detail::convertTo(update, x.dtype(), loc);
  SmallVector<Value> idx;
  for (const Tensor &t : starts) {
    use(t, "dynamic_update_slice", loc);
    if (t.rank() != 0 || !isInteger(t.dtype()))
      throwTraceError("dynamic_update_slice",
                      "start indices must be 0-d integer tensors, got " + t.str(), {x.str()}, loc);
    idx.push_back(use(t, "dynamic_update_slice", loc));
  }
  return wrap(emit<jx::DynamicUpdateSliceOp>("dynamic_update_slice", loc, v,
                                             use(u, "dynamic_update_slice", loc), idx));
}

} // namespace cotangent::np
