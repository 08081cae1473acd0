//===- ReturnedFieldPropagation.h - constant fields of returned structs -*- C++ -*-===//
//
// A function of a lowered step that returns memrefs returns their
// descriptors in one struct: allocated and aligned pointers, then offset,
// sizes and strides, which are constants for static shapes. LLVM's
// interprocedural constant propagation follows scalars and a struct's
// top-level fields only, so a caller that passes such a descriptor on to
// the next call (the backward's `jx_repeat` calls take the forward's
// residuals) passes every field as an unknown value. This pass puts the
// constant in place of each field the callee always returns as that
// constant; the default pipeline then drops them from the calls they flow
// into. A 64-layer MLP step's host function: 3 530 lines after the
// optimizer, 2 291 of them such fields.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_RETURNEDFIELDPROPAGATION_H
#define COTANGENT_RUNTIME_HOST_RETURNEDFIELDPROPAGATION_H

#include "llvm/IR/PassManager.h"

namespace cotangent::host {

/// For each function local to the module that only direct calls use and
/// that returns a struct, replaces `extractvalue` chains from its calls'
/// results that reach a scalar field by the constant every `ret` of the
/// function puts there, where they agree.
struct ReturnedFieldPropagationPass : llvm::PassInfoMixin<ReturnedFieldPropagationPass> {
  llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_RETURNEDFIELDPROPAGATION_H
