//===- StructReturnsToOutParams.h - returned descriptors through memory -*- C++ -*-===//
//
// A function the lowering outlines from a step (`jx_repeat`: one layer's
// host code, called once per layer) returns its buffers' descriptors as one
// struct of dozens of fields. LLVM's fast instruction selector, which
// generates host code at -O0, cannot lower a call returning such a struct:
// each call went to SelectionDAG on its own, 82% of the host code's
// generation on a 128-layer MLP (254 calls). This pass makes such a local
// function return through a pointer its callers pass: each caller's slot
// on its stack, read field by field right after the call; the callee
// stores only the fields some caller reads.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_STRUCTRETURNSTOOUTPARAMS_H
#define COTANGENT_RUNTIME_HOST_STRUCTRETURNSTOOUTPARAMS_H

#include "llvm/IR/PassManager.h"

namespace cotangent::host {

/// Rewrites each function local to the module that returns a struct, whose
/// every use is a direct call whose result only scalar `extractvalue`s
/// read (FlattenExtractChainsPass makes them so), into one returning void
/// through a first pointer argument.
struct StructReturnsToOutParamsPass : llvm::PassInfoMixin<StructReturnsToOutParamsPass> {
  llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_STRUCTRETURNSTOOUTPARAMS_H
