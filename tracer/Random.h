//===- Random.h - JAX's threefry2x32 PRNG on the host ------------*- C++ -*-===//
//
// jax.random for initializing parameters and making data: the same keys,
// splits, folds and bits as JAX (threefry2x32, jax_threefry_partitionable,
// JAX's default since 0.5), so `random::normal(ctx, random::PRNGKey(0),
// {3, 4})` draws what `jax.random.normal(jax.random.PRNGKey(0), (3, 4))`
// draws. Keys, splits, folds, bits, uniform and bernoulli are bit-exact;
// normal and truncated_normal go through erf_inv (Giles' approximation with
// XLA's fused multiply-adds) and agree within 5 ulps, 88% of draws
// bit-exact: XLA's CPU log1p is not libm's (test/unit/api/RandomTest.cpp).
//
// On the host, values are drawn into interp::Tensors. Inside a traced
// program the same functions take the key as a traced i32[2] tensor (JAX's
// raw uint32[2] key data as bits; `key_data` makes one to pass in) and emit
// jx.threefry2x32 with the bit ops around it, so a step draws fresh numbers
// each call (dropout), bit-exact with the host draws and JAX's
// (RandomTest.cpp, traced section).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_RANDOM_H
#define COTANGENT_TRACER_RANDOM_H

#include "tracer/Tensor.h"
#include "runtime/interpreter/Tensor.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace cotangent::random {

/// A raw threefry key: jax.random.PRNGKey's two uint32 words.
struct Key {
  uint32_t hi = 0, lo = 0;
  bool operator==(const Key &) const = default;
};

/// jax.random.PRNGKey(seed) as JAX computes it by default (without
/// jax_enable_x64): {0, the seed's low 32 bits}.
Key PRNGKey(int64_t seed);
/// The threefry2x32 block cipher (20 rounds) on one pair of words.
std::pair<uint32_t, uint32_t> threefry2x32(Key key, uint32_t x0, uint32_t x1);
/// jax.random.split(key, num).
std::vector<Key> split(Key key, size_t num = 2);
/// jax.random.fold_in(key, data).
Key fold_in(Key key, uint32_t data);
/// jax.random.bits(key, (count,)): uint32 words.
std::vector<uint32_t> bits(Key key, size_t count);

/// jax.random.uniform(key, shape, float32, minval, maxval).
interp::Tensor uniform(mlir::MLIRContext &ctx, Key key, const Shape &shape, double minval = 0.0,
                       double maxval = 1.0);
/// jax.random.normal(key, shape, float32).
interp::Tensor normal(mlir::MLIRContext &ctx, Key key, const Shape &shape);
/// jax.random.truncated_normal(key, lower, upper, shape, float32).
interp::Tensor truncated_normal(mlir::MLIRContext &ctx, Key key, double lower, double upper,
                                const Shape &shape);
/// jax.random.bernoulli(key, p, shape): i1.
interp::Tensor bernoulli(mlir::MLIRContext &ctx, Key key, double p, const Shape &shape);

/// erf_inv in float as XLA approximates it (Giles), for the draws above.
float erf_inv(float x);

// Inside a traced function: `key` is an i32[2] tensor of key bits.

/// jax.random.key_data: the key as the i32[2] tensor a traced step takes.
interp::Tensor key_data(mlir::MLIRContext &ctx, Key key);
/// jax.random.threefry2x32 on traced words (i32 bits, one shape): {y0, y1}.
std::pair<Tensor, Tensor> threefry2x32(const Tensor &k0, const Tensor &k1, const Tensor &x0,
                                       const Tensor &x1, SrcLoc loc = SrcLoc::current());
/// jax.random.split: i32[num, 2], one key per row.
Tensor split(const Tensor &key, int64_t num = 2, SrcLoc loc = SrcLoc::current());
/// jax.random.fold_in with a constant or a traced 0-d i32 `data`.
Tensor fold_in(const Tensor &key, const Operand &data, SrcLoc loc = SrcLoc::current());
/// jax.random.bits(key, shape): i32 holding the uint32 words.
Tensor bits(const Tensor &key, const Shape &shape, SrcLoc loc = SrcLoc::current());
/// jax.random.uniform(key, shape, float32, minval, maxval); bit-exact for
/// [0, 1), else the scale and shift round twice where XLA fuses them (1 ulp).
Tensor uniform(const Tensor &key, const Shape &shape, double minval = 0.0, double maxval = 1.0,
               SrcLoc loc = SrcLoc::current());
/// jax.random.bernoulli(key, p, shape): bool.
Tensor bernoulli(const Tensor &key, double p, const Shape &shape, SrcLoc loc = SrcLoc::current());

} // namespace cotangent::random

#endif // COTANGENT_TRACER_RANDOM_H
