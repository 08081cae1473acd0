//===- LlvmOptimizer.h - LLVM's optimizer as the runtimes run it -*- C++ -*-===//
//
// The JIT and object-file emission optimize a lowered step with LLVM's
// default pipeline for an -O level, told the target machine (its cost model
// guides the vectorizers and the unroller), minus what only costs time on
// the code Cotangent generates.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_LLVMOPTIMIZER_H
#define COTANGENT_RUNTIME_HOST_LLVMOPTIMIZER_H

#include "llvm/Support/Error.h"

namespace llvm {
class Function;
class Module;
class TargetMachine;
} // namespace llvm

namespace cotangent::host {

/// Whether `fn` is host code: a function without loops (allocations,
/// descriptors, kernel and BLAS calls), as opposed to a kernel.
bool isHostCode(const llvm::Function &fn);

/// Runs LLVM's default module pipeline at `optLevel` (0 to 3) over `module`
/// for `machine` (null: no target cost model), with two exceptions:
/// - no called-value propagation: it annotates indirect calls, which
///   compiled steps do not make, after walking every call site;
/// - no GVN and no dead-store elimination in host code, whose long blocks
///   these two walk in time quadratic in their length,
///   while InstCombine, SROA and EarlyCSE already fold its descriptors.
///   Together they were two thirds of the optimizer's time on a 64-layer
///   MLP;
/// - no SLP vectorizer in host code: a vector constant stored into a result
///   descriptor sends the rest of the block to SelectionDAG at -O0
///   (FlattenExtractChains.h says why that costs), for a few stores saved;
/// and, last, FlattenExtractChainsPass, then StructReturnsToOutParamsPass.
/// Functions marked `optnone` are optimized too: the lowering marks host
/// code so for a code generator at -O3 (object files), whose fast path it
/// then takes.
/// LLVM's `--time-passes` reports each pass.
llvm::Error optimizeModule(llvm::Module &module, unsigned optLevel, llvm::TargetMachine *machine);

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_LLVMOPTIMIZER_H
