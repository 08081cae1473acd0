//===- MemoryHooks.h - counted allocations of compiled code -----*- C++ -*-===//
//
// The lowering pipeline makes compiled code allocate and free every buffer
// through `_mlir_memref_to_llvm_alloc(bytes)` and `_mlir_memref_to_llvm_free(ptr)`.
// This runtime defines both: a block is 64-byte aligned and counted by one
// process-wide ByteCounter (calls are not reentrant). It also defines the
// batched matmuls jx-matmul-to-blas calls, over oneDNN (OneDnnMatmul.h) and
// OpenBLAS.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_MEMORYHOOKS_H
#define COTANGENT_RUNTIME_CPU_MEMORYHOOKS_H

#include "runtime/host/ByteCounter.h"
#include "runtime/host/StridedMatrix.h"

#include <cstdint>

extern "C" {
void *_mlir_memref_to_llvm_alloc(uint64_t bytes);
void _mlir_memref_to_llvm_free(void *ptr);
/// C = A * B for each batch (rank-3 strided memref descriptors), with BLAS.
void _mlir_ciface_cotangent_batch_matmul_f32(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                             CotangentMemRef3 *c);
void _mlir_ciface_cotangent_batch_matmul_f64(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                             CotangentMemRef3 *c);
/// The same for bf16 (f16) A and B into an f32 C, accumulated in f32.
void _mlir_ciface_cotangent_batch_matmul_bf16(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                              CotangentMemRef3 *c);
void _mlir_ciface_cotangent_batch_matmul_f16(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                             CotangentMemRef3 *c);
}

namespace cotangent::cpu {

/// What the allocation hooks count: the blocks compiled code holds.
host::ByteCounter &allocationCounter();

/// C[b] = A[b] * B[b] in f32 on OpenBLAS (cblas_sgemm per product; loops for
/// layouts BLAS cannot read).
void openBlasBatchMatmulF32(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                            const CotangentMemRef3 &c);

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_MEMORYHOOKS_H
