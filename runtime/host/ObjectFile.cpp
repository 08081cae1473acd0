//===- ObjectFile.cpp - object files, packed entries, the manifest --------===//
//
// The packed entries are the JIT's (JitEngine) too, so that a driver
// without MLIR calls every entry the same way CompiledModule does.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/ObjectFile.h"

#include "runtime/core/Manifest.h"
#include "runtime/host/LlvmOptimizer.h"
#include "runtime/host/ParallelCodegen.h"

#include "dialects/jx/JxSplit.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace cotangent::host {

LogicalResult writeObjectFile(llvm::Module &module, llvm::StringRef path, bool native,
                              Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "no LLVM target for " << triple.str() << ": " << error;
  llvm::SubtargetFeatures features;
  std::string cpu = "generic";
  if (native) {
    cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
  } else if (triple.getArch() == llvm::Triple::x86_64) {
    cpu = "x86-64";
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features.getString(), llvm::TargetOptions(), llvm::Reloc::PIC_));
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  if (llvm::Error e = optimizeModule(module, 3, machine.get()))
    return emitError(loc) << "LLVM optimization failed: " << llvm::toString(std::move(e));

  auto object = generateObject(module, *machine);
  if (!object)
    return emitError(loc) << "LLVM code generation failed: " << llvm::toString(object.takeError());
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return emitError(loc) << "cannot write " << path << ": " << ec.message();
  out << (*object)->getBuffer();
  out.flush();
  return success();
}

std::string packedEntryName(llvm::StringRef name) { return ("_cotangent_packed_" + name).str(); }

void addPackedEntries(llvm::Module &module, llvm::ArrayRef<std::string> names) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  for (const std::string &name : names) {
    llvm::Function *callee = module.getFunction((kCInterfacePrefix + name).str());
    if (!callee)
      continue;
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
    auto *packed = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                          packedEntryName(name), module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", packed));
    llvm::SmallVector<llvm::Value *> args;
    for (auto [i, param] : llvm::enumerate(callee->getFunctionType()->params())) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptr, packed->getArg(0), i);
      args.push_back(b.CreateLoad(param, b.CreateLoad(ptr, slot)));
    }
    b.CreateCall(callee, args);
    b.CreateRetVoid();
  }
}

namespace {

/// The manifest's type (runtime/core/Manifest.h) of a tensor type.
core::TensorType manifestType(RankedTensorType type) {
  return {*interp::getElementKind(type.getElementType()),
          {type.getShape().begin(), type.getShape().end()}};
}

} // namespace

std::string stepManifest(llvm::StringRef target,
                         const llvm::StringMap<CompiledModule::Signature> &signatures,
                         ModuleOp source, const llvm::StringMap<PredictedMemory> &predicted) {
  core::Manifest manifest;
  manifest.target = target.str();
  for (const auto &[name, sig] : signatures) {
    core::Function &fn = manifest.functions[name.str()];
    fn.name = name.str();
    fn.entry = packedEntryName(name);
    for (RankedTensorType t : sig.inputs)
      fn.args.push_back(manifestType(t));
    for (auto [t, kind] : llvm::zip(sig.results, sig.resultKinds)) {
      fn.results.push_back(manifestType(t));
      fn.pinnedHost.push_back(kind == MemoryKind::PinnedHost);
    }
  }
  for (const auto &entry : jx::getSplitSymbols(source)) {
    if (!signatures.contains(entry.second.fwd) || !signatures.contains(entry.second.bwd))
      continue;
    core::Split split{entry.first().str(), entry.second.fwd, entry.second.bwd,
                      static_cast<int64_t>(entry.second.numPrimalResults)};
    if (auto plan = predicted.find(entry.first()); plan != predicted.end()) {
      split.predictedPeakBytes = plan->second.peakBytes;
      split.predictedResidualBytes = plan->second.residualBytes;
    }
    manifest.splits.push_back(std::move(split));
  }
  return core::writeManifest(manifest);
}

void addManifest(llvm::Module &module, llvm::StringRef text) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Constant *data = llvm::ConstantDataArray::getString(ctx, text, /*AddNull=*/true);
  auto *global = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, data,
                                          "cotangent_manifest_text");
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(ptr, false),
                                    llvm::GlobalValue::ExternalLinkage, "cotangent_manifest",
                                    module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  b.CreateRet(global);
}

} // namespace cotangent::host
