//===- FlattenExtractChains.h - one extractvalue per scalar field -*- C++ -*-===//
//
// InstCombine splits the store of a memref descriptor into a store per
// field, reading its strides as `extractvalue %d, 4` (a `[2 x i64]`) and
// then each stride from that array. LLVM's fast instruction selector, which
// code generation at -O0 uses for host code, selects an `extractvalue` only
// when its result fits a register: at the first one that does not it hands
// the rest of the block to SelectionDAG, whose cost grows with the block.
// A step's host function is one long block, so nearly all of it went the
// slow way. This pass rewrites each chain of extracts ending in a scalar
// into one extract with the whole index path.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_FLATTENEXTRACTCHAINS_H
#define COTANGENT_RUNTIME_HOST_FLATTENEXTRACTCHAINS_H

#include "llvm/IR/PassManager.h"

namespace cotangent::host {

/// Replaces `extractvalue (extractvalue %a, i...), j...` by
/// `extractvalue %a, i..., j...`, and drops aggregate-typed extracts left
/// without uses.
struct FlattenExtractChainsPass : llvm::PassInfoMixin<FlattenExtractChainsPass> {
  llvm::PreservedAnalyses run(llvm::Function &fn, llvm::FunctionAnalysisManager &);
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_FLATTENEXTRACTCHAINS_H
