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
  target.symbols.alloc = reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc);
  target.symbols.free = reinterpret_cast<void *>(&_mlir_memref_to_llvm_free);
  target.symbols.batchMatmulF32 =
      reinterpret_cast<void *>(&_mlir_ciface_cotangent_batch_matmul_f32);
  target.symbols.batchMatmulF64 =
      reinterpret_cast<void *>(&_mlir_ciface_cotangent_batch_matmul_f64);
  target.symbols.more = {
      {"_mlir_ciface_cotangent_batch_matmul_bf16",
       reinterpret_cast<void *>(&_mlir_ciface_cotangent_batch_matmul_bf16)},
      {"_mlir_ciface_cotangent_batch_matmul_f16",
       reinterpret_cast<void *>(&_mlir_ciface_cotangent_batch_matmul_f16)},
      {"_mlir_ciface_cotangent_attention_fwd_f32",
       reinterpret_cast<void *>(&_mlir_ciface_cotangent_attention_fwd_f32)},
      {"_mlir_ciface_cotangent_attention_bwd_f32",
       reinterpret_cast<void *>(&_mlir_ciface_cotangent_attention_bwd_f32)},
      {"cotangent_collective_start", reinterpret_cast<void *>(&cotangent_collective_start)},
      {"cotangent_collective_wait", reinterpret_cast<void *>(&cotangent_collective_wait)}};
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
