//===- FakeCublas.cpp - a cuBLAS double for machines without a GPU --------===//
//
// Built as cuBLAS's soname beside the fake driver. A strided batched GEMM
// computes nothing (kernels do not run either); it checks that every
// matrix it would read or write lies in a live block, and runs in the
// stream order of the stream it was given, like a launch.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cublas_v2.h>

#include <cstdio>

struct cublasContext {
  cudaStream_t stream = nullptr;
};

namespace {

/// Bytes a column-major rows x cols matrix with leading dimension ld spans,
/// times `batch` at `stride` elements apart.
size_t span(int rows, int cols, int ld, long long stride, int batch, size_t element) {
  if (rows <= 0 || cols <= 0 || batch <= 0)
    return 0;
  return (static_cast<size_t>(cols - 1) * ld + rows + static_cast<size_t>(batch - 1) * stride) *
         element;
}

/// A GEMM's checks: operands of `in` bytes an element, the product of `out`.
cublasStatus_t check(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
                     int n, int k, const void *a, int lda, long long strideA, const void *b,
                     int ldb, long long strideB, const void *c, int ldc, long long strideC,
                     int batch, size_t in, size_t out) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  bool ok = fakeCudaIsLive(a, span(ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, lda,
                                   strideA, batch, in)) &&
            fakeCudaIsLive(b, span(tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, ldb,
                                   strideB, batch, in)) &&
            fakeCudaIsLive(c, span(m, n, ldc, strideC, batch, out));
  if (!ok) {
    std::fprintf(stderr, "fake cuBLAS: a GEMM operand lies outside every live block\n");
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  fakeCudaEnqueue(reinterpret_cast<CUstream>(handle->stream), [](void *) {}, nullptr);
  return CUBLAS_STATUS_SUCCESS;
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) { return CUBLAS_STATUS_SUCCESS; }

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *, const float *a, int lda,
                                         long long strideA, const float *b, int ldb,
                                         long long strideB, const float *, float *c, int ldc,
                                         long long strideC, int batch) {
  return check(handle, ta, tb, m, n, k, a, lda, strideA, b, ldb, strideB, c, ldc, strideC, batch,
               sizeof(float), sizeof(float));
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const double *, const double *a, int lda,
                                         long long strideA, const double *b, int ldb,
                                         long long strideB, const double *, double *c, int ldc,
                                         long long strideC, int batch) {
  return check(handle, ta, tb, m, n, k, a, lda, strideA, b, ldb, strideB, c, ldc, strideC, batch,
               sizeof(double), sizeof(double));
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *, const void *a, cudaDataType typeA,
                                          int lda, long long strideA, const void *b,
                                          cudaDataType typeB, int ldb, long long strideB,
                                          const void *, void *c, cudaDataType typeC, int ldc,
                                          long long strideC, int batch, cublasComputeType_t,
                                          cublasGemmAlgo_t) {
  auto bytes = [](cudaDataType t) -> size_t {
    return t == CUDA_R_16BF || t == CUDA_R_16F ? 2 : t == CUDA_R_32F ? 4 : 8;
  };
  if (typeA != typeB) {
    std::fprintf(stderr, "fake cuBLAS: GemmEx with operands of two types\n");
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  return check(handle, ta, tb, m, n, k, a, lda, strideA, b, ldb, strideB, c, ldc, strideC, batch,
               bytes(typeA), bytes(typeC));
}

} // extern "C"
