//===- Pipeline.cpp - the jx-to-nvvm pipeline -----------------------------===//
//
// jx IR to host LLVM dialect that runs its loops as NVVM kernels:
//
//   jx-gpu-offload-residuals, jx-gpu-reload-residuals
//                          an offloaded residual is copied to pinned host
//                          memory right after the forward computes it, and
//                          back to the device right before its first use
//                          in the backward
//   inline, jx-to-linalg, canonicalize, linalg-fuse-elementwise-ops
//                          as for the CPU: a chain of elementwise ops is one
//                          linalg.generic, hence one kernel
//   one-shot-bufferize, jx-lower-optimization-barriers,
//   jx-matmul-to-blas      f32/f64 batched matmuls become calls that the
//                          CUDA runtime binds to cuBLAS (cublas=false keeps
//                          them as loops, hence kernels)
//   buffer-deallocation-pipeline, convert-bufferization-to-memref
//   jx-gpu-pinned-host-buffers (pinned buffers become gpu.alloc host_shared,
//                          copies into and out of them gpu.memcpy)
//   jx-gpu-host-buffers    buffers only host code touches (the deallocation
//                          pipeline's alias checks) go on the host's stack
//   jx-gpu-interchange-reductions (kept dimensions before reduced ones),
//   convert-linalg-to-parallel-loops, jx-gpu-kernelize-host-code (what host
//                          code did to buffers moves into kernels),
//   jx-gpu-block-reductions (a reduction keeping dimensions: one block per
//                          kept element), jx-gpu-vectorize-accesses (each
//                          thread of an elementwise loop reads and writes
//                          16 bytes per operand), jx-gpu-tile-parallel-loops,
//   gpu-map-parallel-loops, convert-parallel-loops-to-gpu,
//   gpu-kernel-outlining   every outermost parallel loop is one gpu.launch,
//                          outlined into its own gpu.module
//   jx-gpu-merge-kernels   modules of the same kernel (a repeated layer's,
//                          the step functions' copies of the forward's and
//                          backward's) become one, compiled once
//   nvvm-attach-target, gpu.module(convert-gpu-to-nvvm),
//   gpu-module-to-binary   kernels to PTX (libdevice from the toolkit for
//                          math), then to cubin/fatbin with ptxas, once per
//                          chip of `chip=sm_80,sm_90`
//   jx-gpu-fatbin          with several chips: their cubins as one fatbin
//   host: the CPU lowering (allocations through the counted
//   _mlir_memref_to_llvm_alloc / _free hooks, which the CUDA runtime binds
//   to its device allocator), then gpu-to-llvm: launches become calls to
//   mgpuModuleGetFunction / mgpuLaunchKernel / mgpuStream*, and the
//   embedded binaries are loaded by global constructors (mgpuModuleLoad);
//   jx-gpu-device-globals: kernels get device copies of constant globals.
//
// Buffers are device memory and launches asynchronous on one stream: host
// code only allocates, frees, launches and calls; the one value it reads
// (a jx.cond predicate) comes through the runtime's read.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"
#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;

std::string cotangent::defaultCudaToolkitPath() {
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  return "/usr/local/cuda";
}

void cotangent::buildJxToDeviceBuffersPipeline(OpPassManager &pm, bool cublas) {
  // Offloaded residuals leave the device once computed and come back where
  // the backward first needs them.
  pm.addNestedPass<func::FuncOp>(createJxGpuOffloadResidualsPass());
  pm.addNestedPass<func::FuncOp>(createJxGpuReloadResidualsPass());
  // The same buffers as on the CPU otherwise: the BLAS differs, and fused
  // attention is expanded (no device kernel yet: its scores are materialized).
  buildJxToBuffersPipeline(pm, BufferizationOptions{.blas = cublas, .attentionKernels = false});
  pm.addPass(createJxGpuPinnedHostBuffersPass());
  pm.addPass(createJxGpuHostBuffersPass());
}

void cotangent::buildJxToNVVMPipeline(OpPassManager &pm, const JxToNVVMOptions &options) {
  buildJxToDeviceBuffersPipeline(pm, options.cublas);

  // Parallel loops to kernels.
  pm.addNestedPass<func::FuncOp>(createJxGpuInterchangeReductionsPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createJxGpuParallelScattersPass());
  pm.addPass(createJxGpuKernelizeHostCodePass());
  pm.addNestedPass<func::FuncOp>(createJxGpuBlockReductionsPass());
  pm.addNestedPass<func::FuncOp>(createJxGpuVectorizeAccessesPass(
      JxGpuVectorizeAccessesPassOptions{.vectorBytes = options.vectorBytes}));
  JxGpuTileParallelLoopsPassOptions tiling;
  tiling.threadsPerBlock = options.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(createJxGpuTileParallelLoopsPass(tiling));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createJxGpuMergeKernelsPass());

  // Kernels to NVVM, then to PTX / cubin.
  // One target per chip: each kernel module is compiled once for each.
  llvm::SmallVector<llvm::StringRef> chips;
  llvm::StringRef(options.chip).split(chips, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef chip : chips) {
    GpuNVVMAttachTargetOptions target;
    target.chip = chip.trim().str();
    target.features = options.features;
    target.optLevel = options.optLevel;
    pm.addPass(createGpuNVVMAttachTarget(target));
  }
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  binary.compilationTarget = options.format == KernelFormat::Isa   ? "isa"
                             : options.format == KernelFormat::Fatbin ? "fatbin"
                                                                      : "bin";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (chips.size() > 1) {
    JxGpuFatbinPassOptions fatbin;
    fatbin.toolkit = options.toolkit;
    pm.addPass(createJxGpuFatbinPass(fatbin));
  }

  // The host side: the CPU lowering, then the launches.
  buildHostToLLVMPasses(pm);
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createJxGpuDeviceGlobalsPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void cotangent::registerGpuPassesAndPipeline() {
  registerCotangentGpuPasses();
  PassPipelineRegistration<JxToNVVMOptions>(
      "jx-to-nvvm",
      "Lower jx IR for NVIDIA GPUs: fused elementwise kernels as NVVM compiled to "
      "PTX/cubin, host code calling the GPU runtime wrappers' API, dot_general "
      "through cuBLAS, allocations through the counted hooks",
      [](OpPassManager &pm, const JxToNVVMOptions &options) {
        buildJxToNVVMPipeline(pm, options);
      });
}
