//===- MemoryHooks.cpp - counted allocations and BLAS entry points --------===//
//
// The functions compiled code calls into: the allocation hooks of
// finalize-memref-to-llvm{use-generic-functions=true}, which count live and
// peak bytes and reuse freed blocks (BlockCache.h), and the batched matmul
// that jx-matmul-to-blas emits: f32 on oneDNN where it takes the layout
// (OneDnnMatmul.h), else OpenBLAS's cblas_sgemm / cblas_dgemm once per batch
// where the operands have a BLAS layout (runtime/host/StridedMatrix.h), and
// plain loops where they do not.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/MemoryHooks.h"
#include "runtime/cpu/BlockCache.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/host/AllocationFailure.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>

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
void batchMatmul(CotangentMemRef3 *a, CotangentMemRef3 *b, CotangentMemRef3 *c, Gemm gemm) {
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

extern "C" void _mlir_ciface_cotangent_batch_matmul_f32(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                                        CotangentMemRef3 *c) {
  if (cotangent::cpu::oneDnnBatchMatmulF32(*a, *b, *c))
    return;
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
