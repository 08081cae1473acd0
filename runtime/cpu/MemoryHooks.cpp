//===- MemoryHooks.cpp - counted allocations and BLAS entry points --------===//
//
// The functions compiled code calls into: the allocation hooks of
// finalize-memref-to-llvm{use-generic-functions=true}, which count live and
// peak bytes, and the batched matmul that jx-matmul-to-blas emits, which
// calls OpenBLAS's cblas_sgemm / cblas_dgemm once per batch.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/MemoryHooks.h"
#include "runtime/ByteCounter.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace {

cotangent::runtime::ByteCounter &counters() {
  static cotangent::runtime::ByteCounter c;
  return c;
}

} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t bytes) {
  // 64-byte blocks for vector loads; aligned_alloc wants a multiple of 64.
  size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  void *ptr = std::aligned_alloc(64, rounded);
  counters().allocated(ptr, static_cast<int64_t>(bytes));
  return ptr;
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  counters().freed(ptr);
  std::free(ptr);
}

int64_t cotangent::cpu::liveBytes() { return counters().live(); }

int64_t cotangent::cpu::peakBytes() { return counters().peak(); }

void cotangent::cpu::resetPeak() { counters().resetPeak(); }

int64_t cotangent::cpu::blockSize(void *ptr) { return counters().sizeOf(ptr); }

/// A rank-3 strided memref descriptor, as the C interface passes it.
struct CotangentMemRef3 {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
};

namespace {

/// How BLAS should read a (rows x cols) matrix with the given strides:
/// row-major (cols contiguous), transposed (rows contiguous), or neither.
struct MatrixView {
  bool ok = false;
  bool transposed = false;
  int64_t ld = 0;
};

MatrixView view(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride) {
  if (colStride == 1 && (rowStride >= std::max<int64_t>(cols, 1) || rows == 1))
    return {true, false, std::max<int64_t>({rowStride, cols, 1})};
  if (rowStride == 1 && (colStride >= std::max<int64_t>(rows, 1) || cols == 1))
    return {true, true, std::max<int64_t>({colStride, rows, 1})};
  return {};
}

template <typename T, typename Gemm>
void batchMatmul(CotangentMemRef3 *a, CotangentMemRef3 *b, CotangentMemRef3 *c, Gemm gemm) {
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2], k = a->sizes[2];
  T *pa = static_cast<T *>(a->aligned) + a->offset;
  T *pb = static_cast<T *>(b->aligned) + b->offset;
  T *pc = static_cast<T *>(c->aligned) + c->offset;
  MatrixView va = view(m, k, a->strides[1], a->strides[2]);
  MatrixView vb = view(k, n, b->strides[1], b->strides[2]);
  MatrixView vc = view(m, n, c->strides[1], c->strides[2]);
  for (int64_t i = 0; i < batch; ++i) {
    T *ai = pa + i * a->strides[0], *bi = pb + i * b->strides[0], *ci = pc + i * c->strides[0];
    if (va.ok && vb.ok && vc.ok && !vc.transposed && k > 0) {
      gemm(CblasRowMajor, va.transposed ? CblasTrans : CblasNoTrans,
           vb.transposed ? CblasTrans : CblasNoTrans, m, n, k, T(1), ai, va.ld, bi, vb.ld, T(0),
           ci, vc.ld);
      continue;
    }
    // Layouts BLAS cannot read: plain loops.
    for (int64_t r = 0; r < m; ++r)
      for (int64_t col = 0; col < n; ++col) {
        T acc = 0;
        for (int64_t x = 0; x < k; ++x)
          acc += ai[r * a->strides[1] + x * a->strides[2]] * bi[x * b->strides[1] + col * b->strides[2]];
        ci[r * c->strides[1] + col * c->strides[2]] = acc;
      }
  }
}

} // namespace

extern "C" void _mlir_ciface_cotangent_batch_matmul_f32(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                        CotangentMemRef3 *c) {
  batchMatmul<float>(a, b, c,
                     [](auto order, auto ta, auto tb, int64_t m, int64_t n, int64_t k, float alpha,
                        const float *pa, int64_t lda, const float *pb, int64_t ldb, float beta,
                        float *pc, int64_t ldc) {
                       cblas_sgemm(order, ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc);
                     });
}

extern "C" void _mlir_ciface_cotangent_batch_matmul_f64(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                        CotangentMemRef3 *c) {
  batchMatmul<double>(a, b, c,
                      [](auto order, auto ta, auto tb, int64_t m, int64_t n, int64_t k,
                         double alpha, const double *pa, int64_t lda, const double *pb,
                         int64_t ldb, double beta, double *pc, int64_t ldc) {
                        cblas_dgemm(order, ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc,
                                    ldc);
                      });
}
