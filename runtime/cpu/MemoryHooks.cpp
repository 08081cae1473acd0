//===- MemoryHooks.cpp - counted allocations and BLAS entry points --------===//
//
// The functions compiled code calls into: the allocation hooks of
// finalize-memref-to-llvm{use-generic-functions=true}, which count live and
// peak bytes and reuse freed blocks (BlockCache.h), and the batched matmul
// that jx-matmul-to-blas emits: f32 on oneDNN where it takes the layout
// (OneDnnMatmul.h), else OpenBLAS's cblas_sgemm / cblas_dgemm once per batch
// where the operands have a BLAS layout (runtime/host/StridedMatrix.h), and
// plain loops where they do not. bf16 operands into an f32 product run on
// oneDNN's bf16 kernels where it takes them; bf16 elsewhere and f16 are
// widened to f32 (exactly) and take the f32 path.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/MemoryHooks.h"
#include "runtime/cpu/BlockCache.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/host/AllocationFailure.h"
#include "runtime/host/HalfFloat.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

cotangent::host::ByteCounter &cotangent::cpu::allocationCounter() {
  static host::ByteCounter counter;
  return counter;
}

extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t bytes) {
  void *ptr = cotangent::cpu::blockCache().allocate(bytes);
  if (!ptr)
    cotangent::host::allocationFailed(bytes); // compiled code would write through null
  cotangent::cpu::allocationCounter().allocated(ptr, static_cast<int64_t>(bytes));
  return ptr;
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  int64_t bytes = cotangent::cpu::allocationCounter().sizeOf(ptr);
  if (bytes < 0) {
    std::free(ptr); // not one of ours: a block the caller handed in
    return;
  }
  cotangent::cpu::allocationCounter().freed(ptr);
  cotangent::cpu::blockCache().deallocate(ptr, static_cast<size_t>(bytes));
}

namespace {

template <typename T, typename Gemm>
void batchMatmul(const CotangentMemRef3 *a, const CotangentMemRef3 *b, const CotangentMemRef3 *c,
                 Gemm gemm) {
  cotangent::host::BatchMatmulShape s(*a, *b, *c);
  T *pa = static_cast<T *>(a->aligned) + a->offset;
  T *pb = static_cast<T *>(b->aligned) + b->offset;
  T *pc = static_cast<T *>(c->aligned) + c->offset;
  for (int64_t i = 0; i < s.batch; ++i) {
    T *ai = pa + i * a->strides[0], *bi = pb + i * b->strides[0], *ci = pc + i * c->strides[0];
    if (s.blasCompatible() && s.k > 0) {
      gemm(CblasRowMajor, s.a.columnMajor ? CblasTrans : CblasNoTrans,
           s.b.columnMajor ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, T(1), ai, s.a.ld, bi,
           s.b.ld, T(0), ci, s.c.ld);
      continue;
    }
    // Layouts BLAS cannot read: plain loops.
    for (int64_t r = 0; r < s.m; ++r)
      for (int64_t col = 0; col < s.n; ++col) {
        T acc = 0;
        for (int64_t x = 0; x < s.k; ++x)
          acc += ai[r * a->strides[1] + x * a->strides[2]] * bi[x * b->strides[1] + col * b->strides[2]];
        ci[r * c->strides[1] + col * c->strides[2]] = acc;
      }
  }
}

} // namespace

void cotangent::cpu::openBlasBatchMatmulF32(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                                            const CotangentMemRef3 &c) {
  batchMatmul<float>(&a, &b, &c,
                     [](auto order, auto ta, auto tb, int64_t m, int64_t n, int64_t k, float alpha,
                        const float *pa, int64_t lda, const float *pb, int64_t ldb, float beta,
                        float *pc, int64_t ldc) {
                       cblas_sgemm(order, ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, ldc);
                     });
}

extern "C" void _mlir_ciface_cotangent_batch_matmul_f32(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                        CotangentMemRef3 *c) {
  cotangent::cpu::batchMatmulF32(*a, *b, *c);
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

namespace {

/// `m`'s elements widened (exactly) into a contiguous f32 copy in `into`,
/// and its descriptor.
CotangentMemRef3 widened(const CotangentMemRef3 &m, std::vector<float> &into,
                         float (*widen)(uint16_t)) {
  const int64_t b = m.sizes[0], r = m.sizes[1], c = m.sizes[2];
  into.resize(static_cast<size_t>(b * r * c));
  const uint16_t *from = static_cast<const uint16_t *>(m.aligned) + m.offset;
  float *to = into.data();
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < r; ++j)
      for (int64_t k = 0; k < c; ++k)
        *to++ = widen(from[i * m.strides[0] + j * m.strides[1] + k * m.strides[2]]);
  return CotangentMemRef3{into.data(), into.data(), 0, {b, r, c}, {r * c, c, 1}};
}

/// bf16 or f16 operands into an f32 product where no low-float kernel takes
/// them: the operands widened to f32, then the f32 product (the same
/// numbers: the widening is exact and the product accumulates in f32).
void widenedBatchMatmul(CotangentMemRef3 *a, CotangentMemRef3 *b, CotangentMemRef3 *c,
                        float (*widen)(uint16_t)) {
  std::vector<float> wa, wb;
  CotangentMemRef3 fa = widened(*a, wa, widen), fb = widened(*b, wb, widen);
  _mlir_ciface_cotangent_batch_matmul_f32(&fa, &fb, c);
}

} // namespace

extern "C" void _mlir_ciface_cotangent_batch_matmul_bf16(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                         CotangentMemRef3 *c) {
  if (!cotangent::cpu::oneDnnBatchMatmulBf16(*a, *b, *c))
    widenedBatchMatmul(a, b, c, cotangent::host::bf16ToFloat);
}

extern "C" void _mlir_ciface_cotangent_batch_matmul_f16(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                        CotangentMemRef3 *c) {
  widenedBatchMatmul(a, b, c, cotangent::host::f16ToFloat);
}
