//===- MemoryHooks.h - counted allocations of compiled code -----*- C++ -*-===//
//
// The lowering pipeline makes compiled code allocate and free every buffer
// through `_mlir_memref_to_llvm_alloc(bytes)` and `_mlir_memref_to_llvm_free(ptr)`.
// This runtime defines both: a block is 64-byte aligned, and its size is
// remembered (free gets only the pointer) so that live and peak bytes can be
// counted. The counters are process-wide (calls are not reentrant).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_MEMORYHOOKS_H
#define COTANGENT_RUNTIME_CPU_MEMORYHOOKS_H

#include <cstdint>

extern "C" {
void *_mlir_memref_to_llvm_alloc(uint64_t bytes);
void _mlir_memref_to_llvm_free(void *ptr);
/// C = A * B for each batch (rank-3 strided memref descriptors), with BLAS.
struct CotangentMemRef3;
void _mlir_ciface_cotangent_batch_matmul_f32(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                             CotangentMemRef3 *c);
void _mlir_ciface_cotangent_batch_matmul_f64(CotangentMemRef3 *a, CotangentMemRef3 *b,
                                             CotangentMemRef3 *c);
}

namespace cotangent::cpu {

/// Bytes currently allocated by compiled code and not freed.
int64_t liveBytes();
/// The maximum of liveBytes() since the last resetPeak().
int64_t peakBytes();
/// Starts a new peak measurement at the current live bytes.
void resetPeak();
/// The size of the block at `ptr` allocated by the hook, or -1.
int64_t blockSize(void *ptr);

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_MEMORYHOOKS_H
