//===- Aot.cpp - object files and C headers of compiled modules -----------===//
//
// Ahead-of-time output of a CpuModule: the lowered module translated to LLVM
// IR and written for the host CPU (runtime/host/ObjectFile.h); and a C header declaring each public function's
// `_mlir_ciface_` entry point with one strided-memref struct per rank, and
// the prototype of every runtime ABI entry the object calls
// (runtime/core/RuntimeAbi.def): what a program that links the object must
// also provide, or link from runtime/cpu (MemoryHooks.cpp, OneDnnMatmul.cpp,
// Attention.cpp, Threads.cpp with libomp, runtime/comm's collectives) with
// runtime/host's StridedMatrix.cpp; and libmlir_c_runner_utils for
// `memrefCopy`.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuRuntime.h"
#include "runtime/core/RuntimeAbi.h"
#include "runtime/host/ObjectFile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace ::cotangent::cpu;

llvm::LogicalResult CpuModule::emitObject(llvm::StringRef path) const {
  Location loc = getLoweredModule().getLoc();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module = translateModuleToLLVMIR(getLoweredModule(), llvmContext);
  if (!module)
    return emitError(loc, "cannot translate the lowered module to LLVM IR");
  return host::writeObjectFile(*module, path, /*native=*/true, loc);
}

llvm::LogicalResult CpuModule::emitHeader(llvm::StringRef path) const {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return emitError(getLoweredModule().getLoc()) << "cannot write " << path << ": " << ec.message();
  const llvm::StringMap<Signature> &signatures = getSignatures();
  // The runtime ABI entries the object calls, and the memref ranks their
  // prototypes name.
  std::vector<const core::abi::EntryInfo *> called;
  std::set<int64_t> ranks;
  for (auto fn : getLoweredModule().getOps<LLVM::LLVMFuncOp>())
    if (fn.isExternal())
      if (std::optional<core::abi::Entry> entry = core::abi::find(fn.getName()))
        called.push_back(&core::abi::info(*entry));
  llvm::sort(called, [](auto *a, auto *b) { return a->id < b->id; });
  for (const core::abi::EntryInfo *entry : called)
    for (size_t at = entry->params.find("cotangent_memref_"); at != std::string_view::npos;
         at = entry->params.find("cotangent_memref_", at + 1))
      ranks.insert(entry->params[at + 17] - '0');
  for (const auto &entry : signatures) {
    for (auto t : entry.second.inputs)
      ranks.insert(t.getRank());
    for (auto t : entry.second.results)
      ranks.insert(t.getRank());
  }
  os << "/* C interface of a module compiled by Cotangent (jx-lower-to-llvm).\n"
        " * Buffers are strided memrefs; results are allocated with\n"
        " * _mlir_memref_to_llvm_alloc and must be freed with _mlir_memref_to_llvm_free\n"
        " * (by `allocated`), except a result whose `allocated` is an argument's: that is\n"
        " * the argument itself, returned without a copy, and stays the caller's.\n"
        " * Link runtime/cpu (hooks, BLAS) and libmlir_c_runner_utils. */\n"
        "#ifndef COTANGENT_AOT_H\n#define COTANGENT_AOT_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (int64_t r : ranks) {
    os << "typedef struct {\n  void *allocated;\n  void *aligned;\n  int64_t offset;\n";
    if (r > 0)
      os << "  int64_t sizes[" << r << "];\n  int64_t strides[" << r << "];\n";
    os << "} cotangent_memref_" << r << ";\n\n";
  }
  os << "/* The runtime entry points the object calls (runtime/core/RuntimeAbi.def). */\n";
  for (const core::abi::EntryInfo *entry : called)
    os << core::abi::prototype(*entry) << "\n";
  os << "\n";
  std::vector<llvm::StringRef> names;
  for (const auto &entry : signatures)
    names.push_back(entry.first());
  llvm::sort(names);
  for (llvm::StringRef name : names) {
    const Signature &sig = signatures.find(name)->second;
    std::string resultParam;
    if (sig.results.size() == 1) {
      resultParam = "cotangent_memref_" + std::to_string(sig.results[0].getRank()) + " *result";
    } else if (!sig.results.empty()) {
      os << "typedef struct {\n";
      for (auto [i, t] : llvm::enumerate(sig.results))
        os << "  cotangent_memref_" << t.getRank() << " r" << i << "; /* " << t << " */\n";
      os << "} " << name << "_results;\n";
      resultParam = (name + "_results *results").str();
    }
    os << "/* ";
    for (auto [i, t] : llvm::enumerate(sig.inputs))
      os << (i ? ", " : "") << t;
    os << " -> ";
    for (auto [i, t] : llvm::enumerate(sig.results))
      os << (i ? ", " : "") << t;
    os << " */\nvoid " << host::kCInterfacePrefix << name << "(";
    bool first = true;
    if (!resultParam.empty()) {
      os << resultParam;
      first = false;
    }
    for (auto [i, t] : llvm::enumerate(sig.inputs)) {
      os << (first ? "" : ", ") << "cotangent_memref_" << t.getRank() << " *arg" << i;
      first = false;
    }
    if (first)
      os << "void";
    os << ");\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* COTANGENT_AOT_H */\n";
  return llvm::success();
}
