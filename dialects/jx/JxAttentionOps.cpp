//===- JxAttentionOps.cpp - types of the fused attention ops --------------===//
//
// Query [B, T, N, H], key and value [B, S, N, H] in one float type; the
// backward's output and doutput are the query's shape, its logsumexp what
// the forward gives.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxAttentionOps.h"
#include "dialects/jx/CompositeBuilder.h"
#include "dialects/jx/JxOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::jx;

RankedTensorType jx::attentionLogsumexpType(RankedTensorType query) {
  Type element = query.getElementType();
  if (!element.isF64())
    element = Float32Type::get(query.getContext());
  ArrayRef<int64_t> q = query.getShape();
  return RankedTensorType::get({q[0], q[2], q[1]}, element);
}

int64_t jx::attentionPairs(int64_t queries, int64_t keys, bool causal) {
  if (!causal)
    return queries * keys;
  // Query i sees keys 0..min(i, S - 1).
  int64_t full = std::min(queries, keys);
  return full * (full + 1) / 2 + (queries - full) * keys;
}

namespace {

/// Checks query, key and value and returns the query's type.
FailureOr<RankedTensorType> checkOperands(std::optional<Location> loc, Type queryType,
                                          Type keyType, Type valueType) {
  auto q = dyn_cast<RankedTensorType>(queryType);
  auto k = dyn_cast<RankedTensorType>(keyType);
  auto v = dyn_cast<RankedTensorType>(valueType);
  if (!q || !k || !v)
    return emitOptionalError(loc, "expected ranked tensor operands");
  for (auto [name, t] : {std::pair{"query", q}, {"key", k}, {"value", v}})
    if (t.getRank() != 4)
      return emitOptionalError(loc, name, " must be [batch, seq, heads, head size], got ", t);
  if (k.getElementType() != q.getElementType() || v.getElementType() != q.getElementType())
    return emitOptionalError(loc, "query, key and value must have one element type, got ", q,
                             ", ", k, " and ", v);
  if (k != v)
    return emitOptionalError(loc, "key and value must have one shape, got ", k, " and ", v);
  if (k.getDimSize(0) != q.getDimSize(0) || k.getDimSize(2) != q.getDimSize(2) ||
      k.getDimSize(3) != q.getDimSize(3))
    return emitOptionalError(loc, "key must share the query's batch, heads and head size, got ",
                             q, " and ", k);
  if (k.getDimSize(1) == 0)
    return emitOptionalError(loc, "attention needs at least one key, got ", k);
  return q;
}

} // namespace

LogicalResult DotProductAttentionOp::inferReturnTypes(MLIRContext *,
                                                      std::optional<Location> loc,
                                                      Adaptor adaptor,
                                                      SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> q = checkOperands(loc, adaptor.getQuery().getType(),
                                                adaptor.getKey().getType(),
                                                adaptor.getValue().getType());
  if (failed(q))
    return failure();
  results.push_back(*q);
  results.push_back(attentionLogsumexpType(*q));
  return success();
}

LogicalResult DotProductAttentionGradOp::inferReturnTypes(MLIRContext *,
                                                          std::optional<Location> loc,
                                                          Adaptor adaptor,
                                                          SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> q = checkOperands(loc, adaptor.getQuery().getType(),
                                                adaptor.getKey().getType(),
                                                adaptor.getValue().getType());
  if (failed(q))
    return failure();
  if (adaptor.getOutput().getType() != *q || adaptor.getDoutput().getType() != *q)
    return emitOptionalError(loc, "output and doutput must be the query's type ", *q, ", got ",
                             adaptor.getOutput().getType(), " and ",
                             adaptor.getDoutput().getType());
  if (adaptor.getLogsumexp().getType() != attentionLogsumexpType(*q))
    return emitOptionalError(loc, "logsumexp must be ", attentionLogsumexpType(*q), ", got ",
                             adaptor.getLogsumexp().getType());
  results.push_back(*q);
  results.push_back(adaptor.getKey().getType());
  results.push_back(adaptor.getValue().getType());
  return success();
}

//===----------------------------------------------------------------------===//
// Expansion into jx ops
//===----------------------------------------------------------------------===//

namespace {

/// [B, N, X, Y] from [B, X, N, Y] and back (the permutation is its own inverse).
Value swapSeqHeads(CompositeBuilder &x, Value v) {
  return TransposeOp::create(x.b, x.loc, v, x.b.getDenseI64ArrayAttr({0, 2, 1, 3}));
}

/// The scaled scores [B, N, T, S], -inf where the causal mask hides a key.
Value scores(CompositeBuilder &x, Value q, Value k, double scale, bool causal) {
  OpBuilder &b = x.b;
  Value s = x.dot(q, k, {3}, {3}, {0, 2}, {0, 2});
  s = MulOp::create(b, x.loc, s, x.splat(x.typeOf(s), scale));
  if (!causal)
    return s;
  RankedTensorType st = x.typeOf(s);
  auto indexType = st.clone(b.getI32Type());
  Value i = IotaOp::create(b, x.loc, indexType, b.getI64IntegerAttr(2));
  Value j = IotaOp::create(b, x.loc, indexType, b.getI64IntegerAttr(3));
  Value hidden = GtOp::create(b, x.loc, j, i);
  Value minusInf = x.splat(st, -std::numeric_limits<double>::infinity());
  return SelectNOp::create(b, x.loc, hidden, ValueRange{s, minusInf});
}

} // namespace

SmallVector<Value> DotProductAttentionOp::expand(OpBuilder &b) {
  CompositeBuilder x(b, getLoc(), getQuery());
  Value q = x.widen(getQuery()), k = x.widen(getKey()), v = x.widen(getValue());
  Value s = scores(x, q, k, getScale().convertToDouble(), getIsCausal());
  Value max = x.reduceLast<ReduceMaxOp>(s);
  Value e = ExpOp::create(b, x.loc, SubOp::create(b, x.loc, s, x.alongLast(max, s)));
  Value sum = x.reduceLast<ReduceSumOp>(e);
  Value p = DivOp::create(b, x.loc, e, x.alongLast(sum, s));
  Value out = swapSeqHeads(x, x.dot(p, v, {3}, {1}, {0, 1}, {0, 2}));
  Value lse = AddOp::create(b, x.loc, max, LogOp::create(b, x.loc, sum));
  return {x.narrow(out, getOutput().getType()), lse};
}

SmallVector<Value> DotProductAttentionGradOp::expand(OpBuilder &b) {
  CompositeBuilder x(b, getLoc(), getQuery());
  Value q = x.widen(getQuery()), k = x.widen(getKey()), v = x.widen(getValue());
  Value o = x.widen(getOutput()), dout = x.widen(getDoutput());
  double scale = getScale().convertToDouble();
  Value s = scores(x, q, k, scale, getIsCausal());
  Value p = ExpOp::create(b, x.loc, SubOp::create(b, x.loc, s, x.alongLast(getLogsumexp(), s)));
  // dV = P^T dO; dP = dO V^T; dS = scale P (dP - D), D_i = dO_i . O_i.
  Value dv = swapSeqHeads(x, x.dot(p, dout, {2}, {1}, {0, 1}, {0, 2}));
  Value dp = x.dot(dout, v, {3}, {3}, {0, 2}, {0, 2});
  Value d = x.reduceLast<ReduceSumOp>(MulOp::create(b, x.loc, dout, o));
  d = TransposeOp::create(b, x.loc, d, b.getDenseI64ArrayAttr({0, 2, 1}));
  Value ds = MulOp::create(b, x.loc, p, SubOp::create(b, x.loc, dp, x.alongLast(d, dp)));
  ds = MulOp::create(b, x.loc, ds, x.splat(x.typeOf(ds), scale));
  Value dq = swapSeqHeads(x, x.dot(ds, k, {3}, {1}, {0, 1}, {0, 2}));
  Value dk = swapSeqHeads(x, x.dot(ds, q, {2}, {1}, {0, 1}, {0, 2}));
  return {x.narrow(dq, getDquery().getType()), x.narrow(dk, getDkey().getType()),
          x.narrow(dv, getDvalue().getType())};
}
