//===- GpuPasses.h - jx to NVVM for the GPU ---------------------*- C++ -*-===//
//
// The pass that shapes parallel loops into thread blocks, and the
// `jx-to-nvvm` pipeline: jx IR to host LLVM dialect that launches NVVM
// kernels (embedded as PTX, cubin or fatbin) through the MLIR GPU runtime
// wrappers' C API (`mgpuModuleLoad`, `mgpuLaunchKernel`, ...), which
// runtime/cuda implements.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CONVERSION_NVVM_GPUPASSES_H
#define COTANGENT_CONVERSION_NVVM_GPUPASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::cotangent {

#define GEN_PASS_DECL
#include "conversion/nvvm/GpuPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "conversion/nvvm/GpuPasses.h.inc"

/// $CUDA_HOME when set, else /usr/local/cuda.
std::string defaultCudaToolkitPath();

/// How kernels are embedded in the host code (gpu-module-to-binary's format).
enum class KernelFormat { Isa, Bin, Fatbin };

/// The options of the `jx-to-nvvm` pipeline.
struct JxToNVVMOptions : public PassPipelineOptions<JxToNVVMOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("Target SM architecture, or several "
                                                          "(sm_80,sm_90: one fat binary)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features", llvm::cl::desc("PTX ISA version feature"),
                               llvm::cl::init("+ptx80")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("NVPTX optimization level"),
                            llvm::cl::init(3)};
  Option<std::string> toolkit{*this, "toolkit",
                              llvm::cl::desc("CUDA toolkit (libdevice, ptxas)"),
                              llvm::cl::init(defaultCudaToolkitPath())};
  Option<KernelFormat> format{
      *this, "format", llvm::cl::desc("Kernel format embedded in the host code"),
      llvm::cl::init(KernelFormat::Bin),
      llvm::cl::values(clEnumValN(KernelFormat::Isa, "isa", "PTX, compiled by the driver at load"),
                       clEnumValN(KernelFormat::Bin, "bin", "cubin (ptxas)"),
                       clEnumValN(KernelFormat::Fatbin, "fatbin", "a fat binary"))};
  Option<bool> cublas{*this, "cublas",
                      llvm::cl::desc("f32/f64 dot_general through cuBLAS (in the runtime)"),
                      llvm::cl::init(true)};
  Option<int64_t> threadsPerBlock{*this, "threads-per-block",
                                  llvm::cl::desc("Threads per block of each kernel"),
                                  llvm::cl::init(256)};
  Option<int64_t> vectorBytes{*this, "vector-bytes",
                              llvm::cl::desc("Bytes of each vector load and store in elementwise "
                                             "kernels (0: scalar accesses)"),
                              llvm::cl::init(16)};
};

/// Adds the first stage of `jx-to-nvvm` to `pm`: jx on tensors to buffers in
/// device memory (offloaded residuals in pinned host memory), freed where the
/// deallocation pipeline puts them. The device's memory plan is made on it.
void buildJxToDeviceBuffersPipeline(OpPassManager &pm, bool cublas = true);

/// Adds the `jx-to-nvvm` pipeline to `pm` (a pass manager on builtin.module).
void buildJxToNVVMPipeline(OpPassManager &pm, const JxToNVVMOptions &options);

/// Registers the pass above and the `jx-to-nvvm` pipeline.
void registerGpuPassesAndPipeline();

} // namespace mlir::cotangent

#endif // COTANGENT_CONVERSION_NVVM_GPUPASSES_H
