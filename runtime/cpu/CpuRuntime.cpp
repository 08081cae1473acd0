//===- CpuRuntime.cpp - the CPU's side of a compiled module ---------------===//
//
// compile(): the CPU target of runtime/host's JIT: the jx-lower-to-llvm
// pipeline, LLVM at the requested level, and this runtime's allocation hooks,
// BLAS and attention entry points bound to the names compiled code calls.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/Attention.h"
#include "runtime/cpu/BlockCache.h"
#include "runtime/cpu/MemoryHooks.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/cpu/Threads.h"

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxCollectiveOps.h"
#include "runtime/comm/Collectives.h"
#include "runtime/comm/Communicator.h"

#include "mlir/Pass/PassManager.h"

#include <string>
#include <utility>

using namespace mlir;

namespace cotangent::cpu {

CpuModule::CpuModule() : CompiledModule(allocationCounter()) {
  std::string threadsError, matmulError;
  configureThreads(&threadsError);
  configureMatmul(&matmulError);
  static bool reported = false;
  if (!std::exchange(reported, true))
    for (const std::string &error : {threadsError, matmulError})
      if (!error.empty())
        llvm::errs() << "cotangent: " << error << "\n";
}

host::RuntimeSymbols cpuRuntimeSymbols() {
  using core::abi::Entry;
  auto address = [](auto *fn) { return reinterpret_cast<void *>(fn); };
  return {{
      {Entry::Alloc, address(&_mlir_memref_to_llvm_alloc)},
      {Entry::Free, address(&_mlir_memref_to_llvm_free)},
      {Entry::BatchMatmulF32, address(&_mlir_ciface_cotangent_batch_matmul_f32)},
      {Entry::BatchMatmulF64, address(&_mlir_ciface_cotangent_batch_matmul_f64)},
      {Entry::BatchMatmulBF16, address(&_mlir_ciface_cotangent_batch_matmul_bf16)},
      {Entry::BatchMatmulF16, address(&_mlir_ciface_cotangent_batch_matmul_f16)},
      {Entry::AttentionFwdF32, address(&_mlir_ciface_cotangent_attention_fwd_f32)},
      {Entry::AttentionBwdF32, address(&_mlir_ciface_cotangent_attention_bwd_f32)},
      {Entry::CollectiveStart, address(&cotangent_collective_start)},
      {Entry::CollectiveWait, address(&cotangent_collective_wait)},
  }};
}

host::JitTarget cpuTarget(const CompileOptions &options) {
  host::JitTarget target;
  target.deviceName = "the CPU";
  target.registry = &host::loweringRegistry();
  target.buildPipeline = [](OpPassManager &pm) { mlir::cotangent::buildLowerToLLVMPipeline(pm); };
  target.optLevel = options.optLevel;
  target.entryPoints = options.entryPoints;
  target.verifyEachPass = options.verifyEachPass;
  target.timePasses = options.timePasses;
  target.codegenThreads = options.codegenThreads;
  target.symbols = cpuRuntimeSymbols();
  return target;
}

llvm::FailureOr<std::unique_ptr<CpuModule>> CpuModule::compile(ModuleOp module,
                                                               const CompileOptions &options) {
  // Collectives run on the job's group: their axis sizes must be its size.
  const int ranks = comm::world().size();
  if (failed(jx::checkGroupSize(module, ranks,
                                comm::launchedByMpi() ? "started by mpirun" : "one process; "
                                "start it with mpirun -np N for more")))
    return failure();
  std::unique_ptr<CpuModule> result(new CpuModule());
  if (failed(result->load(module, cpuTarget(options))))
    return failure();
  return result;
}

llvm::FailureOr<host::MemRefDescriptor> CpuModule::upload(const Tensor &t) {
  return host::MemRefDescriptor::contiguous(const_cast<char *>(t.data()), t.getShape());
}

void CpuModule::release(void *block) { _mlir_memref_to_llvm_free(block); }

std::optional<Tensor> CpuModule::adopt(RankedTensorType type,
                                       const host::MemRefDescriptor &descriptor) {
  void *block = descriptor.allocated();
  int64_t bytes = allocationCounter().sizeOf(block);
  if (bytes < 0 || !allocationCounter().freed(block))
    return std::nullopt;
  return Tensor::adopt(type, static_cast<char *>(block), [bytes](char *data) {
    blockCache().deallocate(data, static_cast<size_t>(bytes));
  });
}

} // namespace cotangent::cpu
