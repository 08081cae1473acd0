//===- LoweringPasses.h - jx to linalg and on to LLVM -----------*- C++ -*-===//
//
// The passes that lower jx IR for the CPU, and the `jx-lower-to-llvm`
// pipeline that chains them with the upstream bufferization and LLVM
// conversions.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CONVERSION_LLVM_LOWERINGPASSES_H
#define COTANGENT_CONVERSION_LLVM_LOWERINGPASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::cotangent {

#define GEN_PASS_DECL
#include "conversion/llvm/LoweringPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "conversion/llvm/LoweringPasses.h.inc"

/// The prefix of the external functions jx-to-linalg calls for
/// `jx.optimization_barrier` (`@__jx_optimization_barrier_0`, ...).
inline constexpr llvm::StringLiteral kBarrierPrefix = "__jx_optimization_barrier_";

/// The runtime ABI (runtime/core/RuntimeAbi.def): the name of each function
/// compiled code calls, as the lowering spells the call (abi::kAlloc,
/// abi::kBatchMatmulF32, abi::kCollectiveStart, ...).
namespace abi {
#define COTANGENT_RUNTIME_ENTRY(Id, Name, ...) inline constexpr llvm::StringLiteral k##Id = Name;
#include "runtime/core/RuntimeAbi.def"
} // namespace abi

/// How one-shot bufferization turns jx collectives into calls of the
/// runtime's `@cotangent_collective_start` and `_wait`
/// (CollectiveBufferization.cpp); jx-to-linalg adds it to the context it runs in.
void registerCollectiveBufferization(DialectRegistry &registry);

/// How one-shot bufferization turns f32 fused attention into calls of the
/// runtime's `@cotangent_attention_fwd_f32` / `_bwd_f32`
/// (AttentionBufferization.cpp); jx-to-linalg adds it like the above.
void registerAttentionBufferization(DialectRegistry &registry);

/// The textual form of the `jx-lower-to-llvm` pipeline (on a builtin.module),
/// for `parsePassPipeline` and the docs.
std::string getLowerToLLVMPipeline();

/// Adds the `jx-lower-to-llvm` pipeline to `pm` (a pass manager on
/// builtin.module).
void buildLowerToLLVMPipeline(OpPassManager &pm);

/// What the CPU and GPU pipelines do alike, and where they differ.
struct BufferizationOptions {
  /// Canonicalize after jx-to-linalg (the GPU path wants it; on the CPU it
  /// turns transposes into slow rank-3/4 loops).
  bool canonicalize = false;
  /// Replace batched matmuls by BLAS calls (OpenBLAS on the CPU, cuBLAS on the GPU).
  bool blas = true;
  /// bf16/f16 matmuls read their operands as they are into an f32 product
  /// (oneDNN's bf16 kernels on the CPU, cuBLAS's GemmEx on the GPU) instead
  /// of converting them to f32 tensors first.
  bool lowFloatBlas = true;
  /// Free each buffer right after its last use instead of at its block's end.
  bool hoistDeallocations = true;
  /// Compile collectives into runtime calls (MPI on the CPU, NCCL on the GPU).
  bool collectives = true;
  /// Run f32 fused attention on the runtime's kernels (the CPU's); else, and
  /// for other types, jx-expand-composites writes it as dot_generals first.
  bool attentionKernels = true;
};

/// jx on tensors -> linalg -> fused -> buffers (one-shot bufferization,
/// opaque optimization barriers, BLAS calls, deallocations).
void buildJxToBuffersPipeline(OpPassManager &pm, const BufferizationOptions &options);

/// The host side, from linalg on buffers to the LLVM dialect (allocations
/// through the counting hooks), without the final reconcile-unrealized-casts.
void buildHostToLLVMPasses(OpPassManager &pm);

/// Registers the passes above and the `jx-lower-to-llvm` pipeline.
void registerLoweringPassesAndPipeline();

} // namespace mlir::cotangent

#endif // COTANGENT_CONVERSION_LLVM_LOWERINGPASSES_H
