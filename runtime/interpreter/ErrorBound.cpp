//===- ErrorBound.cpp - Reference values with their rounding bounds -------===//
//
// A second walk over the IR beside the Evaluator's: each op's values come
// from evalOp (the same semantics as `run`), and its bound from the rules
// below, computed in double on f64 tensors with the interpreter's own op
// functions. The bound D of a value is the largest |other - reference| of
// an evaluation that rounds each op within roundingUnits; both evaluations
// round, so each op adds its rounding twice.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/ErrorBound.h"
#include "dialects/jx/CallCycles.h"
#include "dialects/jx/JxOps.h"
#include "runtime/interpreter/Evaluator.h"
#include "runtime/interpreter/Kernels.h"
#include "runtime/interpreter/Ops.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>
#include <sstream>

using namespace cotangent::interp;
using namespace mlir;

namespace idetail = cotangent::interp::detail;

namespace {

using Bounded = llvm::FailureOr<std::vector<BoundedTensor>>;
constexpr double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Floating-point facts of the element types
//===----------------------------------------------------------------------===//

/// Unit roundoff of storing a value of `type` (0 for integers: exact).
double unitRoundoff(Type type) {
  if (type.isF64())
    return 0x1p-53;
  if (type.isF32())
    return 0x1p-24;
  if (type.isF16())
    return 0x1p-11;
  if (type.isBF16())
    return 0x1p-8;
  return 0;
}

/// Unit roundoff of the type sums accumulate in (f32 for f16/bf16, as both
/// the interpreter and jx-to-linalg compute them).
double computeRoundoff(Type type) {
  if (type.isF64())
    return 0x1p-53;
  return isa<FloatType>(type) ? 0x1p-24 : 0;
}

/// Absolute error allowed near zero: code that flushes subnormals to zero
/// (or rounds in the subnormal range) is that far off at most.
double underflowError(Type type) {
  if (type.isF64())
    return 0x1p-1022;
  if (type.isF16())
    return 0x1p-24;
  return isa<FloatType>(type) ? 0x1p-126 : 0;
}

//===----------------------------------------------------------------------===//
// f64 tensors
//===----------------------------------------------------------------------===//

RankedTensorType f64Like(RankedTensorType type) {
  return type.clone(Float64Type::get(type.getContext()));
}
Tensor toF64(const Tensor &t) {
  return convertElementTypeOp(t, Float64Type::get(t.getType().getContext()));
}
Tensor zeroBound(RankedTensorType type) { return Tensor(f64Like(type)); }
Tensor filled(RankedTensorType type, double v) {
  Tensor t = zeroBound(type);
  double *p = reinterpret_cast<double *>(t.data());
  std::fill(p, p + t.getNumElements(), v);
  return t;
}
const double *raw(const Tensor &t) { return reinterpret_cast<const double *>(t.data()); }
double *raw(Tensor &t) { return reinterpret_cast<double *>(t.data()); }

bool allZero(const Tensor &bound) {
  const double *p = raw(bound);
  return std::all_of(p, p + bound.getNumElements(), [](double d) { return d == 0; });
}
bool anyPositive(const Tensor &bound) { return !allZero(bound); }

/// Elementwise f(a[i], b[i]) of two f64 tensors of one shape.
template <typename F>
Tensor zipWith(const Tensor &a, const Tensor &b, F f) {
  Tensor out(a.getType());
  const double *pa = raw(a), *pb = raw(b);
  double *po = raw(out);
  for (int64_t i = 0, e = a.getNumElements(); i < e; ++i)
    po[i] = f(pa[i], pb[i]);
  return out;
}
template <typename F>
Tensor mapF64(const Tensor &a, F f) {
  Tensor out(a.getType());
  const double *pa = raw(a);
  double *po = raw(out);
  for (int64_t i = 0, e = a.getNumElements(); i < e; ++i)
    po[i] = f(pa[i]);
  return out;
}
Tensor plus(const Tensor &a, const Tensor &b) {
  return zipWith(a, b, [](double x, double y) { return x + y; });
}
Tensor absF64(const Tensor &t) {
  return mapF64(toF64(t), [](double x) { return std::abs(x); });
}
/// A NaN in a bound (inf * 0, inf - inf) means unbounded.
Tensor sanitized(Tensor bound) {
  double *p = raw(bound);
  for (int64_t i = 0, e = bound.getNumElements(); i < e; ++i)
    if (std::isnan(p[i]))
      p[i] = kInf;
  return bound;
}

/// `bound` plus two evaluations' roundings of a result `y` of `op` (each
/// within roundingUnits(op) u of a magnitude up to |y| + bound, or off by
/// the underflow error near zero); exact ops add nothing.
Tensor withRounding(Tensor bound, const Tensor &y, Operation *op) {
  Type elem = y.getElementType();
  double u = unitRoundoff(elem);
  if (u == 0)
    return bound;
  double r = roundingUnits(op), tiny = underflowError(elem);
  if (r == 0)
    return bound;
  Tensor magnitude = absF64(y);
  const double *m = raw(magnitude);
  double *p = raw(bound);
  for (int64_t i = 0, e = bound.getNumElements(); i < e; ++i)
    p[i] += 2 * (r * u * (m[i] + p[i]) + tiny);
  return bound;
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

/// An elementwise op's bound from the extremes of its operands' intervals:
/// the op is evaluated in double at every corner of [x - D, x + D] (per
/// operand) and the largest distance from its value at x is taken. Exact
/// for monotone ops (add, mul, div, exp, tanh, comparisons: their extremes
/// over a box are at its corners), and for steps (floor, sign, comparisons)
/// it is the jump whenever the interval crosses one (each distance padded by
/// the double evaluation's own rounding). Integer operands with
/// a nonzero bound make their elements unbounded.
Tensor elementwiseBound(idetail::Evaluator &plain, Operation &op, ArrayRef<BoundedTensor> in,
                        const Tensor &y) {
  RankedTensorType type = y.getType();
  Tensor bound = zeroBound(type);
  bool anyFloat = false, perturbed = false;
  for (const BoundedTensor &x : in) {
    anyFloat |= x.value.isFloat();
    perturbed |= anyPositive(x.bound);
    if (!x.value.isFloat() && anyPositive(x.bound)) {
      // Integers: exact or unbounded, elementwise where the shapes agree.
      if (x.bound.getShape() == type.getShape())
        bound = zipWith(bound, x.bound, [](double b, double d) { return d > 0 ? kInf : b; });
      else
        bound = filled(type, kInf);
    }
  }
  if (!anyFloat || !perturbed)
    return y.isFloat() ? withRounding(std::move(bound), y, &op) : bound;

  std::vector<Tensor> center, lo, hi;
  for (const BoundedTensor &x : in) {
    Tensor c = x.value.isFloat() ? toF64(x.value) : x.value;
    center.push_back(c);
    if (x.value.isFloat()) {
      lo.push_back(zipWith(c, x.bound, [](double v, double d) { return v - d; }));
      hi.push_back(zipWith(c, x.bound, [](double v, double d) { return v + d; }));
    } else {
      lo.push_back(c);
      hi.push_back(c);
    }
  }
  auto eval = [&](ArrayRef<Tensor> operands) -> Tensor {
    auto out = idetail::evalOp(plain, op, operands);
    return toF64((*out)[0]); // the values already evaluated, so this succeeds
  };
  Tensor mid = eval(center);
  bool floatResult = y.isFloat();
  double *b = raw(bound);
  const double *pm = raw(mid);
  std::vector<Tensor> corner(center);
  for (unsigned mask = 0; mask < (1u << in.size()); ++mask) {
    for (size_t k = 0; k < in.size(); ++k)
      corner[k] = (mask >> k & 1) ? hi[k] : lo[k];
    Tensor at = eval(corner);
    const double *pa = raw(at);
    for (int64_t i = 0, e = at.getNumElements(); i < e; ++i) {
      double m = pm[i], a = pa[i];
      double d = (std::isnan(m) || std::isinf(m)) ? (a == m || (std::isnan(a) && std::isnan(m)) ? 0 : kInf)
                                                  : std::abs(a - m);
      if (d > 0 && floatResult)
        d += 0x1p-50 * (std::abs(a) + std::abs(m));
      b[i] = std::max(b[i], std::isnan(d) ? kInf : d);
    }
  }
  return y.isFloat() ? withRounding(std::move(bound), y, &op) : bound;
}

/// select_n: the picked case's bound where the selector is exact; where it
/// may differ, any case may be picked.
Tensor selectBound(ArrayRef<BoundedTensor> in, const Tensor &y) {
  const BoundedTensor &which = in[0];
  bool scalar = which.value.getRank() == 0 && y.getRank() != 0;
  Tensor bound = zeroBound(y.getType());
  double *b = raw(bound);
  const double *dw = raw(which.bound);
  int64_t n = static_cast<int64_t>(in.size()) - 1;
  for (int64_t i = 0, e = y.getNumElements(); i < e; ++i) {
    int64_t w = scalar ? 0 : i;
    int64_t picked = std::clamp<int64_t>(which.value.getInt(w), 0, n - 1);
    const BoundedTensor &chosen = in[1 + picked];
    b[i] = raw(chosen.bound)[i];
    if (dw[w] > 0)
      for (int64_t k = 0; k < n; ++k)
        b[i] = std::max(b[i], std::abs(in[1 + k].value.getDouble(i) - chosen.value.getDouble(i)) +
                                  raw(in[1 + k].bound)[i]);
  }
  return sanitized(std::move(bound));
}

Tensor convertBound(Operation &op, const BoundedTensor &x, const Tensor &y) {
  Type to = y.getElementType();
  if (!x.value.isFloat() || !isa<FloatType>(to)) {
    if (!x.value.isFloat())
      return isa<FloatType>(to) ? withRounding(x.bound, y, &op) : x.bound;
    // Float to integer truncates, to i1 tests for zero: the interval's ends.
    Tensor c = toF64(x.value);
    return zipWith(c, x.bound, [&](double v, double d) {
      if (d == 0)
        return 0.0;
      if (to.isInteger(1))
        return std::abs(v) <= d ? 1.0 : 0.0;
      return std::max(std::abs(std::trunc(v + d) - std::trunc(v)),
                      std::abs(std::trunc(v - d) - std::trunc(v)));
    });
  }
  // Float to float: exact widening, one rounding narrowing.
  if (unitRoundoff(to) >= unitRoundoff(x.value.getElementType()))
    return withRounding(x.bound, y, &op);
  return x.bound;
}

Tensor dotBound(jx::DotGeneralOp op, ArrayRef<BoundedTensor> in, const Tensor &y) {
  const BoundedTensor &a = in[0], &b = in[1];
  if (!a.value.isFloat())
    return anyPositive(a.bound) || anyPositive(b.bound) ? filled(y.getType(), kInf)
                                                        : zeroBound(y.getType());
  Type f64 = Float64Type::get(op.getContext());
  auto dot = [&](const Tensor &l, const Tensor &r) {
    return dotGeneralOp(l, r, op.getLhsContractingDimensions(), op.getRhsContractingDimensions(),
                        op.getLhsBatchDimensions(), op.getRhsBatchDimensions(), f64);
  };
  int64_t k = 1;
  for (int64_t d : op.getLhsContractingDimensions())
    k *= a.value.getShape()[d];
  Tensor absA = absF64(a.value), absB = absF64(b.value);
  bool da = anyPositive(a.bound), db = anyPositive(b.bound);
  // |(a+ea)(b+eb) - ab| <= |a| eb + ea |b| + ea eb, then the product's
  // rounding in any summation order over magnitudes at most |a|+Da, |b|+Db.
  Tensor bound = zeroBound(y.getType());
  if (db)
    bound = plus(bound, dot(absA, b.bound));
  if (da)
    bound = plus(bound, dot(a.bound, absB));
  if (da && db)
    bound = plus(bound, dot(a.bound, b.bound));
  double g = cotangent::interp::gamma(k, computeRoundoff(y.getElementType()));
  Tensor magnitude = dot(da ? plus(absA, a.bound) : absA, db ? plus(absB, b.bound) : absB);
  bound = zipWith(bound, magnitude, [&](double d, double m) { return d + 2 * g * m; });
  return sanitized(withRounding(std::move(bound), y, op));
}

/// Sums and cumulative sums: the operands' bounds add up, and each
/// evaluation's sum of n terms is within gamma_n of the exact one.
Tensor sumBound(Operation &op, const BoundedTensor &x, const Tensor &y, int64_t n,
                llvm::function_ref<Tensor(const Tensor &)> sum) {
  if (!x.value.isFloat())
    return anyPositive(x.bound) ? filled(y.getType(), kInf) : zeroBound(y.getType());
  double g = cotangent::interp::gamma(n, computeRoundoff(y.getElementType()));
  Tensor bound = sum(x.bound);
  Tensor magnitude = sum(plus(absF64(x.value), x.bound));
  bound = zipWith(bound, magnitude, [&](double d, double m) { return d + 2 * g * m; });
  return sanitized(withRounding(std::move(bound), y, &op));
}

int64_t reducedCount(const Tensor &x, ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= x.getShape()[a];
  return n;
}

/// argmax: exact unless another element's interval reaches the maximum's.
Tensor argmaxBound(const BoundedTensor &x, int64_t axis, const Tensor &y) {
  Tensor bound = zeroBound(y.getType());
  double *b = raw(bound);
  auto [outer, n, inner] = idetail::splitAround(x.value.getShape(), axis);
  const double *d = raw(x.bound);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t out = o * inner + i, best = y.getInt(out);
      int64_t bi = (o * n + best) * inner + i;
      double top = x.value.getDouble(bi) - d[bi];
      for (int64_t j = 0; j < n; ++j) {
        int64_t ji = (o * n + j) * inner + i;
        bool exact = d[ji] == 0 && d[bi] == 0;
        if (j != best && !exact && (x.value.getDouble(ji) + d[ji] >= top || std::isnan(top)))
          b[out] = kInf;
      }
    }
  return bound;
}

/// Ops whose value moves elements without arithmetic: the same op moves the
/// bounds. `indexOperands` (integer starts or indices) must be exact, or the
/// result is unbounded.
Bounded movedBound(idetail::Evaluator &plain, Operation &op, ArrayRef<BoundedTensor> in,
                   size_t firstIndex, std::vector<Tensor> values) {
  std::vector<BoundedTensor> out;
  for (size_t k = firstIndex; k < in.size(); ++k)
    if (anyPositive(in[k].bound)) {
      for (Tensor &v : values)
        out.push_back({v, filled(v.getType(), kInf)});
      return out;
    }
  std::vector<Tensor> operands;
  for (size_t k = 0; k < in.size(); ++k)
    operands.push_back(k < firstIndex ? in[k].bound : in[k].value);
  auto bounds = idetail::evalOp(plain, op, operands);
  if (failed(bounds))
    return failure();
  for (auto [v, b] : llvm::zip_equal(values, *bounds))
    out.push_back({std::move(v), std::move(b)});
  return out;
}

//===----------------------------------------------------------------------===//
// The walk
//===----------------------------------------------------------------------===//

class BoundEvaluator {
public:
  Bounded callFunction(func::FuncOp fn, std::vector<BoundedTensor> args) {
    SmallVector<Type> types;
    for (const BoundedTensor &a : args)
      types.push_back(a.value.getType());
    if (failed(plain.checkCall(fn, types)))
      return failure();
    return evalRegion(fn.getBody(), std::move(args));
  }

  Bounded evalRegion(Region &region, std::vector<BoundedTensor> args) {
    if (!region.hasOneBlock())
      return emitError(region.getLoc()) << "the interpreter runs single-block regions only";
    Block &block = region.front();
    if (args.size() != block.getNumArguments())
      return emitError(region.getLoc()) << "region expects " << block.getNumArguments()
                                        << " arguments, got " << args.size();
    llvm::DenseMap<Value, BoundedTensor> env;
    for (auto [arg, t] : llvm::zip_equal(block.getArguments(), args))
      env.try_emplace(arg, std::move(t));
    for (Operation &op : block) {
      std::vector<BoundedTensor> operands;
      for (Value v : op.getOperands()) {
        auto found = env.find(v);
        if (found == env.end())
          return emitError(op.getLoc()) << "'" << op.getName() << "' uses a value defined outside its region";
        operands.push_back(found->second);
      }
      if (op.hasTrait<OpTrait::IsTerminator>())
        return operands;
      Bounded results = evalOp(op, operands);
      if (failed(results))
        return failure();
      for (auto [value, t] : llvm::zip_equal(op.getResults(), *results))
        env.try_emplace(value, std::move(t));
    }
    return emitError(region.getLoc()) << "block has no terminator";
  }

private:
  Bounded evalOp(Operation &op, ArrayRef<BoundedTensor> in) {
    if (isa<jx::ScanOp, jx::CondOp, jx::WhileOp, jx::RematOp, func::CallOp>(op))
      return evalControlFlow(op, in);
    std::vector<Tensor> values;
    for (const BoundedTensor &t : in)
      values.push_back(t.value);
    auto results = idetail::evalOp(plain, op, values);
    if (failed(results))
      return failure();
    auto one = [&](Tensor bound) -> Bounded {
      return std::vector<BoundedTensor>{{(*results)[0], sanitized(std::move(bound))}};
    };
    const Tensor &y = results->front();
    return llvm::TypeSwitch<Operation *, Bounded>(&op)
        .Case<jx::NegOp, jx::SinOp, jx::CosOp, jx::TanOp, jx::ExpOp, jx::LogOp, jx::Log1pOp,
              jx::Expm1Op, jx::ErfOp, jx::ErfcOp, jx::TanhOp, jx::LogisticOp, jx::SqrtOp,
              jx::RsqrtOp, jx::AbsOp, jx::SignOp, jx::FloorOp, jx::CeilOp, jx::NotOp,
              jx::StopGradientOp, jx::IntegerPowOp, jx::AddOp, jx::SubOp, jx::MulOp, jx::DivOp,
              jx::MaxOp, jx::MinOp, jx::PowOp, jx::Atan2Op, jx::RemOp, jx::AndOp, jx::OrOp,
              jx::XorOp, jx::ShiftRightLogicalOp, jx::EqOp, jx::NeOp, jx::LtOp, jx::LeOp,
              jx::GtOp, jx::GeOp>([&](auto) { return one(elementwiseBound(plain, op, in, y)); })
        .Case([&](jx::Threefry2x32Op) -> Bounded {
          bool exact = llvm::all_of(in, [](const BoundedTensor &t) { return allZero(t.bound); });
          std::vector<BoundedTensor> out;
          for (Tensor &v : *results)
            out.push_back({v, exact ? zeroBound(v.getType()) : filled(v.getType(), kInf)});
          return out;
        })
        .Case([&](jx::BitcastConvertTypeOp) {
          return one(allZero(in[0].bound) ? zeroBound(y.getType()) : filled(y.getType(), kInf));
        })
        .Case([&](jx::SelectNOp) { return one(selectBound(in, y)); })
        .Case([&](jx::ConvertElementTypeOp) { return one(convertBound(op, in[0], y)); })
        .Case([&](jx::DotGeneralOp o) { return one(dotBound(o, in, y)); })
        .Case([&](jx::ReduceSumOp o) {
          auto axes = o.getAxes();
          return one(sumBound(op, in[0], y, reducedCount(in[0].value, axes),
                              [&](const Tensor &t) { return reduceSumOp(t, axes); }));
        })
        .Case([&](jx::CumsumOp o) {
          int64_t axis = static_cast<int64_t>(o.getAxis());
          return one(sumBound(op, in[0], y, in[0].value.getShape()[axis],
                              [&](const Tensor &t) { return cumsumOp(t, axis, o.getReverse()); }));
        })
        .Case<jx::ReduceMaxOp, jx::ReduceMinOp>([&](auto o) {
          // Max and min move each element by at most the largest bound.
          return one(reduceMaxOp(in[0].bound, o.getAxes()));
        })
        .Case([&](jx::ReduceProdOp o) {
          if (!y.isFloat())
            return one(allZero(in[0].bound) ? zeroBound(y.getType()) : filled(y.getType(), kInf));
          // prod(|x| + D) - prod(|x|) bounds the perturbation; then n roundings.
          auto axes = o.getAxes();
          Tensor absX = absF64(in[0].value);
          Tensor upper = reduceProdOp(plus(absX, in[0].bound), axes);
          Tensor exact = reduceProdOp(absX, axes);
          double g = cotangent::interp::gamma(reducedCount(in[0].value, axes), computeRoundoff(y.getElementType()));
          return one(withRounding(
              zipWith(upper, exact, [&](double p, double q) { return p - q + 2 * g * p; }), y, &op));
        })
        .Case([&](jx::ArgmaxOp o) {
          return one(argmaxBound(in[0], static_cast<int64_t>(o.getAxis()), y));
        })
        .Case([&](jx::ScatterAddOp o) -> Bounded {
          if (anyPositive(in[1].bound))
            return one(filled(y.getType(), kInf));
          if (!y.isFloat())
            return one(allZero(in[0].bound) && allZero(in[2].bound) ? zeroBound(y.getType())
                                                                    : filled(y.getType(), kInf));
          // Each element adds at most (number of indices) updates to x.
          int64_t axis = o.getAxis();
          Tensor moved = scatterAddOp(in[0].bound, in[1].value, in[2].bound, axis);
          Tensor magnitude = scatterAddOp(plus(absF64(in[0].value), in[0].bound), in[1].value,
                                          plus(absF64(in[2].value), in[2].bound), axis);
          double g = cotangent::interp::gamma(in[1].value.getNumElements() + 1, computeRoundoff(y.getElementType()));
          return one(withRounding(
              zipWith(moved, magnitude, [&](double d, double m) { return d + 2 * g * m; }), y, &op));
        })
        .Case<jx::BroadcastInDimOp, jx::ReshapeOp, jx::TransposeOp, jx::SqueezeOp,
              jx::ExpandDimsOp, jx::SliceOp, jx::ConcatenateOp, jx::PadOp,
              jx::CheckpointNameOp, jx::OptimizationBarrierOp>(
            [&](auto) { return movedBound(plain, op, in, in.size(), *results); })
        .Case<jx::DynamicSliceOp, jx::TakeOp>(
            [&](auto) { return movedBound(plain, op, in, 1, *results); })
        .Case([&](jx::DynamicUpdateSliceOp) { return movedBound(plain, op, in, 2, *results); })
        .Case<jx::IotaOp, jx::ConstantOp>([&](auto) { return one(zeroBound(y.getType())); })
        .Case([&](jx::CompositeOpInterface composite) { return expandedBound(composite, in); })
        .Default([&](Operation *other) -> Bounded {
          return emitError(other->getLoc())
                 << "'" << other->getName() << "' has no error bound rule";
        });
  }

  /// A composite (fused attention, the fused cross-entropy) bounded as its
  /// expansion into jx ops is, whose rules cover any order of its sums (the
  /// kernels' tiles and online softmax among them); the values are the
  /// expansion's, which are the op's up to that bound.
  Bounded expandedBound(jx::CompositeOpInterface composite, ArrayRef<BoundedTensor> in) {
    return evalRegion(plain.expansionOf(composite),
                      std::vector<BoundedTensor>(in.begin(), in.end()));
  }

  /// Values and bounds as one flat list for the interpreter's loop drivers:
  /// the values of `ts`, then their bounds.
  static void flatten(ArrayRef<BoundedTensor> ts, std::vector<Tensor> &out) {
    for (const BoundedTensor &t : ts)
      out.push_back(t.value);
    for (const BoundedTensor &t : ts)
      out.push_back(t.bound);
  }
  /// The inverse of flatten for `n` tensors starting at `at`.
  static void unflatten(ArrayRef<Tensor> flat, size_t at, size_t n, std::vector<BoundedTensor> &out) {
    for (size_t i = 0; i < n; ++i)
      out.push_back({flat[at + i], flat[at + n + i]});
  }

  Bounded evalControlFlow(Operation &op, ArrayRef<BoundedTensor> in) {
    if (auto remat = dyn_cast<jx::RematOp>(op))
      return evalRegion(remat.getBody(), {in.begin(), in.end()});
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
      if (!callee)
        return emitError(call.getLoc()) << "func.call of '" << call.getCallee() << "', which is not a func.func here";
      return callFunction(callee, {in.begin(), in.end()});
    }
    if (auto cond = dyn_cast<jx::CondOp>(op))
      return evalCond(cond, in);
    if (auto loop = dyn_cast<jx::WhileOp>(op))
      return evalWhile(loop, in);
    return evalScan(cast<jx::ScanOp>(op), in);
  }

  /// The branch the reference takes; where the index may differ, every
  /// branch is run and the results may be any of theirs.
  Bounded evalCond(jx::CondOp op, ArrayRef<BoundedTensor> in) {
    int64_t n = op.getBranches().size();
    int64_t taken = condBranchIndex(in[0].value, n);
    std::vector<BoundedTensor> inputs(in.begin() + 1, in.end());
    Bounded out = evalRegion(op.getBranches()[taken], inputs);
    if (failed(out) || allZero(in[0].bound))
      return out;
    for (int64_t k = 0; k < n; ++k) {
      if (k == taken)
        continue;
      Bounded other = evalRegion(op.getBranches()[k], inputs);
      if (failed(other))
        return failure();
      for (auto [mine, theirs] : llvm::zip_equal(*out, *other)) {
        Tensor distance = zipWith(toF64(theirs.value), toF64(mine.value),
                                  [](double a, double b) { return std::abs(a - b); });
        mine.bound = sanitized(zipWith(mine.bound, plus(distance, theirs.bound),
                                       [](double a, double b) { return std::max(a, b); }));
      }
    }
    return out;
  }

  /// A loop whose condition may come out otherwise may run another number
  /// of trips: then nothing it returns is bounded.
  Bounded evalWhile(jx::WhileOp op, ArrayRef<BoundedTensor> in) {
    size_t n = in.size();
    bool uncertain = false;
    std::vector<Tensor> carry;
    flatten(in, carry);
    auto cond = [&](std::vector<Tensor> flat) -> llvm::FailureOr<std::vector<Tensor>> {
      std::vector<BoundedTensor> args;
      unflatten(flat, 0, n, args);
      Bounded go = evalRegion(op.getCond(), std::move(args));
      if (failed(go))
        return failure();
      uncertain |= anyPositive(go->front().bound);
      return std::vector<Tensor>{go->front().value};
    };
    auto body = [&](std::vector<Tensor> flat) -> llvm::FailureOr<std::vector<Tensor>> {
      std::vector<BoundedTensor> args;
      unflatten(flat, 0, n, args);
      Bounded next = evalRegion(op.getBody(), std::move(args));
      if (failed(next))
        return failure();
      std::vector<Tensor> out;
      flatten(*next, out);
      return out;
    };
    auto result = whileOp(std::move(carry), cond, body);
    if (failed(result))
      return failure();
    std::vector<BoundedTensor> out;
    unflatten(*result, 0, n, out);
    if (uncertain)
      for (BoundedTensor &t : out)
        t.bound = filled(t.value.getType(), kInf);
    return out;
  }

  Bounded evalScan(jx::ScanOp op, ArrayRef<BoundedTensor> in) {
    size_t numConsts = op.getNumConsts(), numCarry = op.getNumCarry();
    size_t numXs = in.size() - numConsts - numCarry;
    size_t numYs = op.getNumResults() - numCarry;
    std::vector<Tensor> consts, carry, xs;
    flatten(in.take_front(numConsts), consts);
    flatten(in.slice(numConsts, numCarry), carry);
    flatten(in.drop_front(numConsts + numCarry), xs);
    SmallVector<RankedTensorType> ysTypes;
    for (Type t : llvm::drop_begin(op.getResultTypes(), numCarry))
      ysTypes.push_back(cast<RankedTensorType>(t));
    for (size_t i = 0; i < numYs; ++i)
      ysTypes.push_back(f64Like(ysTypes[i]));
    auto body = [&](std::vector<Tensor> flat) -> llvm::FailureOr<std::vector<Tensor>> {
      std::vector<BoundedTensor> args;
      unflatten(flat, 0, numConsts, args);
      unflatten(flat, 2 * numConsts, numCarry, args);
      unflatten(flat, 2 * (numConsts + numCarry), numXs, args);
      Bounded out = evalRegion(op.getBody(), std::move(args));
      if (failed(out))
        return failure();
      std::vector<Tensor> packed;
      flatten(ArrayRef(*out).take_front(numCarry), packed);
      flatten(ArrayRef(*out).drop_front(numCarry), packed);
      return packed;
    };
    auto result = scanOp(consts, std::move(carry), xs, static_cast<int64_t>(op.getLength()),
                         op.getReverse(), ysTypes, body);
    if (failed(result))
      return failure();
    std::vector<BoundedTensor> out;
    unflatten(*result, 0, numCarry, out);
    unflatten(*result, 2 * numCarry, numYs, out);
    return out;
  }

  idetail::Evaluator plain;
};

/// Units in the last place a function's f32 results are within, on the CPU
/// (docs/lowering.md's table, measured by MathAccuracyTest) and in glibc's
/// float and double libm (its manual's table of known maximum errors): the
/// larger of the two, at least 2.
double libmUlps(Operation *op) {
  if (isa<jx::TanhOp, jx::ErfOp>(op))
    return 4;
  return 2;
}

} // namespace

double cotangent::interp::gamma(int64_t n, double u) {
  double nu = static_cast<double>(n) * u;
  return nu >= 1 ? kInf : nu / (1 - nu);
}

double cotangent::interp::roundingUnits(Operation *op) {
  return llvm::TypeSwitch<Operation *, double>(op)
      // Correctly rounded: within half an ulp, u |y|.
      .Case<jx::AddOp, jx::SubOp, jx::MulOp, jx::SqrtOp, jx::ConvertElementTypeOp,
            jx::ReduceSumOp, jx::CumsumOp, jx::ReduceProdOp, jx::DotGeneralOp,
            jx::ScatterAddOp>([](auto) { return 1.0; })
      // A division may be a reciprocal and a product, rsqrt 1 / sqrt.
      .Case<jx::DivOp, jx::RsqrtOp>([](auto) { return 2.0; })
      // Repeated squaring: a rounding per product (and the reciprocal).
      .Case([](jx::IntegerPowOp o) {
        int64_t y = std::abs(static_cast<int64_t>(o.getY()));
        double products = y <= 1 ? 0 : 2 * std::ceil(std::log2(static_cast<double>(y) + 1));
        return products + (o.getY() < 0 ? 2 : 0);
      })
      // Functions: (ulps + 1/2) ulp(y), and ulp(y) <= 2 u |y|.
      .Case<jx::SinOp, jx::CosOp, jx::TanOp, jx::ExpOp, jx::LogOp, jx::Log1pOp, jx::Expm1Op,
            jx::ErfOp, jx::ErfcOp, jx::TanhOp, jx::LogisticOp, jx::PowOp, jx::Atan2Op>(
          [](Operation *o) { return 2 * libmUlps(o) + 1; })
      // Exact: moves, sign changes, max/min, floor/ceil, fmod, integers.
      .Default([](Operation *) { return 0.0; });
}

llvm::FailureOr<std::vector<BoundedTensor>>
cotangent::interp::runWithErrorBounds(func::FuncOp fn, llvm::ArrayRef<Tensor> args) {
  if (auto module = fn->getParentOfType<ModuleOp>(); module && failed(jx::verifyNoCallCycles(module)))
    return failure();
  std::vector<BoundedTensor> bounded;
  for (const Tensor &a : args) {
    if (!isSupportedType(a.getType()))
      return emitError(fn.getLoc()) << "argument type " << a.getType() << " is not a jx tensor type";
    bounded.push_back({a, zeroBound(a.getType())});
  }
  BoundEvaluator evaluator;
  return evaluator.callFunction(fn, std::move(bounded));
}

std::optional<std::string> cotangent::interp::outsideBound(const Tensor &got,
                                                           const BoundedTensor &want) {
  std::ostringstream why;
  auto typeName = [](mlir::Type t) {
    std::string s;
    llvm::raw_string_ostream(s) << t;
    return s;
  };
  if (got.getType() != want.value.getType()) {
    why << "type " << typeName(got.getType()) << ", expected " << typeName(want.value.getType());
    return why.str();
  }
  const double *bound = raw(want.bound);
  for (int64_t i = 0, e = got.getNumElements(); i < e; ++i) {
    double g = got.getDouble(i), w = want.value.getDouble(i), d = bound[i];
    if (std::isinf(d))
      continue;
    bool ok;
    if (!want.value.isFloat())
      ok = got.getInt(i) == want.value.getInt(i) || std::abs(g - w) <= d;
    else if (std::isnan(w))
      ok = std::isnan(g);
    else if (std::isinf(w))
      ok = g == w;
    else
      ok = std::abs(g - w) <= d;
    if (!ok) {
      why.precision(9);
      why << "element " << i << ": " << g << ", reference " << w << ", differs by "
          << std::abs(g - w) << " > bound " << d;
      return why.str();
    }
  }
  return std::nullopt;
}
