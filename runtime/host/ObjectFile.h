//===- ObjectFile.h - compiled modules as object files ----------*- C++ -*-===//
//
// Ahead-of-time output shared by the runtimes: an LLVM module emitted as an
// object file, and what makes such an object a self-describing "step" that
// a driver can load without MLIR: a packed entry per public function (one
// `void **` argument, as the JIT's packed calls take) and a manifest, the
// text that `cotangent_manifest()` returns:
//
//   cotangent-manifest 1
//   target cuda sm_80,sm_90
//   function mlp_fwd _cotangent_packed_mlp_fwd
//     arg f32 [8,16]
//     result f32 [8,32] pinned_host
//   split mlp mlp_fwd mlp_bwd 1        (base, forward, backward, outputs)
//
// tools/cotangent-step reads it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_OBJECTFILE_H
#define COTANGENT_RUNTIME_HOST_OBJECTFILE_H

#include "runtime/host/CompiledModule.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace cotangent::host {

/// Optimizes `module` at -O3 and writes it as a position-independent object
/// file for the host's triple: for the host's own CPU when `native`, else
/// for the generic x86-64 (or the triple's default) CPU, so that the object
/// runs on other machines.
llvm::LogicalResult writeObjectFile(llvm::Module &module, llvm::StringRef path, bool native,
                                    mlir::Location loc);

/// What func-to-llvm names the C interface of `@f` (`llvm.emit_c_interface`):
/// the prefix, then `f`.
inline constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

/// The packed entry of public function `name`: `_cotangent_packed_<name>`.
std::string packedEntryName(llvm::StringRef name);

/// Adds `void _cotangent_packed_<name>(void **args)` calling
/// `_mlir_ciface_<name>` for each of `names`: args[i] points to the i-th
/// argument of the C interface (the result struct's address first, when the
/// function has results).
void addPackedEntries(llvm::Module &module, llvm::ArrayRef<std::string> names);

/// A split's device memory as its memory plan predicts it.
struct PredictedMemory {
  int64_t peakBytes = 0, residualBytes = 0;
};

/// The manifest of `signatures` (and the splits of `source` among them)
/// for code that runs on `target` (e.g. "cuda sm_80,sm_90"); a split in
/// `predicted` gets a `plan` line with its predicted bytes.
std::string stepManifest(llvm::StringRef target,
                         const llvm::StringMap<CompiledModule::Signature> &signatures,
                         mlir::ModuleOp source,
                         const llvm::StringMap<PredictedMemory> &predicted = {});

/// Adds `const char *cotangent_manifest(void)` returning `text`.
void addManifest(llvm::Module &module, llvm::StringRef text);

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_OBJECTFILE_H
