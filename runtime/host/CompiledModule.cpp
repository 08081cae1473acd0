//===- CompiledModule.cpp - signatures, lowering, JIT, entry points -------===//
//
// load(): every public function must take and return ranked static tensors
// of jx element types (what the runtimes pass as descriptors and read back
// into host tensors); the memory kind of each result is read once here. The
// packed `_mlir_ciface_` entry of each is looked up right after the engine
// is built, which compiles it, so a call times the code alone.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/CompiledModule.h"
#include "dialects/jx/CallCycles.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace cotangent::host {

CompiledModule::CompiledModule(ByteCounter &counter) : counter(counter) {}

CompiledModule::~CompiledModule() = default;

Location CompiledModule::loc() const { return getLoweredModule().getLoc(); }

const CompiledModule::Signature *CompiledModule::getSignature(llvm::StringRef name) const {
  auto it = signatures.find(name);
  return it == signatures.end() ? nullptr : &it->second;
}

FailureOr<llvm::StringMap<CompiledModule::Signature>>
CompiledModule::readSignatures(ModuleOp module, llvm::StringRef deviceName) {
  llvm::StringMap<Signature> signatures;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isDeclaration() || !fn.isPublic())
      continue;
    Signature sig;
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes())) {
      sig.inputs.push_back(dyn_cast<RankedTensorType>(t));
      sig.donatedTo.push_back(jx::getDonatedTo(fn, i));
    }
    for (auto [i, t] : llvm::enumerate(fn.getResultTypes())) {
      sig.results.push_back(dyn_cast<RankedTensorType>(t));
      sig.resultKinds.push_back(memoryKindOfResult(fn, i));
    }
    for (RankedTensorType t : llvm::concat<RankedTensorType>(sig.inputs, sig.results))
      if (!t || !interp::isSupportedType(t))
        return fn.emitError("cannot compile for ")
               << deviceName
               << ": arguments and results must be ranked static tensors of jx element types";
    signatures[fn.getName()] = std::move(sig);
  }
  return signatures;
}

LogicalResult CompiledModule::load(ModuleOp module, const JitTarget &target) {
  deviceName = target.deviceName;
  if (failed(jx::verifyNoCallCycles(module)))
    return failure();
  auto read = readSignatures(module, deviceName);
  if (failed(read))
    return failure();
  signatures = std::move(*read);
  if (!target.entryPoints.empty()) {
    llvm::StringMap<Signature> compiled;
    for (const std::string &name : target.entryPoints) {
      auto it = signatures.find(name);
      if (it == signatures.end())
        return emitError(module.getLoc()) << "no public function @" << name << " to compile";
      compiled[name] = it->second;
    }
    signatures = std::move(compiled);
  }

  source = module.clone();
  auto lowered = lowerClone(module, target);
  if (failed(lowered))
    return failure();
  this->lowered = std::move(*lowered);
  auto created = JitEngine::create(this->lowered.get(), target, module.getLoc());
  if (failed(created))
    return failure();
  engine = std::move(*created);
  if (failed(initialize(*engine)))
    return failure();
  for (const auto &entry : signatures) {
    auto fn = engine->lookupPacked(entry.first());
    if (!fn)
      return emitError(module.getLoc(), "JIT compilation failed: ")
             << llvm::toString(fn.takeError());
    entries[entry.first()] = *fn;
  }
  return success();
}

LogicalResult CompiledModule::initialize(JitEngine &engine) {
  if (llvm::Error error = engine.initialize())
    return emitError(loc()) << "running the module's constructors failed: "
                            << llvm::toString(std::move(error));
  return success();
}

FailureOr<MemRefDescriptor> CompiledModule::offload(RankedTensorType, const MemRefDescriptor &,
                                                    MemoryKind) {
  return emitError(loc()) << deviceName << " cannot offload residuals", failure();
}

FailureOr<MemRefDescriptor> CompiledModule::reload(RankedTensorType, const MemRefDescriptor &) {
  return emitError(loc()) << deviceName << " cannot offload residuals", failure();
}

void CompiledModule::discard(const MemRefDescriptor &) {}

} // namespace cotangent::host
