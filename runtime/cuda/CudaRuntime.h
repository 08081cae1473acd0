/*===- CudaRuntime.h - the CUDA runtime's C API -------------------*- C -*-===//
//
// What code compiled by --jx-to-nvvm (and its host) calls on an NVIDIA GPU.
// The CUDA driver (libcuda.so.1) and cuBLAS are loaded with dlopen on first
// use, so programs linking this runtime start on machines without a GPU;
// there every entry fails cleanly: cotangent_cuda_init() returns nonzero and
// cotangent_cuda_last_error() says "no CUDA device: ...".
//
// Memory: every buffer of compiled code is device memory from the device's
// stream-ordered pool, allocated through cotangent_cuda_alloc, which counts
// live and peak bytes. Kernels, cuBLAS calls, allocations and frees run in
// order on one compute stream without the host waiting; the host reads
// device memory only through the copies below, which wait. Offloaded
// residuals live in pinned host memory and move on a second stream, ordered
// against the compute stream by events.
//
// The mgpu* entry points have the shape of MLIR's GPU runtime wrappers (what
// gpu-to-llvm and the gpu.binary translation call); the JIT binds
// `mgpuX` to `cotangent_mgpuX`.
//
//===----------------------------------------------------------------------===*/

#ifndef COTANGENT_RUNTIME_CUDA_CUDARUNTIME_H
#define COTANGENT_RUNTIME_CUDA_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device and errors. */
/** Loads the driver, picks a device (COTANGENT_CUDA_DEVICE, else the process's
 *  rank on this machine under an MPI launcher, else 0; modulo the device
 *  count) and makes its primary context current.
 *  Returns 0 on success; otherwise see cotangent_cuda_last_error(). */
int cotangent_cuda_init(void);
/** The last error of any entry ("" when none); cleared by
 *  cotangent_cuda_clear_error(). */
const char *cotangent_cuda_last_error(void);
void cotangent_cuda_clear_error(void);
/** Records `message` as the last error if none is (for what runs beside the
 *  driver's own entries: the NCCL collectives). */
void cotangent_cuda_report_error(const char *message);
/** Devices visible to the driver (0 when the driver is missing). */
int cotangent_cuda_device_count(void);
/** The compute capability of the current device as 10 * major + minor, or -1. */
int cotangent_cuda_compute_capability(void);
/** The streaming multiprocessors of the current device, or 0 without one:
 *  compiled host code sizes the grid of a reduction over many elements by
 *  it (one wave of blocks fills the device). */
int64_t cotangent_cuda_multiprocessors(void);
/** Waits for all work on the device. */
int cotangent_cuda_synchronize(void);
/** Lets cuBLAS use TF32 tensor cores for f32 matmuls (default: off, or the
 *  environment's COTANGENT_CUDA_TF32=1). */
void cotangent_cuda_set_tf32(int enabled);

/* Counted device allocations (stream-ordered, on the compute stream). */
void *cotangent_cuda_alloc(uint64_t bytes);
void cotangent_cuda_free(void *ptr);
/** The requested size of a block from cotangent_cuda_alloc, or -1. */
int64_t cotangent_cuda_block_size(void *ptr);
int64_t cotangent_cuda_live_bytes(void);
int64_t cotangent_cuda_peak_bytes(void);
/** Starts a new peak measurement at the current live bytes. */
void cotangent_cuda_reset_peak(void);

/* Arrays kept on the device between calls (jit's Target::Cuda results,
 * device_put): blocks of the same pool, stream-ordered, not counted (like a
 * host array on the CPU, they are the caller's, not a call's). */
void *cotangent_cuda_array_alloc(uint64_t bytes);
void cotangent_cuda_array_free(void *ptr);

/* Host <-> device. Each returns 0 on success. */
/** Copies host memory to the device; `src` may be reused when it returns. */
int cotangent_cuda_copy_to_device(void *dst, const void *src, uint64_t bytes);
/** Waits for the compute stream, then copies device memory to the host. */
int cotangent_cuda_copy_to_host(void *dst, const void *src, uint64_t bytes);
/** What compiled host code calls to read one scalar of device memory (a
 *  branch's predicate): `bytes` (<= 8) at `address`, zero-extended. */
uint64_t cotangent_cuda_read_scalar(uint64_t address, uint64_t bytes);
/** The device copy of a constant global of compiled host code: `bytes` at
 *  `host`, uploaded on first use and kept (not counted: constants are not
 *  allocations, as on the CPU). */
void *cotangent_cuda_device_global(const void *host, uint64_t bytes);

/* CUDA graphs: a step recorded once on the compute stream and replayed
 * without running any host code. Between begin and end, compiled code and
 * the calls below are recorded instead of run (allocations and frees become
 * graph nodes; nothing may wait for the device). The blocks the recording
 * allocated and did not free (its results) are allocated by each launch, at
 * the same addresses, and counted then: free them (cotangent_cuda_free)
 * before the next launch. */
int cotangent_cuda_capture_begin(void);
/** The instantiated graph, or null (see cotangent_cuda_last_error()). */
void *cotangent_cuda_capture_end(void);
int cotangent_cuda_graph_launch(void *graph);
void cotangent_cuda_graph_destroy(void *graph);

/* Offload to pinned host memory. A freed block is kept for the next
 * allocation of its size (pinning pages takes milliseconds; compiled code
 * allocates its offloaded residuals' copies at every step); a block a
 * recorded step allocated or freed is kept for that graph until it is
 * destroyed. cotangent_cuda_free() of a pinned block frees it here. */
void *cotangent_cuda_host_alloc(uint64_t bytes);
void cotangent_cuda_host_free(void *ptr);
/** Nonzero if `ptr` is a live block of cotangent_cuda_host_alloc. */
int cotangent_cuda_is_pinned(const void *ptr);
/** Pinned host bytes currently allocated. */
int64_t cotangent_cuda_host_bytes(void);
/** Copies a device block to pinned memory on the offload stream, after the
 *  compute stream's work so far; the compute stream's later work (a free of
 *  the block) waits for the copy. Nothing copies it back: the backward takes
 *  the pinned buffer and copies it in where it needs it
 *  (jx-gpu-reload-residuals). */
int cotangent_cuda_offload(void *pinnedDst, const void *deviceSrc, uint64_t bytes);

/* cuBLAS: C[b] = A[b] * B[b] for rank-3 strided memref descriptors (the
 * C interface of jx-matmul-to-blas's calls; runtime/host/StridedMatrix.h
 * defines the struct). */
struct CotangentMemRef3;
void cotangent_cuda_batch_matmul_f32(struct CotangentMemRef3 *a, struct CotangentMemRef3 *b,
                                     struct CotangentMemRef3 *c);
void cotangent_cuda_batch_matmul_f64(struct CotangentMemRef3 *a, struct CotangentMemRef3 *b,
                                     struct CotangentMemRef3 *c);
/* bf16 / f16 operands into an f32 product, accumulated in f32 (GemmEx). */
void cotangent_cuda_batch_matmul_bf16(struct CotangentMemRef3 *a, struct CotangentMemRef3 *b,
                                      struct CotangentMemRef3 *c);
void cotangent_cuda_batch_matmul_f16(struct CotangentMemRef3 *a, struct CotangentMemRef3 *b,
                                     struct CotangentMemRef3 *c);

/* Compiled collectives (runtime/comm/Collectives.h's two entries, bound for
 * the GPU): NCCL on a communication stream ordered against the compute
 * stream by events, so that neither the host nor the compute stream waits
 * until the result is needed (CudaCollectives.cpp). */
int64_t cotangent_cuda_collective_start(int64_t kind, int64_t element, int64_t elementBytes,
                                        intptr_t in, intptr_t out, int64_t outer, int64_t inner,
                                        intptr_t perm, int64_t pairs);
void cotangent_cuda_collective_wait(int64_t ticket);
/** Whether NCCL is there and its communicator over the job's ranks is made
 *  (made on the first call); 0 and `why` when not. */
int cotangent_cuda_collectives_ready(const char **why);
/** A stream of its own, for work beside the compute stream; null without a device. */
void *cotangent_cuda_stream_create(void);

/* The MLIR GPU runtime wrappers' API, over the driver. */
void *cotangent_mgpuModuleLoad(void *data, size_t size);
void *cotangent_mgpuModuleLoadJIT(void *data, int optLevel);
void cotangent_mgpuModuleUnload(void *module);
void *cotangent_mgpuModuleGetFunction(void *module, const char *name);
void cotangent_mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                                intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                                int32_t smem, void *stream, void **params, void **extra,
                                size_t paramsCount);
void *cotangent_mgpuStreamCreate(void);
void cotangent_mgpuStreamDestroy(void *stream);
void cotangent_mgpuStreamSynchronize(void *stream);
void cotangent_mgpuStreamWaitEvent(void *stream, void *event);
void *cotangent_mgpuEventCreate(void);
void cotangent_mgpuEventDestroy(void *event);
void cotangent_mgpuEventSynchronize(void *event);
void cotangent_mgpuEventRecord(void *event, void *stream);
void *cotangent_mgpuMemAlloc(uint64_t bytes, void *stream, int8_t hostShared);
void cotangent_mgpuMemFree(void *ptr, void *stream);
void cotangent_mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void cotangent_mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream);
void cotangent_mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream);
void cotangent_mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif /* COTANGENT_RUNTIME_CUDA_CUDARUNTIME_H */
