//===- Numpy.h - a NumPy-like namespace over traced tensors -----*- C++ -*-===//
//
// `cotangent::np` mirrors jax.numpy (and a few jax.lax and jax.nn names): each
// function emits the jx ops JAX would put in a jaxpr, with implicit
// broadcasting and dtype promotion made explicit. Every function takes the
// caller's source location as a defaulted last argument.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_NUMPY_H
#define COTANGENT_TRACER_NUMPY_H

#include "runtime/interpreter/Tensor.h"
#include "tracer/Tensor.h"

#include <initializer_list>
#include <optional>

namespace cotangent::np {

/// A set of axes; default-constructed means "all axes" (NumPy's axis=None).
struct Axes {
  std::optional<std::vector<int64_t>> axes;
  Axes() = default;
  Axes(int64_t axis) : axes(std::vector<int64_t>{axis}) {}
  Axes(std::initializer_list<int64_t> list) : axes(std::vector<int64_t>(list)) {}
  Axes(std::vector<int64_t> list) : axes(std::move(list)) {}
};

// Elementwise, one operand. Ints and bools are computed as f32 where JAX
// requires floats.
Tensor sin(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor cos(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor tan(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor exp(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor log(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor log1p(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor expm1(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jax.lax.erf (jax.scipy.special.erf): the error function.
Tensor erf(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jax.lax.erfc: 1 - erf(x), accurate where erf(x) is near 1.
Tensor erfc(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor tanh(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor logistic(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor sqrt(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor rsqrt(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor floor(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor ceil(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor abs(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor sign(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor negative(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor logical_not(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// jax.nn.relu: max(x, 0).
Tensor relu(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor stop_gradient(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// x ** n for a constant integer n (jax.lax.integer_pow).
Tensor integer_pow(const Tensor &x, int64_t n, SrcLoc loc = SrcLoc::current());
/// x ** n for a C++ integer n: jx.integer_pow.
template <std::integral I>
Tensor power(const Tensor &x, I n, SrcLoc loc = SrcLoc::current()) {
  return integer_pow(x, static_cast<int64_t>(n), loc);
}
/// x ** y elementwise on floats (jx.pow).
Tensor power(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());

// Elementwise, two operands (broadcast and promoted).
Tensor add(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor subtract(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor multiply(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
/// True division: ints are divided as f32, as in JAX.
Tensor divide(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor maximum(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor minimum(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor equal(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor not_equal(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor less(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor less_equal(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor greater(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor greater_equal(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor logical_and(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
Tensor logical_or(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
/// jnp.bitwise_xor / logical_xor (bool or integer operands).
Tensor bitwise_xor(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
/// jax.lax.shift_right_logical on integers: zeros shifted in, 0 for shifts
/// outside [0, bit width).
Tensor shift_right_logical(const Operand &x, const Operand &y, SrcLoc loc = SrcLoc::current());
/// jax.lax.bitcast_convert_type between element types of one width.
Tensor bitcast_convert_type(const Tensor &x, DType dtype, SrcLoc loc = SrcLoc::current());
/// cond ? x : y elementwise (jx.select_n with the false case first).
Tensor where(const Operand &cond, const Operand &x, const Operand &y,
             SrcLoc loc = SrcLoc::current());

// Contractions.
/// numpy.dot: inner product, matrix-vector, matrix-matrix; for N-D operands
/// the last axis of `a` against the second-to-last of `b`.
Tensor dot(const Tensor &a, const Tensor &b, SrcLoc loc = SrcLoc::current());
/// numpy.matmul: like dot for rank <= 2 and for a matrix `b` (a's leading
/// axes contracted against it, never copied per batch element); otherwise
/// leading axes are broadcast batch dimensions (a dot_general with batch dims).
Tensor matmul(const Tensor &a, const Tensor &b, SrcLoc loc = SrcLoc::current());
/// lax.dot_general: contracts a's `lhs_contracting` axes with b's
/// `rhs_contracting`, pairs `lhs_batch` with `rhs_batch`; the result is
/// [batch..., a's other axes..., b's other axes...] (operands promoted).
Tensor dot_general(const Tensor &a, const Tensor &b, std::vector<int64_t> lhs_contracting,
                   std::vector<int64_t> rhs_contracting, std::vector<int64_t> lhs_batch = {},
                   std::vector<int64_t> rhs_batch = {}, SrcLoc loc = SrcLoc::current());
/// numpy.einsum: "ij,jk->ik", "...qhd,...khd->...hqk", "ii" is not (no
/// diagonals). Letters absent from the output and from the other operands
/// are summed first; each pair is one dot_general, several operands are
/// contracted left to right; the output is transposed into place. Without
/// "->" the output is the ellipsis, then the letters seen once, sorted.
Tensor einsum(const std::string &spec, const std::vector<Tensor> &operands,
              SrcLoc loc = SrcLoc::current());
inline Tensor einsum(const std::string &spec, const Tensor &a, SrcLoc loc = SrcLoc::current()) {
  return einsum(spec, std::vector<Tensor>{a}, loc);
}
inline Tensor einsum(const std::string &spec, const Tensor &a, const Tensor &b,
                     SrcLoc loc = SrcLoc::current()) {
  return einsum(spec, std::vector<Tensor>{a, b}, loc);
}

// Reductions.
Tensor sum(const Tensor &x, Axes axes = {}, bool keepdims = false, SrcLoc loc = SrcLoc::current());
Tensor mean(const Tensor &x, Axes axes = {}, bool keepdims = false, SrcLoc loc = SrcLoc::current());
Tensor max(const Tensor &x, Axes axes = {}, bool keepdims = false, SrcLoc loc = SrcLoc::current());
Tensor min(const Tensor &x, Axes axes = {}, bool keepdims = false, SrcLoc loc = SrcLoc::current());
Tensor prod(const Tensor &x, Axes axes = {}, bool keepdims = false, SrcLoc loc = SrcLoc::current());
/// Index of the maximum along `axis` (i32); without an axis, of the flattened tensor.
Tensor argmax(const Tensor &x, std::optional<int64_t> axis = std::nullopt, bool keepdims = false,
              SrcLoc loc = SrcLoc::current());
/// Inclusive cumulative sum along `axis`.
Tensor cumsum(const Tensor &x, int64_t axis = 0, bool reverse = false,
              SrcLoc loc = SrcLoc::current());

// Shapes.
/// One entry may be -1 (inferred).
Tensor reshape(const Tensor &x, Shape shape, SrcLoc loc = SrcLoc::current());
/// Without a permutation, reverses the axes.
Tensor transpose(const Tensor &x, std::vector<int64_t> perm = {}, SrcLoc loc = SrcLoc::current());
Tensor broadcast_to(const Tensor &x, const Shape &shape, SrcLoc loc = SrcLoc::current());
Tensor expand_dims(const Tensor &x, Axes axes, SrcLoc loc = SrcLoc::current());
/// Without axes, removes every axis of size 1.
Tensor squeeze(const Tensor &x, Axes axes = {}, SrcLoc loc = SrcLoc::current());
Tensor concatenate(const std::vector<Tensor> &xs, int64_t axis = 0, SrcLoc loc = SrcLoc::current());
Tensor stack(const std::vector<Tensor> &xs, int64_t axis = 0, SrcLoc loc = SrcLoc::current());
Tensor astype(const Tensor &x, DType dtype, SrcLoc loc = SrcLoc::current());

// Creation.
/// jnp.asarray of host data: `value`'s elements as a constant of the trace
/// (what a NumPy array captured by a JAX function becomes).
Tensor asarray(const interp::Tensor &value, SrcLoc loc = SrcLoc::current());
Tensor full(const Shape &shape, double value, DType dtype = DType::F32,
            SrcLoc loc = SrcLoc::current());
Tensor zeros(const Shape &shape, DType dtype = DType::F32, SrcLoc loc = SrcLoc::current());
Tensor ones(const Shape &shape, DType dtype = DType::F32, SrcLoc loc = SrcLoc::current());
Tensor zeros_like(const Tensor &x, SrcLoc loc = SrcLoc::current());
Tensor ones_like(const Tensor &x, SrcLoc loc = SrcLoc::current());
/// 0, 1, ..., stop-1 as i32 (jx.iota).
Tensor arange(int64_t stop, SrcLoc loc = SrcLoc::current());
Tensor arange(int64_t start, int64_t stop, int64_t step = 1, SrcLoc loc = SrcLoc::current());

// Slicing (jax.lax names).
/// Static strided slice; empty strides mean 1.
Tensor slice(const Tensor &x, const std::vector<int64_t> &start, const std::vector<int64_t> &limit,
             std::vector<int64_t> strides = {}, SrcLoc loc = SrcLoc::current());
/// x[start:limit:stride] along one axis.
Tensor slice_in_dim(const Tensor &x, int64_t start, int64_t limit, int64_t stride = 1,
                    int64_t axis = 0, SrcLoc loc = SrcLoc::current());
/// x[i] along `axis` (negative i counts from the end); the axis is removed.
Tensor index_in_dim(const Tensor &x, int64_t i, int64_t axis = 0, SrcLoc loc = SrcLoc::current());
/// Slice at run-time start indices (0-d integer tensors), clamped into bounds.
Tensor dynamic_slice(const Tensor &x, const std::vector<Tensor> &starts,
                     const std::vector<int64_t> &sizes, SrcLoc loc = SrcLoc::current());
/// x[i] along `axis` for a run-time index `i`; the axis is removed.
Tensor dynamic_index_in_dim(const Tensor &x, const Tensor &i, int64_t axis = 0,
                            SrcLoc loc = SrcLoc::current());
Tensor dynamic_update_slice(const Tensor &x, const Tensor &update,
                            const std::vector<Tensor> &starts, SrcLoc loc = SrcLoc::current());

// Indexing by integer arrays (NumpyIndexing.cpp): negative indices count from
// the end, out-of-range ones are clamped (XLA's gather, jnp's mode="clip").
/// jnp.take(x, indices, axis, mode="clip"): x's `axis` replaced by the
/// indices' shape (`x[indices]` for axis 0). Its gradient is a scatter-add.
Tensor take(const Tensor &x, const Tensor &indices, int64_t axis = 0,
            SrcLoc loc = SrcLoc::current());
/// jnp.take_along_axis(x, indices, axis, mode="clip"): `indices` has x's
/// rank; out[..., i, ...] = x[..., indices[..., i, ...], ...] along `axis`,
/// the other axes broadcast between x and indices (what optax's
/// softmax_cross_entropy_with_integer_labels gathers with). A jx.take of
/// x's elements by their row-major position, so its gradient is one
/// scatter-add into x's shape.
Tensor take_along_axis(const Tensor &x, const Tensor &indices, int64_t axis,
                       SrcLoc loc = SrcLoc::current());
/// x.at[indices].add(updates) along `axis`: `updates` has x's shape with
/// `axis` replaced by the indices' shape; repeated indices accumulate.
Tensor scatter_add(const Tensor &x, const Tensor &indices, const Tensor &updates,
                   int64_t axis = 0, SrcLoc loc = SrcLoc::current());

} // namespace cotangent::np

#endif // COTANGENT_TRACER_NUMPY_H
