//===- Attention.cpp - fused attention on the CPU, forward and backward ---===//
//
// Each thread packs what it works on into contiguous buffers of its own (a
// query tile, or a head's K^T and V in the forward; a head's Q and dO, and a
// key tile's K, K^T and V^T in the backward) and multiplies tiles with one
// kernel, C += A * B (gemmAccumulate): B and C row-major with a width that
// is a multiple of 16 floats (packing pads with zeros), A read one element
// at a time in either orientation, so that the backward's P^T dO and dS^T Q
// read the score tile transposed where it lies. K and V are packed
// transposed (H x keys) where they are B of a product over H, so that a
// score row is a sum of rows of K^T, each scaled by one element of q.
//
// The runtime is built for baseline x86-64, and the same binary runs on
// AVX2 and AVX-512 machines: the tile functions are compiled for x86-64-v4,
// v3 and the baseline, and the loader picks one per function (GCC's function
// multiversioning: target_clones, and for the product one overload per
// target, each with its own register blocking).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Attention.h"
#include "runtime/cpu/Threads.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define COTANGENT_MULTIVERSIONED 1
#define COTANGENT_TILE_KERNEL                                                                      \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define COTANGENT_MULTIVERSIONED 0
#define COTANGENT_TILE_KERNEL
#endif

namespace {

/// Columns of C one register block covers; every packed row's width is a
/// multiple of it.
constexpr int64_t kLanes = 16;
/// Queries and keys per tile: a 64 x 64 score tile and 64-row Q, K, V tiles
/// of H = 64 take 16 KiB each, so a tile step's operands stay in L1/L2.
constexpr int64_t kQueryTile = 64, kKeyTile = 64;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Vectors of 16, 8 and 4 floats: one AVX-512, AVX2 or SSE register. A
// vector wider than the target's registers is lowered through memory, so
// each version of the products below uses its own.
typedef float Vec16 __attribute__((vector_size(64)));
typedef float Vec8 __attribute__((vector_size(32)));
typedef float Vec4 __attribute__((vector_size(16)));

int64_t padded(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

//===----------------------------------------------------------------------===//
// Tile kernels
//===----------------------------------------------------------------------===//

/// C[Rows x n] += A[Rows x k] * B[k x n], n a multiple of kLanes: for each
/// kLanes columns, Rows x kLanes accumulators stay in registers (vectors of
/// type V) over all of k, each element of A broadcast against a row of B.
template <typename V, int Rows>
[[gnu::always_inline]] inline void gemmRows(int64_t n, int64_t k, const float *__restrict a,
                                            int64_t ars, int64_t acs, const float *__restrict b,
                                            int64_t ldb, float *__restrict c, int64_t ldc) {
  constexpr int kWidth = sizeof(V) / sizeof(float), kPer = kLanes / kWidth; // vectors per row
  // One vector per memcpy: GCC keeps them in registers, not whole arrays.
  for (int64_t j = 0; j < n; j += kLanes) {
    V acc[Rows][kPer];
    for (int r = 0; r < Rows; ++r)
      for (int v = 0; v < kPer; ++v)
        std::memcpy(&acc[r][v], c + r * ldc + j + v * kWidth, sizeof(V));
    for (int64_t p = 0; p < k; ++p) {
      V bp[kPer];
      for (int v = 0; v < kPer; ++v)
        std::memcpy(&bp[v], b + p * ldb + j + v * kWidth, sizeof(V));
      for (int r = 0; r < Rows; ++r) {
        const float x = a[r * ars + p * acs];
        for (int v = 0; v < kPer; ++v)
          acc[r][v] += x * bp[v];
      }
    }
    for (int r = 0; r < Rows; ++r)
      for (int v = 0; v < kPer; ++v)
        std::memcpy(c + r * ldc + j + v * kWidth, &acc[r][v], sizeof(V));
  }
}

/// C[m x n] += A[m x k] * B[k x n] in blocks of Rows rows, the remainder in
/// one smaller block.
template <typename V, int Rows>
[[gnu::always_inline]] inline void gemmBlocks(int64_t m, int64_t n, int64_t k,
                                              const float *__restrict a, int64_t ars,
                                              int64_t acs, const float *__restrict b,
                                              int64_t ldb, float *__restrict c, int64_t ldc) {
  int64_t i = 0;
  for (; i + Rows <= m; i += Rows)
    gemmRows<V, Rows>(n, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc);
  if constexpr (Rows > 1)
    if (i < m)
      gemmBlocks<V, Rows - 1>(m - i, n, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc);
}

// C[m x n] += A[m x k] * B[k x n]. A's element (i, p) is a[i*ars + p*acs];
// B and C are row-major (row strides ldb, ldc), n is a multiple of kLanes.
// Register blocks: AVX-512 8 x 1 zmm of its 32 (a 64-row tile in 8 blocks;
// 8 was fastest of 4 to 12), AVX2 6 x 2 ymm of its 16, SSE 2 x 4 xmm of 16.
#if COTANGENT_MULTIVERSIONED
__attribute__((target("arch=x86-64-v4"))) void
gemmAccumulate(int64_t m, int64_t n, int64_t k, const float *__restrict a, int64_t ars,
               int64_t acs, const float *__restrict b, int64_t ldb, float *__restrict c,
               int64_t ldc) {
  gemmBlocks<Vec16, 8>(m, n, k, a, ars, acs, b, ldb, c, ldc);
}
__attribute__((target("arch=x86-64-v3"))) void
gemmAccumulate(int64_t m, int64_t n, int64_t k, const float *__restrict a, int64_t ars,
               int64_t acs, const float *__restrict b, int64_t ldb, float *__restrict c,
               int64_t ldc) {
  gemmBlocks<Vec8, 6>(m, n, k, a, ars, acs, b, ldb, c, ldc);
}
__attribute__((target("default"))) void
gemmAccumulate(int64_t m, int64_t n, int64_t k, const float *__restrict a, int64_t ars,
               int64_t acs, const float *__restrict b, int64_t ldb, float *__restrict c,
               int64_t ldc) {
  gemmBlocks<Vec4, 2>(m, n, k, a, ars, acs, b, ldb, c, ldc);
}
#else
void gemmAccumulate(int64_t m, int64_t n, int64_t k, const float *__restrict a, int64_t ars,
                    int64_t acs, const float *__restrict b, int64_t ldb, float *__restrict c,
                    int64_t ldc) {
  gemmBlocks<Vec4, 4>(m, n, k, a, ars, acs, b, ldb, c, ldc);
}
#endif

/// e^x for x <= 88, 0 for x < -87 (e^-87 < 2e-38: nothing next to a softmax
/// row's largest term, 1), and within 1e-7 relative elsewhere (8.2e-8 at
/// worst over every float in [-87, 88]): x = k ln2 + r with
/// |r| <= ln2/2 (ln2 split in two so that k*ln2hi is exact), e^r by a
/// degree-5 minimax polynomial, 2^k built in the exponent bits. No branches
/// or calls, so that loops over it vectorize.
[[gnu::always_inline]] inline float expBounded(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f; // 1.5 * 2^23: adding it rounds to an integer
  const float xc = std::min(std::max(x, -87.0f), 88.0f);
  const float kf = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - kf * kLn2Hi) - kf * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const float twoToK = std::bit_cast<float>((static_cast<int32_t>(kf) + 127) << 23);
  return x < -87.0f ? 0.0f : p * twoToK;
}

/// The keys query r of a tile sees among the tile's first `keys`: all of
/// them, or with `causal` those at or before it; `diagonal` is the tile's
/// first query index minus its first key index.
[[gnu::always_inline]] inline int64_t visibleKeys(int64_t r, int64_t keys, int64_t diagonal,
                                                  bool causal) {
  return causal ? std::clamp<int64_t>(diagonal + r + 1, 0, keys) : keys;
}

/// One key tile of the forward's online softmax, for `rows` queries: `s`
/// holds their scores (row stride `width`, the first `keys` columns real).
/// Makes s the tile's unnormalized probabilities e^(s - m') under each row's
/// new running max m' (0 where masked), and rescales that row's running sum
/// `l` and output accumulator row (`acc`, `accWidth` floats) by e^(m - m').
/// Every row sees a key in the first tile (key 0), so m' is finite from it on.
COTANGENT_TILE_KERNEL void softmaxTile(int64_t rows, int64_t width, float *__restrict s,
                                       int64_t keys, int64_t diagonal, bool causal,
                                       float *__restrict m, float *__restrict l,
                                       float *__restrict acc, int64_t accWidth) {
  for (int64_t r = 0; r < rows; ++r) {
    float *sr = s + r * width;
    const int64_t visible = visibleKeys(r, keys, diagonal, causal);
    for (int64_t c = visible; c < width; ++c)
      sr[c] = kNegInf;
    // Max and sum in 8 lanes: float reductions do not vectorize without
    // reassociation, and a fixed lane order keeps results reproducible.
    Vec8 lanes = Vec8{} + kNegInf;
    for (int64_t c = 0; c < width; c += 8) {
      Vec8 x;
      std::memcpy(&x, sr + c, sizeof(x));
      lanes = x > lanes ? x : lanes;
    }
    float rowMax = lanes[0];
    for (int i = 1; i < 8; ++i)
      rowMax = std::max(rowMax, lanes[i]);
    const float next = std::max(m[r], rowMax);
    const float alpha = expBounded(m[r] - next); // 0 on the first tile (m = -inf)
    for (int64_t c = 0; c < width; ++c)
      sr[c] = expBounded(sr[c] - next);
    lanes = Vec8{};
    for (int64_t c = 0; c < width; c += 8) {
      Vec8 x;
      std::memcpy(&x, sr + c, sizeof(x));
      lanes += x;
    }
    float rowSum = 0;
    for (int i = 0; i < 8; ++i)
      rowSum += lanes[i];
    l[r] = l[r] * alpha + rowSum;
    m[r] = next;
    float *ar = acc + r * accWidth;
    for (int64_t h = 0; h < accWidth; ++h)
      ar[h] *= alpha;
  }
}

/// The backward's elementwise step on one tile: from the scores `s` and
/// dP = dO V^T in `dp` (row stride `width`), the probabilities
/// P = e^(scale*s - lse) into s (0 where masked or past `keys`) and
/// dS = P (dP - delta) into dp, delta_r = dO_r . O_r.
COTANGENT_TILE_KERNEL void gradientTile(int64_t rows, int64_t width, float *__restrict s,
                                        float *__restrict dp, const float *__restrict lse,
                                        const float *__restrict delta, float scale, int64_t keys,
                                        int64_t diagonal, bool causal) {
  for (int64_t r = 0; r < rows; ++r) {
    float *sr = s + r * width, *dr = dp + r * width;
    const int64_t visible = visibleKeys(r, keys, diagonal, causal);
    const float lr = lse[r], deltaR = delta[r];
    for (int64_t c = 0; c < width; ++c) {
      const float p = c < visible ? expBounded(scale * sr[c] - lr) : 0.0f;
      sr[c] = p;
      dr[c] = p * (dr[c] - deltaR);
    }
  }
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

/// A [B, T, N, H] f32 memref.
struct Tensor4 {
  float *data;
  const int64_t *size, *stride;

  explicit Tensor4(const CotangentMemRef4 &m)
      : data(static_cast<float *>(m.aligned) + m.offset), size(m.sizes), stride(m.strides) {}
  /// Element (b, t, n, 0); h steps by stride[3].
  float *at(int64_t b, int64_t t, int64_t n) const {
    return data + b * stride[0] + t * stride[1] + n * stride[2];
  }
};

/// A [B, N, T] f32 memref: the log-sum-exp.
struct Tensor3 {
  float *data;
  const int64_t *stride;

  explicit Tensor3(const CotangentMemRef3 &m)
      : data(static_cast<float *>(m.aligned) + m.offset), stride(m.strides) {}
  float &at(int64_t b, int64_t n, int64_t t) const {
    return data[b * stride[0] + n * stride[1] + t * stride[2]];
  }
};

/// x[b, t0 + r, n, h] * factor into to[r*width + h] for r < count, h < dim;
/// zeros in the rest of each row (width >= dim).
void packRows(const Tensor4 &x, int64_t b, int64_t n, int64_t t0, int64_t count, int64_t dim,
              float *to, int64_t width, float factor) {
  const int64_t hs = x.stride[3];
  for (int64_t r = 0; r < count; ++r) {
    const float *from = x.at(b, t0 + r, n);
    float *row = to + r * width;
    if (hs == 1)
      for (int64_t h = 0; h < dim; ++h)
        row[h] = factor * from[h];
    else
      for (int64_t h = 0; h < dim; ++h)
        row[h] = factor * from[h * hs];
    std::fill(row + dim, row + width, 0.0f);
  }
}

/// x[b, t0 + c, n, h] into to[h*width + c] (transposed) for c < count,
/// h < dim; zeros in columns count..width. 16 rows of x at a time, so that
/// each write is 16 adjacent floats.
void packColumns(const Tensor4 &x, int64_t b, int64_t n, int64_t t0, int64_t count, int64_t dim,
                 float *to, int64_t width) {
  const int64_t hs = x.stride[3];
  for (int64_t c0 = 0; c0 < count; c0 += kLanes) {
    const int64_t block = std::min(kLanes, count - c0);
    const float *from[kLanes];
    for (int64_t c = 0; c < block; ++c)
      from[c] = x.at(b, t0 + c0 + c, n);
    for (int64_t h = 0; h < dim; ++h)
      for (int64_t c = 0; c < block; ++c)
        to[h * width + c0 + c] = from[c][h * hs];
  }
  for (int64_t h = 0; h < dim; ++h)
    std::fill(to + h * width + count, to + (h + 1) * width, 0.0f);
}

/// from[r*width + h] * factor into x[b, t0 + r, n, h] for r < count, h < dim.
void unpackRows(const float *from, int64_t width, float factor, const Tensor4 &x, int64_t b,
                int64_t n, int64_t t0, int64_t count, int64_t dim) {
  const int64_t hs = x.stride[3];
  for (int64_t r = 0; r < count; ++r) {
    float *to = x.at(b, t0 + r, n);
    for (int64_t h = 0; h < dim; ++h)
      to[h * hs] = factor * from[r * width + h];
  }
}

/// A thread's tile buffer: 64-byte aligned, from malloc (not the counted
/// allocation hooks), uninitialized.
struct FreeFloats {
  void operator()(float *p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], FreeFloats>;

Buffer allocateFloats(int64_t count) {
  const size_t bytes = (static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(float) + 63) /
                       64 * 64;
  void *p = std::aligned_alloc(64, bytes);
  if (!p) {
    // Inside a libomp thread: nothing to unwind to.
    std::fprintf(stderr, "cotangent: attention could not allocate %zu bytes of tiles\n", bytes);
    std::abort();
  }
  return Buffer(static_cast<float *>(p));
}

//===----------------------------------------------------------------------===//
// Forward and backward
//===----------------------------------------------------------------------===//

/// The problem's sizes, from q [B, Tq, N, H] and k [B, Tk, N, H].
struct Sizes {
  int64_t batch, queries, keys, heads, dim;
  int64_t padDim; // dim rounded up to kLanes: the row width of packed tiles

  Sizes(const Tensor4 &q, const Tensor4 &k)
      : batch(q.size[0]), queries(q.size[1]), keys(k.size[1]), heads(q.size[2]),
        dim(q.size[3]), padDim(padded(q.size[3])) {}
};

/// Parallel over (batch, head, query tile): each task streams the key tiles
/// its queries see through the online softmax, then writes its out rows and
/// their log-sum-exp. A thread's tasks are consecutive, so it packs each
/// head's K^T and V once for all the query tiles of that head it runs.
void forward(const Tensor4 &q, const Tensor4 &k, const Tensor4 &v, const Tensor4 &out,
             const Tensor3 &lse, bool causal, float scale) {
  const Sizes z(q, k);
  const int64_t H = z.dim, Hp = z.padDim;
  const int64_t queryTiles = (z.queries + kQueryTile - 1) / kQueryTile;
  // Causal: keys after the last query are never seen.
  const int64_t keysUsed = causal ? std::min(z.keys, z.queries) : z.keys;
  const int64_t keysPad = padded(keysUsed);
  cotangent::cpu::parallelFor(z.batch * z.heads * queryTiles, [&](int64_t begin, int64_t end) {
    Buffer qTile = allocateFloats(kQueryTile * Hp), kT = allocateFloats(H * keysPad),
           vAll = allocateFloats(keysUsed * Hp), s = allocateFloats(kQueryTile * kKeyTile),
           acc = allocateFloats(kQueryTile * Hp), m = allocateFloats(kQueryTile),
           l = allocateFloats(kQueryTile);
    int64_t packedHead = -1; // the (b, n) whose K^T and V kT and vAll hold
    for (int64_t task = begin; task < end; ++task) {
      const int64_t i0 = task % queryTiles * kQueryTile, head = task / queryTiles;
      const int64_t n = head % z.heads, b = head / z.heads;
      const int64_t rows = std::min(kQueryTile, z.queries - i0);
      if (head != packedHead) {
        packColumns(k, b, n, 0, keysUsed, H, kT.get(), keysPad);
        packRows(v, b, n, 0, keysUsed, H, vAll.get(), Hp, 1.0f);
        packedHead = head;
      }
      // q pre-scaled: the scores come out scaled (JAX scales q.k; the two
      // differ by rounding).
      packRows(q, b, n, i0, rows, H, qTile.get(), Hp, scale);
      std::fill_n(acc.get(), rows * Hp, 0.0f);
      std::fill_n(m.get(), rows, kNegInf);
      std::fill_n(l.get(), rows, 0.0f);
      // Causal: no key after the tile's last query.
      const int64_t keyEnd = causal ? std::min(z.keys, i0 + rows) : z.keys;
      for (int64_t j0 = 0; j0 < keyEnd; j0 += kKeyTile) {
        const int64_t cols = std::min(kKeyTile, keyEnd - j0), width = padded(cols);
        std::fill_n(s.get(), rows * width, 0.0f);
        gemmAccumulate(rows, width, H, qTile.get(), Hp, 1, kT.get() + j0, keysPad, s.get(), width);
        softmaxTile(rows, width, s.get(), cols, i0 - j0, causal, m.get(), l.get(), acc.get(), Hp);
        gemmAccumulate(rows, Hp, cols, s.get(), width, 1, vAll.get() + j0 * Hp, Hp, acc.get(),
                       Hp);
      }
      for (int64_t r = 0; r < rows; ++r) {
        float *to = out.at(b, i0 + r, n);
        const float *from = acc.get() + r * Hp, sum = l[r];
        for (int64_t h = 0; h < H; ++h)
          to[h * out.stride[3]] = from[h] / sum;
        lse.at(b, n, i0 + r) = m[r] + std::log(sum);
      }
    }
  });
}

/// Parallel over (batch, head), so that each thread owns its heads' dq rows:
/// one head's q, dout and dq accumulator packed whole; for each key tile,
/// dK and dV accumulated over the query tiles that see it, P recomputed
/// from the log-sum-exp, and dQ accumulated tile by tile.
void backward(const Tensor4 &q, const Tensor4 &k, const Tensor4 &v, const Tensor4 &out,
              const Tensor3 &lse, const Tensor4 &dout, const Tensor4 &dq, const Tensor4 &dk,
              const Tensor4 &dv, bool causal, float scale) {
  const Sizes z(q, k);
  const int64_t H = z.dim, Hp = z.padDim, Tq = z.queries;
  cotangent::cpu::parallelFor(z.batch * z.heads, [&](int64_t begin, int64_t end) {
    Buffer qAll = allocateFloats(Tq * Hp), doAll = allocateFloats(Tq * Hp),
           dqAll = allocateFloats(Tq * Hp), lseAll = allocateFloats(Tq),
           delta = allocateFloats(Tq), kTile = allocateFloats(kKeyTile * Hp),
           kT = allocateFloats(H * kKeyTile), vT = allocateFloats(H * kKeyTile),
           s = allocateFloats(kQueryTile * kKeyTile), dp = allocateFloats(kQueryTile * kKeyTile),
           dkTile = allocateFloats(kKeyTile * Hp), dvTile = allocateFloats(kKeyTile * Hp);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task % z.heads, b = task / z.heads;
      packRows(q, b, n, 0, Tq, H, qAll.get(), Hp, 1.0f);
      packRows(dout, b, n, 0, Tq, H, doAll.get(), Hp, 1.0f);
      for (int64_t i = 0; i < Tq; ++i) {
        const float *o = out.at(b, i, n), *d = doAll.get() + i * Hp;
        float sum = 0;
        for (int64_t h = 0; h < H; ++h)
          sum += d[h] * o[h * out.stride[3]];
        delta[i] = sum;
        lseAll[i] = lse.at(b, n, i);
      }
      std::fill_n(dqAll.get(), Tq * Hp, 0.0f);
      for (int64_t j0 = 0; j0 < z.keys; j0 += kKeyTile) {
        const int64_t cols = std::min(kKeyTile, z.keys - j0), width = padded(cols);
        packRows(k, b, n, j0, cols, H, kTile.get(), Hp, 1.0f);
        packColumns(k, b, n, j0, cols, H, kT.get(), width);
        packColumns(v, b, n, j0, cols, H, vT.get(), width);
        std::fill_n(dkTile.get(), cols * Hp, 0.0f);
        std::fill_n(dvTile.get(), cols * Hp, 0.0f);
        // Causal: query tiles before the one holding query j0 see none of these keys.
        for (int64_t i0 = causal ? j0 / kQueryTile * kQueryTile : 0; i0 < Tq; i0 += kQueryTile) {
          const int64_t rows = std::min(kQueryTile, Tq - i0);
          const float *qi = qAll.get() + i0 * Hp, *doi = doAll.get() + i0 * Hp;
          std::fill_n(s.get(), rows * width, 0.0f);
          std::fill_n(dp.get(), rows * width, 0.0f);
          gemmAccumulate(rows, width, H, qi, Hp, 1, kT.get(), width, s.get(), width);
          gemmAccumulate(rows, width, H, doi, Hp, 1, vT.get(), width, dp.get(), width);
          gradientTile(rows, width, s.get(), dp.get(), lseAll.get() + i0, delta.get() + i0, scale,
                       cols, i0 - j0, causal);
          // dV += P^T dO and dK += dS^T Q (unscaled): the tiles read transposed.
          gemmAccumulate(cols, Hp, rows, s.get(), 1, width, doi, Hp, dvTile.get(), Hp);
          gemmAccumulate(cols, Hp, rows, dp.get(), 1, width, qi, Hp, dkTile.get(), Hp);
          // dQ += dS K (unscaled).
          gemmAccumulate(rows, Hp, cols, dp.get(), width, 1, kTile.get(), Hp,
                         dqAll.get() + i0 * Hp, Hp);
        }
        unpackRows(dvTile.get(), Hp, 1.0f, dv, b, n, j0, cols, H);
        unpackRows(dkTile.get(), Hp, scale, dk, b, n, j0, cols, H);
      }
      unpackRows(dqAll.get(), Hp, scale, dq, b, n, 0, Tq, H);
    }
  });
}

} // namespace

extern "C" void _mlir_ciface_cotangent_attention_fwd_f32(CotangentMemRef4 *q, CotangentMemRef4 *k,
                                                         CotangentMemRef4 *v,
                                                         CotangentMemRef4 *out,
                                                         CotangentMemRef3 *lse, int64_t causal,
                                                         float scale) {
  forward(Tensor4(*q), Tensor4(*k), Tensor4(*v), Tensor4(*out), Tensor3(*lse), causal != 0, scale);
}

extern "C" void _mlir_ciface_cotangent_attention_bwd_f32(
    CotangentMemRef4 *q, CotangentMemRef4 *k, CotangentMemRef4 *v, CotangentMemRef4 *out,
    CotangentMemRef3 *lse, CotangentMemRef4 *dout, CotangentMemRef4 *dq, CotangentMemRef4 *dk,
    CotangentMemRef4 *dv, int64_t causal, float scale) {
  backward(Tensor4(*q), Tensor4(*k), Tensor4(*v), Tensor4(*out), Tensor3(*lse), Tensor4(*dout),
           Tensor4(*dq), Tensor4(*dk), Tensor4(*dv), causal != 0, scale);
}
