//===- Attention.h - fused attention on the CPU, forward and backward -*- C++ -*-===//
//
// The kernels behind jx.dot_product_attention and its gradient on the CPU:
// FlashAttention-2's schedule in f32. Scores are computed a tile of 64
// queries by 64 keys at a time, with an online softmax in the forward and
// the probabilities recomputed from the forward's log-sum-exp in the
// backward, so that no [queries, keys] matrix is ever stored: each thread
// holds a few tiles (and, in the backward, one head's queries and their
// gradient), allocated with plain new, not through the allocation hooks
// whose counts are the compiled program's.
//
// Layout is jax.nn.dot_product_attention's BTNH: element (b, t, n, h) of a
// [B, T, N, H] memref at aligned + offset + b*s0 + t*s1 + n*s2 + h*s3, any
// strides. With `causal`, query i sees keys j <= i (JAX's top-left aligned
// tril(ones(Tq, Tk))), so every query sees key 0.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_ATTENTION_H
#define COTANGENT_RUNTIME_CPU_ATTENTION_H

#include "runtime/host/StridedMatrix.h"

#include <cstdint>

extern "C" {
/// A rank-4 strided memref descriptor, as the C interface passes it.
struct CotangentMemRef4 {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
};

/// out = softmax(scale * q k^T [+ causal mask]) v per (batch, head), and the
/// log-sum-exp of each query's scaled scores (the backward's residual).
/// q, out: [B, Tq, N, H]; k, v: [B, Tk, N, H]; lse: [B, N, Tq]; all f32.
void _mlir_ciface_cotangent_attention_fwd_f32(CotangentMemRef4 *q, CotangentMemRef4 *k,
                                              CotangentMemRef4 *v, CotangentMemRef4 *out,
                                              CotangentMemRef3 *lse, int64_t causal, float scale);

/// dq, dk, dv (overwritten) from the forward's q, k, v, out, lse and out's
/// cotangent dout (out's shape), with the forward's causal and scale.
void _mlir_ciface_cotangent_attention_bwd_f32(CotangentMemRef4 *q, CotangentMemRef4 *k,
                                              CotangentMemRef4 *v, CotangentMemRef4 *out,
                                              CotangentMemRef3 *lse, CotangentMemRef4 *dout,
                                              CotangentMemRef4 *dq, CotangentMemRef4 *dk,
                                              CotangentMemRef4 *dv, int64_t causal, float scale);
}

#endif // COTANGENT_RUNTIME_CPU_ATTENTION_H
