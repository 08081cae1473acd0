//===- StridedMatrix.cpp - layouts of strided matrices for a BLAS ---------===//
//
// A BLAS takes a matrix as a pointer, a leading dimension and a transpose
// flag: row-major storage needs the elements of a row adjacent and rows at
// least a row's length apart; column-major the same for columns. The CPU's
// OpenBLAS call maps column-major to CblasTrans; the CUDA runtime's cuBLAS
// call (column-major C^T = B^T A^T) maps row-major to CUBLAS_OP_N.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/StridedMatrix.h"

#include <algorithm>

namespace cotangent::host {

MatrixLayout matrixLayout(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride) {
  // A size-1 dimension is never stepped over: any stride will do for it.
  bool rowsAdjacent = colStride == 1 || cols == 1;
  bool colsAdjacent = rowStride == 1 || rows == 1;
  if (rowsAdjacent && (rows == 1 || rowStride >= cols))
    return {true, false, std::max<int64_t>({rowStride, cols, 1})};
  if (colsAdjacent && (cols == 1 || colStride >= rows))
    return {true, true, std::max<int64_t>({colStride, rows, 1})};
  return {};
}

BatchMatmulShape::BatchMatmulShape(const CotangentMemRef3 &lhs, const CotangentMemRef3 &rhs,
                                   const CotangentMemRef3 &out)
    : batch(out.sizes[0]), m(out.sizes[1]), n(out.sizes[2]), k(lhs.sizes[2]),
      a(matrixLayout(m, k, lhs.strides[1], lhs.strides[2])),
      b(matrixLayout(k, n, rhs.strides[1], rhs.strides[2])),
      c(matrixLayout(m, n, out.strides[1], out.strides[2])) {}

} // namespace cotangent::host
