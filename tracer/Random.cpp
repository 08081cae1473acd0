//===- Random.cpp - JAX's threefry2x32 PRNG on the host -------------------===//
//
// Follows jax/_src/prng.py with jax_threefry_partitionable on: an array of
// N draws enciphers the 64-bit counters 0..N-1 (high word, low word) under
// the key, and 32-bit draws are the two output words xor-ed.
//
//===----------------------------------------------------------------------===//

#include "tracer/Random.h"
#include "tracer/Errors.h"

#include "dialects/jx/Threefry.h"

#include "mlir/IR/BuiltinTypes.h"

#include <bit>
#include <cmath>
#include <limits>

namespace cotangent::random {

namespace {

/// threefry2x32 on every counter 0..count-1: the two output words each.
std::vector<std::pair<uint32_t, uint32_t>> encipherCounters(Key key, size_t count) {
  std::vector<std::pair<uint32_t, uint32_t>> out(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t counter = i;
    out[i] = threefry2x32(key, static_cast<uint32_t>(counter >> 32),
                          static_cast<uint32_t>(counter));
  }
  return out;
}

int64_t elementCount(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      throw TraceError("random: negative dimension in shape " + shapeString(DType::F32, shape));
    n *= d;
  }
  return n;
}

mlir::RankedTensorType typeOf(mlir::MLIRContext &ctx, const Shape &shape, DType dtype) {
  return mlir::RankedTensorType::get(shape, toMlirType(&ctx, dtype));
}

/// JAX's _uniform in float32: 23 random mantissa bits under exponent 0
/// give [1, 2); minus 1, scaled and shifted in one fused multiply-add (as
/// XLA's CPU code contracts it), and kept at or above minval.
std::vector<float> uniformFloats(Key key, size_t count, float minval, float maxval) {
  std::vector<uint32_t> words = bits(key, count);
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    float one_two = std::bit_cast<float>((words[i] >> 9) | 0x3f800000u);
    float v = std::fma(one_two - 1.0f, maxval - minval, minval);
    out[i] = std::max(minval, v);
  }
  return out;
}

/// erf in float as XLA's CPU backend computes it, for the interval ends of
/// truncated_normal: Eigen's rational approximation x P(x^2) / Q(x^2)
/// (P odd of degree 9, Q even of degree 12, Horner with fused
/// multiply-adds), and +-1 where the quotient would round to it.
float xlaErf(float x) {
  static constexpr float p[5] = {0.00022905065861350646f, 0.0034082910107109506f,
                                 0.050955695062380861f, 0.18520832239976145f,
                                 1.128379143519084f};
  static constexpr float q[7] = {-1.1791602954361697e-7f, 0.000023547966471313185f,
                                 0.0010179625278914885f,  0.014070470171167667f,
                                 0.11098505178285362f,    0.49746925110067538f,
                                 1.0f};
  if (std::fabs(x) >= 3.832506856900711f)
    return std::copysign(1.0f, x);
  float x2 = x * x;
  float num = p[0], den = q[0];
  for (int i = 1; i < 5; ++i)
    num = std::fma(x2, num, p[i]);
  for (int i = 1; i < 7; ++i)
    den = std::fma(x2, den, q[i]);
  return x * num / den;
}

interp::Tensor floats(mlir::MLIRContext &ctx, const Shape &shape, const std::vector<float> &v) {
  return interp::Tensor::fromDoubles(typeOf(ctx, shape, DType::F32),
                                     std::vector<double>(v.begin(), v.end()));
}

} // namespace

Key PRNGKey(int64_t seed) {
  // JAX without jax_enable_x64 takes the seed as int32: the high word is
  // the int32's bits shifted right by 32, which XLA defines as 0.
  return {0, static_cast<uint32_t>(static_cast<uint64_t>(seed))};
}

std::pair<uint32_t, uint32_t> threefry2x32(Key key, uint32_t x0, uint32_t x1) {
  return mlir::jx::threefry::encipher(key.hi, key.lo, x0, x1);
}

std::vector<Key> split(Key key, size_t num) {
  std::vector<Key> keys;
  for (auto [a, b] : encipherCounters(key, num))
    keys.push_back({a, b});
  return keys;
}

Key fold_in(Key key, uint32_t data) {
  auto [a, b] = threefry2x32(key, 0, data);
  return {a, b};
}

std::vector<uint32_t> bits(Key key, size_t count) {
  std::vector<uint32_t> out;
  out.reserve(count);
  for (auto [a, b] : encipherCounters(key, count))
    out.push_back(a ^ b);
  return out;
}

interp::Tensor uniform(mlir::MLIRContext &ctx, Key key, const Shape &shape, double minval,
                       double maxval) {
  auto count = static_cast<size_t>(elementCount(shape));
  return floats(ctx, shape,
                uniformFloats(key, count, static_cast<float>(minval), static_cast<float>(maxval)));
}

float erf_inv(float x) {
  static constexpr float small[9] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                                     -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                                     -0.00417768164f,  0.246640727f,    1.50140941f};
  static constexpr float large[9] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                                     -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                                     0.00943887047f,   1.00167406f,     2.83297682f};
  if (std::fabs(x) == 1.0f)
    return x * std::numeric_limits<float>::infinity();
  float w = -std::log1p(-x * x);
  bool central = w < 5.0f;
  const float *c = central ? small : large;
  w = central ? w - 2.5f : std::sqrt(w) - 3.0f;
  float p = c[0]; // Horner with fused multiply-adds, as XLA contracts it
  for (int i = 1; i < 9; ++i)
    p = std::fma(p, w, c[i]);
  return p * x;
}

interp::Tensor normal(mlir::MLIRContext &ctx, Key key, const Shape &shape) {
  // Uniform on (-1, 1): the open lower end keeps erf_inv finite.
  float lo = std::nextafter(-1.0f, 0.0f);
  std::vector<float> u = uniformFloats(key, static_cast<size_t>(elementCount(shape)), lo, 1.0f);
  const float sqrt2 = static_cast<float>(std::sqrt(2.0));
  for (float &v : u)
    v = sqrt2 * erf_inv(v);
  return floats(ctx, shape, u);
}

interp::Tensor truncated_normal(mlir::MLIRContext &ctx, Key key, double lower, double upper,
                                const Shape &shape) {
  if (!(lower < upper))
    throw TraceError("random.truncated_normal: lower (" + std::to_string(lower) +
                     ") must be below upper (" + std::to_string(upper) + ")");
  const float sqrt2 = static_cast<float>(std::sqrt(2.0));
  float lo = static_cast<float>(lower), hi = static_cast<float>(upper);
  float a = xlaErf(lo / sqrt2), b = xlaErf(hi / sqrt2);
  std::vector<float> u = uniformFloats(key, static_cast<size_t>(elementCount(shape)), a, b);
  float floor = std::nextafter(lo, std::numeric_limits<float>::infinity());
  float ceiling = std::nextafter(hi, -std::numeric_limits<float>::infinity());
  for (float &v : u)
    v = std::clamp(sqrt2 * erf_inv(v), floor, ceiling);
  return floats(ctx, shape, u);
}

interp::Tensor bernoulli(mlir::MLIRContext &ctx, Key key, double p, const Shape &shape) {
  if (!(p >= 0.0 && p <= 1.0))
    throw TraceError("random.bernoulli: p must lie in [0, 1], got " + std::to_string(p));
  std::vector<float> u = uniformFloats(key, static_cast<size_t>(elementCount(shape)), 0.0f, 1.0f);
  std::vector<int64_t> out(u.size());
  for (size_t i = 0; i < u.size(); ++i)
    out[i] = u[i] < static_cast<float>(p);
  return interp::Tensor::fromInts(typeOf(ctx, shape, DType::Bool), out);
}

} // namespace cotangent::random
