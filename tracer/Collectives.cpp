//===- Collectives.cpp - jax.lax's collectives over traced tensors --------===//
//
// Each function emits its jx op; the op's verifier (through emit) turns a
// bad axis, size, dimension or pair into a TraceError at the caller.
//
//===----------------------------------------------------------------------===//

#include "tracer/Collectives.h"

#include "tracer/TraceState.h"

#include "dialects/jx/JxOps.h"

using namespace mlir;
using cotangent::detail::emit;
using cotangent::detail::TraceState;
using cotangent::detail::use;
using cotangent::detail::wrap;

namespace cotangent::lax {

namespace {

/// all_gather's result shape, or psum_scatter's operand's, from one rank's
/// (a dimension out of range is left for the op's verifier to report).
Shape gathered(const Shape &part, int64_t axisSize, int64_t dimension, bool tiled) {
  Shape out = part;
  if (dimension < 0 || dimension > static_cast<int64_t>(part.size()) ||
      (tiled && dimension == static_cast<int64_t>(part.size())))
    return out;
  if (tiled)
    out[dimension] *= axisSize;
  else
    out.insert(out.begin() + dimension, axisSize);
  return out;
}

/// psum_scatter's result shape from its operand's.
Shape scattered(const Shape &whole, int64_t axisSize, int64_t dimension, bool tiled) {
  Shape out = whole;
  if (dimension < 0 || dimension >= static_cast<int64_t>(whole.size()) || axisSize < 1)
    return out;
  if (tiled)
    out[dimension] /= axisSize;
  else
    out.erase(out.begin() + dimension);
  return out;
}

/// all_gather or psum_scatter of `x` into `shape`.
template <class OpT>
Tensor resized(const char *name, const Tensor &x, const Shape &shape, const std::string &axis,
               int64_t axisSize, int64_t dimension, bool tiled, const SrcLoc &loc) {
  TraceState &s = detail::activeTrace(name, loc);
  OpBuilder &b = s.builder();
  return wrap(emit<OpT>(name, loc, detail::tensorType(s, shape, x.dtype()), use(x, name, loc),
                        b.getStringAttr(axis), b.getI64IntegerAttr(axisSize),
                        b.getI64IntegerAttr(dimension), tiled ? b.getUnitAttr() : UnitAttr()));
}

} // namespace

Tensor psum(const Tensor &x, const std::string &axis, SrcLoc loc) {
  TraceState &s = detail::activeTrace("psum", loc);
  return wrap(emit<jx::PsumOp>("psum", loc, use(x, "psum", loc), s.builder().getStringAttr(axis)));
}

Tensor pmean(const Tensor &x, const std::string &axis, SrcLoc loc) {
  TraceState &s = detail::activeTrace("pmean", loc);
  return wrap(
      emit<jx::PmeanOp>("pmean", loc, use(x, "pmean", loc), s.builder().getStringAttr(axis)));
}

Tensor all_gather(const Tensor &x, const std::string &axis, int64_t axis_size, int64_t dimension,
                  bool tiled, SrcLoc loc) {
  return resized<jx::AllGatherOp>("all_gather", x, gathered(x.shape(), axis_size, dimension, tiled),
                                  axis, axis_size, dimension, tiled, loc);
}

Tensor psum_scatter(const Tensor &x, const std::string &axis, int64_t axis_size,
                    int64_t dimension, bool tiled, SrcLoc loc) {
  return resized<jx::PsumScatterOp>("psum_scatter", x,
                                    scattered(x.shape(), axis_size, dimension, tiled), axis,
                                    axis_size, dimension, tiled, loc);
}

Tensor ppermute(const Tensor &x, const std::string &axis,
                const std::vector<std::pair<int64_t, int64_t>> &perm, SrcLoc loc) {
  TraceState &s = detail::activeTrace("ppermute", loc);
  SmallVector<int64_t> pairs;
  for (auto [from, to] : perm)
    pairs.append({from, to});
  return wrap(emit<jx::PpermuteOp>("ppermute", loc, use(x, "ppermute", loc),
                                   s.builder().getStringAttr(axis),
                                   s.builder().getDenseI64ArrayAttr(pairs)));
}

Tensor axis_index(const std::string &axis, SrcLoc loc) {
  TraceState &s = detail::activeTrace("axis_index", loc);
  RankedTensorType type = detail::tensorType(s, {}, DType::I32);
  return wrap(emit<jx::AxisIndexOp>("axis_index", loc, type, s.builder().getStringAttr(axis)));
}

} // namespace cotangent::lax
