//===- CudaObject.cpp - self-contained GPU steps as object files ----------===//
//
// The module is lowered as for the JIT (kernels packed into a fat binary of
// the requested chips, embedded in the host code with a constructor that
// loads it), translated to LLVM IR, and every call into the runtime renamed
// to the CudaRuntime.h function it is bound to in the JIT. The object is
// for the generic x86-64 CPU: it runs on whatever machine has the GPU.
//
//===----------------------------------------------------------------------===//

#include "analysis/MemoryPlan.h"
#include "runtime/cuda/CudaBindings.h"
#include "runtime/cuda/CudaModule.h"
#include "runtime/host/ObjectFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Module.h"

using namespace mlir;

namespace cotangent::cuda {

LogicalResult emitStepObject(ModuleOp module, llvm::StringRef path,
                             const CompileOptions &options) {
  Location loc = module.getLoc();
  auto signatures = host::CompiledModule::readSignatures(module, "the GPU");
  if (failed(signatures))
    return failure();
  // What each split will hold on the device, for cotangent-step to print
  // beside what it measures; a split the plan cannot predict gets no line.
  llvm::StringMap<host::PredictedMemory> predicted;
  {
    ScopedDiagnosticHandler quiet(module.getContext(), [](Diagnostic &) { return success(); });
    module.getContext()->loadAllAvailableDialects();
    auto plans =
        mlir::cotangent::predictMemoryPlans(module, "", mlir::cotangent::MemoryPlanTarget::Cuda);
    if (succeeded(plans))
      for (const mlir::cotangent::MemoryPlan &plan : *plans)
        predicted[plan.name] = {plan.peakBytes, plan.residualBytes};
  }
  auto lowered = host::lowerClone(module, gpuTarget(options));
  if (failed(lowered))
    return failure();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> object = translateModuleToLLVMIR(**lowered, llvmContext);
  if (!object)
    return emitError(loc, "cannot translate the lowered module to LLVM IR");
  for (const Binding &binding : runtimeBindings())
    if (llvm::Function *fn = object->getFunction(core::abi::symbol(binding.entry)))
      fn->setName(binding.runtimeName);
  std::vector<std::string> names;
  for (const auto &entry : *signatures)
    names.push_back(entry.first().str());
  host::addPackedEntries(*object, names);
  host::addManifest(*object,
                    host::stepManifest("cuda " + options.chip, *signatures, module, predicted));
  return host::writeObjectFile(*object, path, /*native=*/false, loc);
}

} // namespace cotangent::cuda
