//===- OneDnnMatmul.h - f32 and bf16 batched matmuls through oneDNN -*- C++ -*-===//
//
// The f32 batched matmuls compiled code calls (jx-matmul-to-blas), and the
// bf16 ones into f32 products of mixed precision, run on
// oneDNN's matmul primitive where it is installed: on the 2-core AVX-512
// machine its kernels take 56-58 ms for the 24 GEMMs of the 8 x 1024 MLP's
// step where OpenBLAS 0.3.21 takes 66-71 ms (docs/performance.md), the rate
// XLA's own dot kernels reach. A step's shapes are static, so each layout
// (sizes and strides of the three operands) makes one primitive, JIT-compiled
// once and cached for the process.
//
// oneDNN is loaded at run time (dlopen of libdnnl.so.2), so a machine without
// it runs the same code on OpenBLAS. Debian builds it on OpenMP, GCC's ABI;
// libomp implements that ABI too, and where libomp is already loaded (every
// program that links this runtime) oneDNN's parallel regions bind to it: one
// pool of threads for the loops and the dots, with one thread count
// (Threads.h) and the same sleep after each region.
//
// Which of the two runs f32 products is measured once per machine kind
// (MatmulChoice.h): neither is faster on every CPU. COTANGENT_MATMUL=openblas or
// =onednn (or setMatmulLibrary) fixes one instead; f64 matmuls, products
// under kMinWork multiply-adds (a primitive's creation costs more than they
// take) and layouts oneDNN would run on its reference kernels stay on
// OpenBLAS whatever is chosen.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_ONEDNNMATMUL_H
#define COTANGENT_RUNTIME_CPU_ONEDNNMATMUL_H

#include "runtime/host/StridedMatrix.h"

#include <string>

namespace cotangent::cpu {

/// Measured: the faster of the two on this machine kind (MatmulChoice.h).
enum class MatmulLibrary { Measured, OneDnn, OpenBlas };

/// Multiply-adds (m * n * k per product) below which a matmul stays on
/// OpenBLAS.
inline constexpr int64_t kMinOneDnnWork = int64_t{1} << 18;

/// The library f32 matmuls use from now on: setMatmulLibrary(), else
/// COTANGENT_MATMUL ("measured", "onednn" or "openblas"), else measured.
MatmulLibrary matmulLibrary();
void setMatmulLibrary(MatmulLibrary library);

/// Reads COTANGENT_MATMUL once per process; an unknown value is reported in
/// `error` and the default kept (CpuModule reports it, as Threads.h's).
void configureMatmul(std::string *error = nullptr);

/// What runs the f32 matmuls, for reports: "oneDNN 2.6.3" or "OpenBLAS
/// 0.3.21", with why oneDNN is not used when it is not.
std::string matmulLibraryName();

/// True when oneDNN is loaded and its OpenMP calls reach the libomp that
/// runs the parallel loops (one pool of threads).
bool oneDnnSharesLoopThreads();

/// C[b] = A[b] * B[b] in f32 on the library matmulLibrary() says: by
/// default the one measured faster on this machine kind (once, then read
/// from MatmulChoice.h's file); OpenBLAS where oneDNN does not take it.
void batchMatmulF32(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                    const CotangentMemRef3 &c);

/// C[b] = A[b] * B[b] by a cached oneDNN primitive. False, having done
/// nothing, when oneDNN does not take it (not loaded or OpenBLAS chosen,
/// small, a layout BLAS cannot read, or one oneDNN would run on reference
/// kernels).
bool oneDnnBatchMatmulF32(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                          const CotangentMemRef3 &c);

/// C[b] = A[b] * B[b] for bf16 A and B into an f32 C (f32 accumulation), by
/// a cached oneDNN primitive: its bf16 kernels where the CPU has
/// AVX512_BF16 or AMX, its AVX-512 emulation else. False, having done
/// nothing, as above (reference kernels included: an AVX2-only CPU).
bool oneDnnBatchMatmulBf16(const CotangentMemRef3 &a, const CotangentMemRef3 &b,
                           const CotangentMemRef3 &c);

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_ONEDNNMATMUL_H
