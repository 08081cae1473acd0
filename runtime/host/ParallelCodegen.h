//===- ParallelCodegen.h - one LLVM module, object files in parallel -*- C++ -*-===//
//
// LLVM's code generator works one function at a time, on one thread. A
// compiled step is one module of two kinds of code: its host code (one long
// straight function of allocations and calls, and the runs of it
// jx-outline-repeats made) and its kernels (loop nests). Split into parts,
// each generated on its own thread in its own LLVMContext, the objects link
// back together in the JIT. Host code goes through the fast code generator
// (no optimization level: nothing there to schedule, unroll or fold), the
// kernels through the optimizing one, spread over the other threads.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_PARALLELCODEGEN_H
#define COTANGENT_RUNTIME_HOST_PARALLELCODEGEN_H

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace cotangent::host {

/// The object files of `module` (optimized already) for the machine
/// `machines` builds, on up to `threads` threads: one part of the host code
/// (`isHostCode`) at no optimization level, and `threads - 1` (at least
/// one) parts of kernels at the builder's level, balanced by size. Symbols
/// local to the module become hidden ones so the parts can reach each
/// other. Consumes `module`.
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
generateObjects(std::unique_ptr<llvm::Module> module,
                const llvm::orc::JITTargetMachineBuilder &machines, unsigned threads);

/// The object file of `module` for `machine`, generated on this thread.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> generateObject(llvm::Module &module,
                                                                   llvm::TargetMachine &machine);

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_PARALLELCODEGEN_H
