//===- ParallelCodegen.cpp - host code and kernels, on their own threads --===//

#include "runtime/host/ParallelCodegen.h"
#include "runtime/host/LlvmOptimizer.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <thread>

namespace cotangent::host {

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> generateObject(llvm::Module &module,
                                                                   llvm::TargetMachine &machine) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream out(object);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, out, nullptr, llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  passes.run(module);
  return std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(object), module.getName(),
                                                         /*RequiresNullTerminator=*/false);
}

namespace {

/// Gives every symbol local to `module` external linkage and hidden
/// visibility (a name, when it had none), so that a part can call or read
/// what another part defines. The optimizer has run: nothing is lost.
void externalizeLocals(llvm::Module &module) {
  unsigned unnamed = 0;
  auto externalize = [&](llvm::GlobalValue &value) {
    if (!value.hasLocalLinkage())
      return;
    if (!value.hasName())
      value.setName("__cotangent_part_local_" + llvm::Twine(unnamed++));
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::Function &fn : module.functions())
    externalize(fn);
  for (llvm::GlobalVariable &variable : module.globals())
    externalize(variable);
  for (llvm::GlobalAlias &alias : module.aliases())
    externalize(alias);
}

/// Part 0 holds the host code and the variables; the kernels go to parts
/// 1 to `kernelParts`, the largest first, each to the part with the fewest
/// instructions so far.
llvm::DenseMap<const llvm::GlobalValue *, unsigned> assignParts(const llvm::Module &module,
                                                                unsigned kernelParts) {
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partOf;
  std::vector<const llvm::Function *> kernels;
  for (const llvm::Function &fn : module.functions()) {
    if (fn.isDeclaration())
      continue;
    if (isHostCode(fn))
      partOf[&fn] = 0;
    else
      kernels.push_back(&fn);
  }
  llvm::stable_sort(kernels, [](const llvm::Function *a, const llvm::Function *b) {
    return a->getInstructionCount() > b->getInstructionCount();
  });
  std::vector<size_t> load(kernelParts, 0);
  for (const llvm::Function *fn : kernels) {
    size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
    partOf[fn] = 1 + lightest;
    load[lightest] += fn->getInstructionCount();
  }
  return partOf;
}

/// Code generation of one part, from its bitcode, in a context of its own
/// (an LLVMContext is used by one thread at a time).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
generatePart(llvm::StringRef bitcode, llvm::orc::JITTargetMachineBuilder machines) {
  llvm::LLVMContext context;
  auto module = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "part"), context);
  if (!module)
    return module.takeError();
  auto machine = machines.createTargetMachine();
  if (!machine)
    return machine.takeError();
  return generateObject(**module, **machine);
}

} // namespace

llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
generateObjects(std::unique_ptr<llvm::Module> module,
                const llvm::orc::JITTargetMachineBuilder &machines, unsigned threads) {
  threads = std::max(1u, threads);
  unsigned kernelParts = std::max(1u, threads - 1);
  externalizeLocals(*module);
  auto partOf = assignParts(*module, kernelParts);
  std::vector<llvm::SmallVector<char, 0>> bitcode(1 + kernelParts);
  for (unsigned part = 0; part <= kernelParts; ++part) {
    llvm::ValueToValueMapTy mapping;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(*module, mapping, [&](const llvm::GlobalValue *value) {
          auto it = partOf.find(value);
          return it == partOf.end() ? part == 0 : it->second == part;
        });
    llvm::raw_svector_ostream out(bitcode[part]);
    llvm::WriteBitcodeToFile(*clone, out);
  }
  module.reset();

  // Each part's object, or why there is none.
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects(bitcode.size());
  std::vector<std::string> failures(bitcode.size());
  auto generate = [&](unsigned part) {
    llvm::orc::JITTargetMachineBuilder partMachines = machines;
    if (part == 0) // a straight line of calls: nothing to schedule or unroll
      partMachines.setCodeGenOptLevel(llvm::CodeGenOptLevel::None);
    auto object = generatePart({bitcode[part].data(), bitcode[part].size()}, partMachines);
    if (object)
      objects[part] = std::move(*object);
    else
      failures[part] = llvm::toString(object.takeError());
  };
  std::vector<std::thread> workers;
  for (unsigned part = 1; part < bitcode.size(); ++part)
    if (threads > 1)
      workers.emplace_back(generate, part);
    else
      generate(part);
  generate(0);
  for (std::thread &worker : workers)
    worker.join();
  for (const std::string &failure : failures)
    if (!failure.empty())
      return llvm::createStringError(failure);
  return objects;
}

} // namespace cotangent::host
