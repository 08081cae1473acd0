//===- RandomTraced.cpp - JAX's PRNG inside a traced function -------------===//
//
// The host draws of Random.cpp written with jx ops on a traced key: the
// same counters (0..n-1, high word 0) enciphered by jx.threefry2x32, the same
// bit manipulations for floats, so the draws are the host's bit for bit.
//
//===----------------------------------------------------------------------===//

#include "tracer/Broadcast.h"
#include "tracer/Numpy.h"
#include "tracer/Random.h"
#include "tracer/TraceState.h"

#include <limits>

namespace cotangent::random {

namespace {

/// The key's two words, checked, as 0-d i32 tensors.
std::pair<Tensor, Tensor> words(const Tensor &key, std::string_view op, const SrcLoc &loc) {
  if (key.dtype() != DType::I32 || key.shape() != Shape{2})
    throwTraceError(op, "expects a key of i32[2] (jax.random.key_data's bits), got " + key.str(),
                    {key.str()}, loc);
  return {np::index_in_dim(key, 0, 0, loc), np::index_in_dim(key, 1, 0, loc)};
}

/// The counters 0..n-1 enciphered under `key`: the two output words, i32[n].
std::pair<Tensor, Tensor> encipherCounters(const Tensor &key, int64_t n, std::string_view op,
                                           const SrcLoc &loc) {
  if (n < 0 || n > std::numeric_limits<int32_t>::max())
    throwTraceError(op, "draws " + std::to_string(n) + " values; at most 2^31 - 1 per call",
                    {key.str()}, loc);
  auto [k0, k1] = words(key, op, loc);
  Shape shape{n};
  return threefry2x32(np::broadcast_to(k0, shape, loc), np::broadcast_to(k1, shape, loc),
                      np::zeros(shape, DType::I32, loc), np::arange(n, loc), loc);
}

int64_t count(const Shape &shape, std::string_view op, const SrcLoc &loc) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      throwTraceError(op, "negative dimension in shape " + shapeString(DType::F32, shape), {},
                      loc);
    n *= d;
  }
  return n;
}

} // namespace

interp::Tensor key_data(mlir::MLIRContext &ctx, Key key) {
  auto type = mlir::RankedTensorType::get({2}, mlir::IntegerType::get(&ctx, 32));
  return interp::Tensor::fromInts(type, {static_cast<int32_t>(key.hi), static_cast<int32_t>(key.lo)});
}

std::pair<Tensor, Tensor> threefry2x32(const Tensor &k0, const Tensor &k1, const Tensor &x0,
                                       const Tensor &x1, SrcLoc loc) {
  for (const Tensor *t : {&k0, &k1, &x0, &x1})
    if (t->dtype() != DType::I32 || t->shape() != x0.shape())
      throwTraceError("threefry2x32", "expects four i32 tensors of one shape",
                      {k0.str(), k1.str(), x0.str(), x1.str()}, loc);
  auto op = detail::emit<mlir::jx::Threefry2x32Op>(
      "threefry2x32", loc, detail::use(k0, "threefry2x32", loc), detail::use(k1, "threefry2x32", loc),
      detail::use(x0, "threefry2x32", loc), detail::use(x1, "threefry2x32", loc));
  return {detail::wrap(op.getY0()), detail::wrap(op.getY1())};
}

Tensor split(const Tensor &key, int64_t num, SrcLoc loc) {
  auto [a, b] = encipherCounters(key, num, "random.split", loc);
  return np::stack({a, b}, 1, loc);
}

Tensor fold_in(const Tensor &key, const Operand &data, SrcLoc loc) {
  auto [k0, k1] = words(key, "random.fold_in", loc);
  Operand d[] = {data};
  Tensor x1 = detail::harmonize(d, "random.fold_in", loc, DType::I32)[0];
  if (x1.rank() != 0)
    throwTraceError("random.fold_in", "expects 0-d data, got " + x1.str(), {key.str(), x1.str()},
                    loc);
  auto [a, b] = threefry2x32(k0, k1, np::zeros({}, DType::I32, loc), x1, loc);
  return np::stack({a, b}, 0, loc);
}

Tensor bits(const Tensor &key, const Shape &shape, SrcLoc loc) {
  auto [a, b] = encipherCounters(key, count(shape, "random.bits", loc), "random.bits", loc);
  return np::reshape(np::bitwise_xor(a, b, loc), shape, loc);
}

Tensor uniform(const Tensor &key, const Shape &shape, double minval, double maxval, SrcLoc loc) {
  // 23 random mantissa bits under exponent 0: [1, 2), minus 1.
  Tensor mantissa = np::shift_right_logical(bits(key, shape, loc), 9, loc);
  Tensor oneTwo = np::bitcast_convert_type(np::logical_or(mantissa, 0x3f800000, loc), DType::F32, loc);
  Tensor unit = np::subtract(oneTwo, 1.0, loc);
  if (minval == 0.0 && maxval == 1.0)
    return unit;
  float lo = static_cast<float>(minval), span = static_cast<float>(maxval) - lo;
  return np::maximum(np::add(np::multiply(unit, span, loc), lo, loc), lo, loc);
}

Tensor bernoulli(const Tensor &key, double p, const Shape &shape, SrcLoc loc) {
  if (!(p >= 0.0 && p <= 1.0))
    throwTraceError("random.bernoulli", "p must lie in [0, 1], got " + std::to_string(p),
                    {key.str()}, loc);
  return np::less(uniform(key, shape, 0.0, 1.0, loc), static_cast<float>(p), loc);
}

} // namespace cotangent::random
