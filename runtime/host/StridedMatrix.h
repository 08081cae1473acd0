//===- StridedMatrix.h - batched matmul operands as a BLAS reads them -*- C++ -*-===//
//
// jx-matmul-to-blas turns each f32/f64 dot_general into a call
// `_mlir_ciface_cotangent_batch_matmul_<type>(A, B, C)` on rank-3 strided
// memrefs (C[b] = A[b] * B[b]). The CPU runtime answers it with OpenBLAS,
// the CUDA runtime with cuBLAS; both read the operands the same way, here:
// the C interface's descriptor, the problem's sizes, and how each matrix is
// laid out (rows or columns contiguous, and the leading dimension).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_STRIDEDMATRIX_H
#define COTANGENT_RUNTIME_HOST_STRIDEDMATRIX_H

#include <cstdint>

extern "C" {
/// A rank-3 strided memref descriptor, as the C interface passes it.
struct CotangentMemRef3 {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
};
}

namespace cotangent::host {

/// How a BLAS can read a (rows x cols) matrix with the given element
/// strides: each row's elements adjacent (row-major) or each column's
/// (column-major), consecutive rows (columns) `ld` elements apart; `ok` is
/// false when neither holds.
struct MatrixLayout {
  bool ok = false;
  bool columnMajor = false;
  int64_t ld = 0;
};

/// The layout of a (rows x cols) matrix. A dimension of size 1 is never
/// stepped over, so its stride does not matter; a zero stride (a broadcast)
/// along a dimension of several elements has no BLAS layout.
MatrixLayout matrixLayout(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride);

/// C[b] = A[b] * B[b] over `batch` (m x k) * (k x n) products, and the
/// layout of each operand's matrices.
struct BatchMatmulShape {
  int64_t batch, m, n, k;
  MatrixLayout a, b, c;

  BatchMatmulShape(const CotangentMemRef3 &lhs, const CotangentMemRef3 &rhs,
                   const CotangentMemRef3 &out);
  /// True when a BLAS gemm can compute every product in place: all three
  /// matrices have a layout and C's rows are contiguous.
  bool blasCompatible() const { return a.ok && b.ok && c.ok && !c.columnMajor; }
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_STRIDEDMATRIX_H
