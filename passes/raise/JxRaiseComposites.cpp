//===- JxRaiseComposites.cpp - JAX's attention and loss as composites -----===//
//
// Programs exported from JAX (python/cotangent_jax) spell attention and the
// cross-entropy as primitives: scores = q.k^T * scale, a causal select,
// jax.nn.softmax's max-subtracted exp / sum, probs.v; and optax's
// logsumexp(logits) - take_along_axis(logits, labels). This pass raises
// exactly those into jx.dot_product_attention and jx.softmax_cross_entropy,
// the forms the tracer emits, so that the CPU runs FlashAttention-2's kernel
// and the VJP keeps the logsumexp instead of [B, N, T, S] probabilities (as
// XLA's fused-attention rewriter does for cuDNN). It is the inverse of the
// composites' expansions (CompositeOpInterface::expand). Anything that is not
// the same function, mask, scale and f32 softmax is left alone.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/jx/JxOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>
#include <optional>

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXRAISECOMPOSITESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::jx;

namespace {

RankedTensorType tensorOf(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

bool isF32(Value v) {
  RankedTensorType t = tensorOf(v);
  return t && t.getElementType().isF32();
}

/// `v` through the ops that do not change its values (stop_gradient only
/// changes the derivative, and the composites' derivatives are the true ones).
Value skipStop(Value v) {
  while (auto s = v.getDefiningOp<StopGradientOp>())
    v = s.getOperand();
  return v;
}

/// The value of a float splat: a splat constant, or a broadcast of one.
std::optional<double> splatValue(Value v) {
  while (auto b = v.getDefiningOp<BroadcastInDimOp>())
    v = b.getOperand();
  // jnp.sqrt(head_size) of a constant (Flax's query scaling), in f32 as jx computes it.
  if (auto s = v.getDefiningOp<SqrtOp>(); s && isa<Float32Type>(getElementTypeOrSelf(v)))
    if (std::optional<double> x = splatValue(s.getOperand()))
      return static_cast<double>(std::sqrt(static_cast<float>(*x)));
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!dense || dense.empty())
    return std::nullopt;
  if (dense.isSplat()) {
    if (auto f = dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>()))
      return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(dense.getSplatValue<Attribute>()))
      return static_cast<double>(i.getValue().getSExtValue());
    return std::nullopt;
  }
  // A constant written out element by element (the exporter's NaN fill): all
  // elements the same bits.
  if (!isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  auto values = dense.getValues<APFloat>();
  APFloat first = *values.begin();
  for (const APFloat &x : values)
    if (!x.bitwiseIsEqual(first))
      return std::nullopt;
  return first.convertToDouble();
}

//===----------------------------------------------------------------------===//
// Integer and boolean values computed from constants only (masks, indices)
//===----------------------------------------------------------------------===//

/// Evaluates an integer or boolean tensor that depends on no argument (the
/// mask JAX builds from iotas, constant indices), row-major; nullopt for
/// anything else or anything larger than `limit` elements.
class ConstEval {
public:
  explicit ConstEval(int64_t limit) : limit(limit) {}

  /// Each value once: a mask's ops share operands (one iota read twice), so
  /// a walk without the cache could revisit a value exponentially often.
  std::optional<std::vector<int64_t>> eval(Value v, int depth = 0) {
    if (auto it = cache.find(v); it != cache.end())
      return it->second;
    std::optional<std::vector<int64_t>> result = evalUncached(v, depth);
    cache[v] = result;
    return result;
  }

private:
  std::optional<std::vector<int64_t>> evalUncached(Value v, int depth) {
    RankedTensorType t = tensorOf(v);
    if (!t || !t.hasStaticShape() || t.getNumElements() > limit || depth > 64 ||
        !t.getElementType().isSignlessInteger())
      return std::nullopt;
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    int64_t n = t.getNumElements();
    ArrayRef<int64_t> shape = t.getShape();
    auto operand = [&](unsigned i) { return eval(op->getOperand(i), depth + 1); };
    auto binary = [&](auto f) -> std::optional<std::vector<int64_t>> {
      auto a = operand(0), b = operand(1);
      if (!a || !b || a->size() != static_cast<size_t>(n) || b->size() != static_cast<size_t>(n))
        return std::nullopt;
      std::vector<int64_t> out(n);
      for (int64_t i = 0; i < n; ++i)
        out[i] = f((*a)[i], (*b)[i]);
      return out;
    };
    if (auto c = dyn_cast<ConstantOp>(op)) {
      auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
      if (!dense)
        return std::nullopt;
      std::vector<int64_t> out;
      out.reserve(n);
      bool isBool = t.getElementType().isInteger(1);
      for (const APInt &x : dense.getValues<APInt>())
        out.push_back(isBool ? static_cast<int64_t>(x.getBoolValue()) : x.getSExtValue());
      return out;
    }
    if (auto iota = dyn_cast<IotaOp>(op)) {
      int64_t d = iota.getDimension();
      if (d < 0 || d >= t.getRank())
        return std::nullopt;
      std::vector<int64_t> out(n);
      int64_t inner = 1;
      for (int64_t k = d + 1; k < t.getRank(); ++k)
        inner *= shape[k];
      for (int64_t i = 0; i < n; ++i)
        out[i] = (i / inner) % shape[d];
      return out;
    }
    if (auto b = dyn_cast<BroadcastInDimOp>(op)) {
      auto in = operand(0);
      RankedTensorType it = tensorOf(b.getOperand());
      ArrayRef<int64_t> dims = b.getBroadcastDimensions();
      if (!in || !it || static_cast<int64_t>(dims.size()) != it.getRank())
        return std::nullopt;
      std::vector<int64_t> out(n);
      SmallVector<int64_t> index(t.getRank());
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t k = t.getRank() - 1, r = i; k >= 0; --k) {
          index[k] = r % shape[k];
          r /= shape[k];
        }
        int64_t src = 0;
        for (auto [k, d] : llvm::enumerate(dims))
          src = src * it.getDimSize(k) + (it.getDimSize(k) == 1 ? 0 : index[d]);
        out[i] = (*in)[src];
      }
      return out;
    }
    if (isa<ReshapeOp, ConvertElementTypeOp>(op)) {
      auto in = operand(0);
      if (!in || in->size() != static_cast<size_t>(n))
        return std::nullopt;
      if (t.getElementType().isInteger(1))
        for (int64_t &x : *in)
          x = x != 0;
      return in;
    }
    if (auto s = dyn_cast<SelectNOp>(op)) {
      auto which = operand(0);
      if (!which || which->size() != static_cast<size_t>(n))
        return std::nullopt;
      SmallVector<std::vector<int64_t>> cases;
      for (Value c : s.getCases()) {
        auto x = eval(c, depth + 1);
        if (!x || x->size() != static_cast<size_t>(n))
          return std::nullopt;
        cases.push_back(std::move(*x));
      }
      std::vector<int64_t> out(n);
      for (int64_t i = 0; i < n; ++i) {
        int64_t w = (*which)[i];
        if (w < 0 || w >= static_cast<int64_t>(cases.size()))
          return std::nullopt;
        out[i] = cases[w][i];
      }
      return out;
    }
    if (auto no = dyn_cast<NotOp>(op)) {
      if (!t.getElementType().isInteger(1))
        return std::nullopt;
      auto in = operand(0);
      if (in)
        for (int64_t &x : *in)
          x = !x;
      return in;
    }
    // Two's complement in 64 bits (defined, unlike signed overflow); the masks'
    // and indices' integers stay far from the element type's range anyway.
    if (isa<AddOp>(op))
      return binary([](int64_t a, int64_t b) { return wrap(uint64_t(a) + uint64_t(b)); });
    if (isa<SubOp>(op))
      return binary([](int64_t a, int64_t b) { return wrap(uint64_t(a) - uint64_t(b)); });
    if (isa<MulOp>(op))
      return binary([](int64_t a, int64_t b) { return wrap(uint64_t(a) * uint64_t(b)); });
    if (isa<MaxOp>(op))
      return binary([](int64_t a, int64_t b) { return std::max(a, b); });
    if (isa<MinOp>(op))
      return binary([](int64_t a, int64_t b) { return std::min(a, b); });
    if (isa<AndOp>(op) && t.getElementType().isInteger(1))
      return binary([](int64_t a, int64_t b) -> int64_t { return a && b; });
    if (isa<OrOp>(op) && t.getElementType().isInteger(1))
      return binary([](int64_t a, int64_t b) -> int64_t { return a || b; });
    if (isa<EqOp>(op))
      return binary([](int64_t a, int64_t b) -> int64_t { return a == b; });
    if (isa<NeOp>(op))
      return binary([](int64_t a, int64_t b) -> int64_t { return a != b; });
    if (isa<LtOp>(op))
      return binary([](int64_t a, int64_t b) -> int64_t { return a < b; });
    if (isa<LeOp>(op))
      return binary([](int64_t a, int64_t b) -> int64_t { return a <= b; });
    if (isa<GtOp>(op))
      return binary([](int64_t a, int64_t b) -> int64_t { return a > b; });
    if (isa<GeOp>(op))
      return binary([](int64_t a, int64_t b) -> int64_t { return a >= b; });
    return std::nullopt;
  }

  static int64_t wrap(uint64_t x) { return static_cast<int64_t>(x); }

  int64_t limit;
  llvm::DenseMap<Value, std::optional<std::vector<int64_t>>> cache;
};

/// Masks up to this many elements are evaluated (a 4096 x 4096 causal mask).
constexpr int64_t kMaskLimit = int64_t{1} << 24;

//===----------------------------------------------------------------------===//
// Softmax pieces
//===----------------------------------------------------------------------===//

/// If `v` is `x` broadcast back along `axis` from a value reduced over it
/// (through broadcasts, reshapes that add or drop unit dimensions, and
/// stop_gradient), that value; else null. The dimensions are tracked, so a
/// [B, N, T] row statistic is not mistaken for a [B, N, S] one when T == S.
Value rowsBroadcastAlong(Value v, int64_t axis, bool *passedLog = nullptr) {
  RankedTensorType full = tensorOf(v);
  if (!full)
    return {};
  // map[i]: the dimension of `v` that dimension i of the current value is; -1 where
  // it is a unit dimension broadcast or inserted.
  SmallVector<int64_t> map = llvm::to_vector(llvm::seq<int64_t>(0, full.getRank()));
  Value cur = v;
  while (true) {
    cur = skipStop(cur);
    RankedTensorType ct = tensorOf(cur);
    // log_softmax takes the log of the [..., 1] sums: elementwise, where the caller allows it.
    if (auto log = cur.getDefiningOp<LogOp>(); log && passedLog && !*passedLog) {
      *passedLog = true;
      cur = log.getOperand();
      continue;
    }
    if (auto b = cur.getDefiningOp<BroadcastInDimOp>()) {
      RankedTensorType it = tensorOf(b.getOperand());
      SmallVector<int64_t> next;
      for (auto [i, d] : llvm::enumerate(b.getBroadcastDimensions()))
        next.push_back(it.getDimSize(i) == ct.getDimSize(d) ? map[d] : -1);
      map = next;
      cur = b.getOperand();
      continue;
    }
    if (auto r = cur.getDefiningOp<ReshapeOp>()) {
      RankedTensorType it = tensorOf(r.getOperand());
      // Only unit dimensions may come or go: match the others in order.
      SmallVector<int64_t> outer;
      for (int64_t d = 0; d < ct.getRank(); ++d)
        if (ct.getDimSize(d) != 1)
          outer.push_back(map[d]);
      SmallVector<int64_t> next;
      size_t k = 0;
      bool ok = true;
      for (int64_t d = 0; d < it.getRank(); ++d) {
        if (it.getDimSize(d) == 1) {
          next.push_back(-1);
          continue;
        }
        if (k == outer.size()) {
          ok = false;
          break;
        }
        next.push_back(outer[k++]);
      }
      if (!ok || k != outer.size())
        return {};
      // The shapes of the non-unit dimensions must agree one to one.
      SmallVector<int64_t> a, c;
      for (int64_t d : it.getShape())
        if (d != 1)
          a.push_back(d);
      for (int64_t d : ct.getShape())
        if (d != 1)
          c.push_back(d);
      if (a != c)
        return {};
      map = next;
      cur = r.getOperand();
      continue;
    }
    break;
  }
  RankedTensorType rt = tensorOf(cur);
  if (!rt || rt.getRank() + 1 != full.getRank())
    return {};
  for (int64_t i = 0; i < rt.getRank(); ++i) {
    int64_t want = i < axis ? i : i + 1;
    if (rt.getDimSize(i) != full.getDimSize(want))
      return {};
    if (rt.getDimSize(i) != 1 && map[i] != want)
      return {};
  }
  return cur;
}

bool reducesOnly(Operation *op, int64_t axis) {
  ArrayRef<int64_t> axes;
  if (auto r = dyn_cast<ReduceMaxOp>(op))
    axes = r.getAxes();
  else if (auto r = dyn_cast<ReduceSumOp>(op))
    axes = r.getAxes();
  else
    return false;
  return axes.size() == 1 && axes[0] == axis;
}

/// Whether `m` is the row maximum of `x` along `axis` in one of JAX's
/// spellings: reduce_max; max(-inf, reduce_max) (jax.nn.softmax's initial
/// value); logsumexp's where(isfinite(m), m, 0), which differs from m only
/// where a row holds an infinity.
bool isRowMax(Value m, Value x, int64_t axis) {
  m = skipStop(m);
  if (auto s = m.getDefiningOp<SelectNOp>()) {
    // select_n(m - m == 0, 0, m)
    if (s.getCases().size() != 2)
      return false;
    Value inner = skipStop(s.getCases()[1]);
    auto eq = s.getWhich().getDefiningOp<EqOp>();
    std::optional<double> zero = splatValue(s.getCases()[0]);
    if (!eq || !zero || *zero != 0.0 || splatValue(eq.getRhs()) != 0.0)
      return false;
    auto diff = eq.getLhs().getDefiningOp<SubOp>();
    if (!diff || skipStop(diff.getLhs()) != inner || skipStop(diff.getRhs()) != inner)
      return false;
    m = inner;
  }
  if (auto mx = m.getDefiningOp<MaxOp>()) {
    for (auto [a, b] : {std::pair{mx.getLhs(), mx.getRhs()}, {mx.getRhs(), mx.getLhs()}})
      if (std::optional<double> c = splatValue(a); c && std::isinf(*c) && *c < 0) {
        m = skipStop(b);
        break;
      }
  }
  Operation *r = m.getDefiningOp();
  return r && isa<ReduceMaxOp>(r) && reducesOnly(r, axis) && r->getOperand(0) == x;
}

/// If `v` is `exp(x - max(x))` along `axis`, x; else null.
Value shiftedExpOf(Value v, int64_t axis) {
  auto e = v.getDefiningOp<ExpOp>();
  if (!e)
    return {};
  auto sub = e.getOperand().getDefiningOp<SubOp>();
  if (!sub)
    return {};
  Value x = sub.getLhs();
  Value m = rowsBroadcastAlong(sub.getRhs(), axis);
  return m && isRowMax(m, x, axis) ? x : Value();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// A rank-4 operand of a dot_general read as roles: its dimension for the
/// dot's first and second batch dimensions, the contracted one and the free one.
struct Roles {
  int64_t batch0, batch1, contracted, free;
};

std::optional<Roles> rolesOf(Value operand, ArrayRef<int64_t> batch, ArrayRef<int64_t> contract) {
  RankedTensorType t = tensorOf(operand);
  if (!t || t.getRank() != 4 || batch.size() != 2 || contract.size() != 1)
    return std::nullopt;
  int64_t free = -1;
  for (int64_t d = 0; d < 4; ++d)
    if (d != batch[0] && d != batch[1] && d != contract[0])
      free = free < 0 ? d : 4;
  if (free < 0 || free > 3)
    return std::nullopt;
  return Roles{batch[0], batch[1], contract[0], free};
}

/// `v` transposed by `perm`, looking through a transpose that made it.
Value transposed(PatternRewriter &rewriter, Location loc, Value v, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> p(perm);
  if (auto t = v.getDefiningOp<TransposeOp>()) {
    for (int64_t &x : p)
      x = t.getPermutation()[x];
    v = t.getOperand();
  }
  if (llvm::equal(p, llvm::seq<int64_t>(0, p.size())))
    return v;
  return TransposeOp::create(rewriter, loc, v, rewriter.getDenseI64ArrayAttr(p));
}

/// Peels `x * c` and `x / c` by splat constants off `v` into `scale`. Other
/// uses of what is peeled keep their ops: only dead code goes.
Value peelScale(Value v, double &scale) {
  while (true) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return v;
    if (auto m = dyn_cast<MulOp>(op)) {
      if (std::optional<double> c = splatValue(m.getRhs())) {
        scale *= *c;
        v = m.getLhs();
        continue;
      }
      if (std::optional<double> c = splatValue(m.getLhs())) {
        scale *= *c;
        v = m.getRhs();
        continue;
      }
    }
    if (auto d = dyn_cast<DivOp>(op))
      if (std::optional<double> c = splatValue(d.getRhs()); c && *c != 0.0) {
        scale /= *c;
        v = d.getLhs();
        continue;
      }
    return v;
  }
}

/// probs . v with probs = softmax(scale * q k^T [masked causally]) becomes
/// jx.dot_product_attention, whatever the layouts of q, k, v and of the
/// result: transposes put them into [B, T, N, H] and the output back.
struct RaiseAttention : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DotGeneralOp pv, PatternRewriter &rewriter) const override {
    if (pv.getPreferredElementType() || !isF32(pv.getResult()) ||
        pv.getLhsBatchDimensions().size() != 2 || pv.getLhsContractingDimensions().size() != 1)
      return failure();
    // Which operand is the probabilities: a division by a row sum of exp.
    for (bool probsLeft : {true, false}) {
      Value probs = probsLeft ? pv.getLhs() : pv.getRhs();
      Value value = probsLeft ? pv.getRhs() : pv.getLhs();
      ArrayRef<int64_t> pBatch =
          probsLeft ? pv.getLhsBatchDimensions() : pv.getRhsBatchDimensions();
      ArrayRef<int64_t> vBatch =
          probsLeft ? pv.getRhsBatchDimensions() : pv.getLhsBatchDimensions();
      ArrayRef<int64_t> pContract =
          probsLeft ? pv.getLhsContractingDimensions() : pv.getRhsContractingDimensions();
      ArrayRef<int64_t> vContract =
          probsLeft ? pv.getRhsContractingDimensions() : pv.getLhsContractingDimensions();
      if (succeeded(
              raise(pv, probs, value, pBatch, vBatch, pContract, vContract, probsLeft, rewriter)))
        return success();
    }
    return failure();
  }

  LogicalResult raise(DotGeneralOp pv, Value probs, Value value, ArrayRef<int64_t> pBatch,
                      ArrayRef<int64_t> vBatch, ArrayRef<int64_t> pContract,
                      ArrayRef<int64_t> vContract, bool probsLeft,
                      PatternRewriter &rewriter) const {
    RankedTensorType pt = tensorOf(probs);
    if (!pt || pt.getRank() != 4 || !probs.hasOneUse() || !isF32(probs) || !isF32(value))
      return failure();
    // probs = e / sum(e), e = exp(s - max(s)), along the keys' axis.
    int64_t keyAxis = pContract[0];
    auto div = probs.getDefiningOp<DivOp>();
    if (!div)
      return failure();
    Value e = div.getLhs();
    Value sum = rowsBroadcastAlong(div.getRhs(), keyAxis);
    if (!sum || !sum.getDefiningOp() || !isa<ReduceSumOp>(sum.getDefiningOp()) ||
        !reducesOnly(sum.getDefiningOp(), keyAxis) || sum.getDefiningOp()->getOperand(0) != e)
      return failure();
    Value masked = shiftedExpOf(e, keyAxis);
    if (!masked)
      return failure();
    // The probabilities' batch dimensions must be the scores' (0 and 1), the
    // query's axis the remaining one.
    if (!llvm::is_contained(pBatch, 0) || !llvm::is_contained(pBatch, 1) || keyAxis < 2)
      return failure();
    int64_t queryAxis = keyAxis == 2 ? 3 : 2;

    // An optional causal mask: select_n(visible, fill, s) or select_n(hidden, s, fill).
    bool causal = false;
    Value scores = masked;
    if (auto sel = masked.getDefiningOp<SelectNOp>()) {
      if (sel.getCases().size() != 2)
        return failure();
      int keep = -1;
      for (int c : {0, 1})
        if (std::optional<double> fill = splatValue(sel.getCases()[c]);
            fill && *fill <= -1e9 && tensorOf(sel.getWhich()).getRank() > 0)
          keep = 1 - c;
      if (keep < 0 || !isCausal(sel.getWhich(), keep, queryAxis, keyAxis))
        return failure();
      causal = true;
      scores = sel.getCases()[keep];
    }
    double scale = 1.0;
    scores = peelScale(scores, scale);
    auto qk = scores.getDefiningOp<DotGeneralOp>();
    if (!qk || qk.getPreferredElementType() || qk.getLhsBatchDimensions().size() != 2 ||
        qk.getLhsContractingDimensions().size() != 1)
      return failure();
    // Scores are [batch0, batch1, lhs free, rhs free]: the key is the operand
    // whose free dimension the softmax runs along.
    bool keyLeft = keyAxis == 2;
    Value query = keyLeft ? qk.getRhs() : qk.getLhs();
    Value key = keyLeft ? qk.getLhs() : qk.getRhs();
    auto qRoles =
        rolesOf(query, keyLeft ? qk.getRhsBatchDimensions() : qk.getLhsBatchDimensions(),
                keyLeft ? qk.getRhsContractingDimensions() : qk.getLhsContractingDimensions());
    auto kRoles =
        rolesOf(key, keyLeft ? qk.getLhsBatchDimensions() : qk.getRhsBatchDimensions(),
                keyLeft ? qk.getLhsContractingDimensions() : qk.getRhsContractingDimensions());
    if (!qRoles || !kRoles || !isF32(query) || !isF32(key))
      return failure();
    // A scale on q or k (Flax scales the query) counts too.
    Value q0 = peelScale(query, scale), k0 = peelScale(key, scale);
    if (!std::isfinite(scale) || scale == 0.0 || (causal && scale < 0.0))
      return failure();

    // The value: its batch dimensions paired with the probabilities' 0 and 1.
    auto vRoles = rolesOf(value, vBatch, vContract);
    if (!vRoles)
      return failure();
    int64_t vB = vBatch[pBatch[0] == 0 ? 0 : 1], vN = vBatch[pBatch[0] == 0 ? 1 : 0];
    Location loc = pv.getLoc();
    SmallVector<int64_t> qPerm = {qRoles->batch0, qRoles->free, qRoles->batch1, qRoles->contracted};
    SmallVector<int64_t> kPerm = {kRoles->batch0, kRoles->free, kRoles->batch1, kRoles->contracted};
    SmallVector<int64_t> vPerm = {vB, vRoles->contracted, vN, vRoles->free};
    auto permuted = [](RankedTensorType t, ArrayRef<int64_t> perm) {
      SmallVector<int64_t> shape;
      for (int64_t p : perm)
        shape.push_back(t.getDimSize(p));
      return shape;
    };
    SmallVector<int64_t> qShape = permuted(tensorOf(query), qPerm);
    SmallVector<int64_t> kShape = permuted(tensorOf(key), kPerm);
    SmallVector<int64_t> vShape = permuted(tensorOf(value), vPerm);
    if (kShape != vShape || kShape[0] != qShape[0] || kShape[2] != qShape[2] ||
        kShape[3] != qShape[3] || kShape[1] == 0)
      return failure();
    // The result's roles: batch dims in the probabilities' order, then the free ones.
    // In the composite's output [B, T, N, H]: B 0, T 1, N 2, H 3.
    SmallVector<int64_t> outRoles;
    for (int64_t d : pBatch)
      outRoles.push_back(d == 0 ? 0 : 2);
    if (probsLeft)
      outRoles.append({1, 3});
    else
      outRoles.append({3, 1});

    Value qT = transposed(rewriter, loc, q0, qPerm);
    Value kT = transposed(rewriter, loc, k0, kPerm);
    Value vT = transposed(rewriter, loc, value, vPerm);
    auto attention =
        DotProductAttentionOp::create(rewriter, loc, qT, kT, vT, rewriter.getF64FloatAttr(scale),
                                      causal ? rewriter.getUnitAttr() : UnitAttr());
    // A transpose right after the product folds into the one made here.
    Value out = attention.getOutput();
    if (pv->hasOneUse())
      if (auto user = dyn_cast<TransposeOp>(*pv->getUsers().begin())) {
        SmallVector<int64_t> perm;
        for (int64_t p : user.getPermutation())
          perm.push_back(outRoles[p]);
        rewriter.replaceOp(user, transposed(rewriter, loc, out, perm));
        return success();
      }
    rewriter.replaceOp(pv, transposed(rewriter, loc, out, outRoles));
    return success();
  }

  /// Whether `which` selects case `keep` exactly where key <= query
  /// (tril(ones(T, S))) at every batch and head.
  static bool isCausal(Value which, int keep, int64_t queryAxis, int64_t keyAxis) {
    RankedTensorType full = tensorOf(which);
    if (!full || full.getRank() != 4 || !full.getElementType().isInteger(1))
      return false;
    // Evaluate the mask before its last broadcast: [T, S] rather than [B, N, T, S].
    Value mask = which;
    SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, 4));
    if (auto b = which.getDefiningOp<BroadcastInDimOp>()) {
      mask = b.getOperand();
      dims = llvm::to_vector(b.getBroadcastDimensions());
    }
    RankedTensorType mt = tensorOf(mask);
    ConstEval evaluator(kMaskLimit);
    std::optional<std::vector<int64_t>> values = evaluator.eval(mask);
    if (!values)
      return false;
    int64_t qDim = -1, kDim = -1;
    for (auto [i, d] : llvm::enumerate(dims)) {
      if (d == queryAxis)
        qDim = i;
      if (d == keyAxis)
        kDim = i;
    }
    int64_t T = full.getDimSize(queryAxis), S = full.getDimSize(keyAxis);
    // Both positions must be the mask's own, not broadcast (unless of one).
    if ((T > 1 && (qDim < 0 || mt.getDimSize(qDim) != T)) ||
        (S > 1 && (kDim < 0 || mt.getDimSize(kDim) != S)))
      return false;
    SmallVector<int64_t> index(mt.getRank());
    for (int64_t i = 0, n = mt.getNumElements(); i < n; ++i) {
      for (int64_t k = mt.getRank() - 1, r = i; k >= 0; --k) {
        index[k] = r % mt.getDimSize(k);
        r /= mt.getDimSize(k);
      }
      int64_t t = qDim >= 0 ? index[qDim] : 0, s = kDim >= 0 ? index[kDim] : 0;
      if (((*values)[i] == keep) != (s <= t))
        return false;
    }
    return true;
  }
};

//===----------------------------------------------------------------------===//
// Cross-entropy
//===----------------------------------------------------------------------===//

/// `v` through reshapes that only add or drop unit dimensions.
Value skipUnitReshapes(Value v) {
  while (isa_and_present<ReshapeOp, SqueezeOp, ExpandDimsOp>(v.getDefiningOp())) {
    Operation *r = v.getDefiningOp();
    auto squeeze = [](RankedTensorType t) {
      SmallVector<int64_t> s;
      for (int64_t d : t.getShape())
        if (d != 1)
          s.push_back(d);
      return s;
    };
    if (squeeze(tensorOf(r->getOperand(0))) != squeeze(tensorOf(r->getResult(0))))
      return v;
    v = r->getOperand(0);
  }
  return v;
}

/// The same through full slices and broadcasts that only add unit dimensions.
Value skipUnitViews(Value v) {
  while (true) {
    Value next = skipUnitReshapes(v);
    if (auto s = next.getDefiningOp<SliceOp>();
        s && s.getOperand().getType() == s.getResult().getType()) {
      next = s.getOperand();
    } else if (auto b = next.getDefiningOp<BroadcastInDimOp>();
               b &&
               tensorOf(b.getOperand()).getNumElements() ==
                   tensorOf(b.getResult()).getNumElements() &&
               llvm::is_sorted(b.getBroadcastDimensions())) {
      next = b.getOperand();
    }
    if (next == v)
      return v;
    v = next;
  }
}

bool splatIs(Value v, double x) {
  std::optional<double> c = splatValue(v);
  return c && *c == x;
}

/// What jnp.take_along_axis(table, labels[..., None], -1)[..., 0] was
/// exported as, read back: the table, the integer labels (rows), and whether
/// out-of-range labels give NaN (JAX's fill mode) or are clamped.
struct Pick {
  Value table, labels;
  bool fill = false;
};

/// Whether `v` is labels counted from the end when negative:
/// select_n(l < 0, l, l + C), `l` the labels up to unit views.
Value wrappedLabels(Value v, int64_t classes) {
  auto sel = skipUnitViews(v).getDefiningOp<SelectNOp>();
  if (!sel || sel.getCases().size() != 2)
    return {};
  auto lt = sel.getWhich().getDefiningOp<LtOp>();
  auto add = sel.getCases()[1].getDefiningOp<AddOp>();
  Value l = sel.getCases()[0];
  if (!lt || !add || lt.getLhs() != l || !splatIs(lt.getRhs(), 0) || add.getLhs() != l ||
      !splatIs(add.getRhs(), static_cast<double>(classes)))
    return {};
  return skipUnitViews(l);
}

bool isInRange(Value ok, const Pick &pick);

/// Any reshape keeps the row-major order, which is all a pick's rows need.
Value skipReshapes(Value v) {
  while (isa_and_present<ReshapeOp, SqueezeOp, ExpandDimsOp>(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v;
}

std::optional<Pick> matchPick(Value v, int depth = 0) {
  if (depth > 8)
    return std::nullopt;
  v = skipReshapes(v);
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  // select_n(ok, NaN, x): JAX's fill mode. A constant ok that is all true is
  // no guard at all; one over the labels makes the pick NaN out of range.
  if (auto sel = dyn_cast<SelectNOp>(op)) {
    std::optional<double> nan = splatValue(sel.getCases().size() == 2 ? sel.getCases()[0] : v);
    if (sel.getCases().size() != 2 || !nan || !std::isnan(*nan))
      return std::nullopt;
    ConstEval evaluator(kMaskLimit);
    if (auto ok = evaluator.eval(sel.getWhich()))
      return llvm::all_of(*ok, [](int64_t x) { return x == 1; })
                 ? matchPick(sel.getCases()[1], depth + 1)
                 : std::nullopt;
    std::optional<Pick> inner = matchPick(sel.getCases()[1], depth + 1);
    if (!inner || !isInRange(sel.getWhich(), *inner))
      return std::nullopt;
    inner->fill = true;
    return inner;
  }
  auto take = dyn_cast<TakeOp>(op);
  if (!take)
    return std::nullopt;
  RankedTensorType xt = tensorOf(take.getOperand());
  int64_t axis = take.getAxis();
  if (!xt || axis < 0 || axis >= xt.getRank())
    return std::nullopt;
  // A take along an axis of one: the indices are clamped to 0, the value unchanged.
  if (xt.getDimSize(axis) == 1 && tensorOf(take.getResult()).getDimSize(axis) == 1)
    return matchPick(take.getOperand(), depth + 1);
  // The flattened gather: table [R..., C] read at row-major index
  // clamp(label) + sum_d iota_d * stride_d.
  auto flat = take.getOperand().getDefiningOp<ReshapeOp>();
  if (axis != 0 || !flat || xt.getRank() != 1)
    return std::nullopt;
  Value table = flat.getOperand();
  RankedTensorType tt = tensorOf(table);
  if (!tt || tt.getRank() < 2)
    return std::nullopt;
  int64_t classes = tt.getShape().back(), rank = tt.getRank();
  Value index = skipReshapes(take.getIndices());
  RankedTensorType it = tensorOf(index);
  // The index's dimensions: the rows', then unit ones.
  if (!it || it.getRank() < rank - 1 ||
      it.getShape().take_front(rank - 1) != tt.getShape().drop_back())
    return std::nullopt;
  for (int64_t d : it.getShape().drop_front(rank - 1))
    if (d != 1)
      return std::nullopt;
  SmallVector<Value> terms, work = {index};
  while (!work.empty()) {
    Value t = work.pop_back_val();
    if (auto add = t.getDefiningOp<AddOp>()) {
      work.append({add.getLhs(), add.getRhs()});
      continue;
    }
    terms.push_back(t);
  }
  Value label;
  SmallVector<bool> seen(rank - 1, false);
  for (Value t : terms) {
    int64_t stride = 1;
    if (auto mul = t.getDefiningOp<MulOp>()) {
      std::optional<double> c = splatValue(mul.getRhs());
      if (!c || !(std::abs(*c) < 0x1p62))
        return std::nullopt;
      stride = static_cast<int64_t>(*c);
      t = mul.getLhs();
    }
    if (auto iota = t.getDefiningOp<IotaOp>()) {
      int64_t d = iota.getDimension();
      if (d < 0 || d >= rank - 1 || seen[d])
        return std::nullopt;
      int64_t want = 1;
      for (int64_t k = d + 1; k < rank; ++k)
        want *= tt.getDimSize(k);
      if (stride != want)
        return std::nullopt;
      seen[d] = true;
      continue;
    }
    if (label || stride != 1)
      return std::nullopt;
    label = t;
  }
  // Every row dimension of more than one element needs its iota.
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (!seen[d] && tt.getDimSize(d) != 1)
      return std::nullopt;
  // label = min(max(w, 0), C - 1), w the wrapped labels.
  auto mn = label ? label.getDefiningOp<MinOp>() : MinOp();
  auto mx = mn ? mn.getLhs().getDefiningOp<MaxOp>() : MaxOp();
  if (!mn || !mx || !splatIs(mn.getRhs(), static_cast<double>(classes - 1)) ||
      !splatIs(mx.getRhs(), 0))
    return std::nullopt;
  Value labels = wrappedLabels(mx.getLhs(), classes);
  RankedTensorType lt = labels ? tensorOf(labels) : RankedTensorType();
  if (!lt || lt.getShape() != tt.getShape().drop_back())
    return std::nullopt;
  return Pick{table, labels, false};
}

/// Whether `ok` is and(w >= 0, w <= C - 1) over the pick's wrapped labels.
bool isInRange(Value ok, const Pick &pick) {
  auto a = skipReshapes(ok).getDefiningOp<AndOp>();
  if (!a)
    return false;
  auto ge = a.getLhs().getDefiningOp<GeOp>();
  auto le = a.getRhs().getDefiningOp<LeOp>();
  int64_t classes = tensorOf(pick.table).getShape().back();
  return ge && le && ge.getLhs() == le.getLhs() && splatIs(ge.getRhs(), 0) &&
         splatIs(le.getRhs(), static_cast<double>(classes - 1)) &&
         wrappedLabels(ge.getLhs(), classes) == pick.labels;
}

/// The composite's loss, NaN where JAX's fill mode gives NaN (a label out
/// of [-C, C)), in `like`'s shape.
Value crossEntropy(PatternRewriter &rewriter, Location loc, Value logits, const Pick &pick,
                   Type like) {
  auto ce = SoftmaxCrossEntropyOp::create(rewriter, loc, logits, pick.labels);
  Value loss = ce.getLoss();
  RankedTensorType rows = tensorOf(loss);
  if (pick.fill) {
    RankedTensorType lt = tensorOf(pick.labels);
    int64_t classes = tensorOf(logits).getShape().back();
    auto splat = [&](RankedTensorType t, Attribute x) {
      return ConstantOp::create(rewriter, loc, DenseElementsAttr::get(t, x)).getResult();
    };
    Type it = lt.getElementType();
    Value low = splat(lt, rewriter.getIntegerAttr(it, -classes));
    Value count = splat(lt, rewriter.getIntegerAttr(it, classes));
    Value inside = AndOp::create(rewriter, loc, GeOp::create(rewriter, loc, pick.labels, low),
                                 LtOp::create(rewriter, loc, pick.labels, count));
    Value nan = splat(rows, rewriter.getFloatAttr(rows.getElementType(),
                                                  std::numeric_limits<double>::quiet_NaN()));
    loss = SelectNOp::create(rewriter, loc, inside, ValueRange{nan, loss});
  }
  if (loss.getType() != like)
    loss = ReshapeOp::create(rewriter, loc, like, loss);
  return loss;
}

/// logsumexp(x) - take_along_axis(x, labels): lse = log(sum(exp(x - m))) + m.
struct RaiseLogsumexpCrossEntropy : OpRewritePattern<SubOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SubOp sub, PatternRewriter &rewriter) const override {
    if (!isF32(sub.getResult()))
      return failure();
    std::optional<Pick> pick = matchPick(sub.getRhs());
    if (!pick)
      return failure();
    Value logits = pick->table;
    int64_t axis = tensorOf(logits).getRank() - 1;
    auto add = skipUnitReshapes(sub.getLhs()).getDefiningOp<AddOp>();
    if (!add || !isF32(logits))
      return failure();
    for (auto [l, m] : {std::pair{add.getLhs(), add.getRhs()}, {add.getRhs(), add.getLhs()}}) {
      auto log = l.getDefiningOp<LogOp>();
      if (!log)
        continue;
      Value s = log.getOperand();
      if (auto abs = s.getDefiningOp<AbsOp>())
        s = abs.getOperand(); // logsumexp's log(|sum|) of a positive sum
      Operation *sum = s.getDefiningOp();
      if (!sum || !isa<ReduceSumOp>(sum) || !reducesOnly(sum, axis))
        continue;
      auto e = sum->getOperand(0).getDefiningOp<ExpOp>();
      auto shift = e ? e.getOperand().getDefiningOp<SubOp>() : SubOp();
      if (!shift || shift.getLhs() != logits)
        continue;
      Value rowMax = rowsBroadcastAlong(shift.getRhs(), axis);
      if (!rowMax || skipStop(rowMax) != skipStop(skipUnitReshapes(m)) ||
          !isRowMax(rowMax, logits, axis))
        continue;
      rewriter.replaceOp(sub, crossEntropy(rewriter, sub.getLoc(), logits, *pick, sub.getType()));
      return success();
    }
    return failure();
  }
};

/// take_along_axis(log_softmax(x), labels) = -loss, log_softmax(x) =
/// (x - m) - log(sum(exp(x - m))).
struct RaiseLogSoftmaxCrossEntropy : OpRewritePattern<NegOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(NegOp neg, PatternRewriter &rewriter) const override {
    if (!isF32(neg.getResult()))
      return failure();
    std::optional<Pick> pick = matchPick(neg.getOperand());
    if (!pick)
      return failure();
    auto logp = pick->table.getDefiningOp<SubOp>();
    if (!logp)
      return failure();
    Value shifted = logp.getLhs();
    int64_t axis = tensorOf(shifted).getRank() - 1;
    bool passedLog = false;
    Value sums = rowsBroadcastAlong(logp.getRhs(), axis, &passedLog);
    if (sums && !passedLog)
      if (auto log = sums.getDefiningOp<LogOp>()) {
        passedLog = true;
        sums = rowsBroadcastAlong(log.getOperand(), axis);
      }
    Operation *sum = sums && passedLog ? sums.getDefiningOp() : nullptr;
    if (!sum || !isa<ReduceSumOp>(sum) || !reducesOnly(sum, axis))
      return failure();
    auto e = sum->getOperand(0).getDefiningOp<ExpOp>();
    auto shift = shifted.getDefiningOp<SubOp>();
    if (!e || e.getOperand() != shifted || !shift)
      return failure();
    Value logits = shift.getLhs();
    Value rowMax = rowsBroadcastAlong(shift.getRhs(), axis);
    if (!rowMax || !isRowMax(rowMax, logits, axis) || !isF32(logits))
      return failure();
    Pick onLogits = *pick;
    rewriter.replaceOp(neg, crossEntropy(rewriter, neg.getLoc(), logits, onLogits, neg.getType()));
    return success();
  }
};

class JxRaiseCompositesPass
    : public cotangent::impl::JxRaiseCompositesPassBase<JxRaiseCompositesPass> {
public:
  using JxRaiseCompositesPassBase::JxRaiseCompositesPassBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    if (attention)
      patterns.add<RaiseAttention>(&getContext());
    if (crossEntropy)
      patterns.add<RaiseLogsumexpCrossEntropy, RaiseLogSoftmaxCrossEntropy>(&getContext());
    // No folding: the rest of the program stays as written.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
