//===- JitEngine.h - lowering a jx module and JIT-compiling it --*- C++ -*-===//
//
// Both runtimes compile a jx module the same way: register what the
// lowering needs on the module's context, lower a clone with their
// pipeline, translate it to LLVM IR, optimize it (LlvmOptimizer.h),
// generate its code in parallel (ParallelCodegen.h) and link the objects
// into this process with LLVM's ORC JIT, the runtime's entry points bound
// to the names compiled code calls. A JitTarget says what differs: the
// pipeline, the registry, the optimization level and the entry points.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_JITENGINE_H
#define COTANGENT_RUNTIME_HOST_JITENGINE_H

#include "runtime/core/RuntimeAbi.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace cotangent::host {

/// What compiled code calls into: the runtime's function for each entry of
/// the runtime ABI (runtime/core/RuntimeAbi.def) it binds, under the entry's
/// symbol.
struct RuntimeSymbols {
  std::vector<std::pair<core::abi::Entry, void *>> entries;
  /// Names outside the ABI (a test's own functions).
  std::vector<std::pair<std::string, void *>> extra;
};

#ifdef NDEBUG
inline constexpr bool kVerifyEachPassByDefault = false;
#else
inline constexpr bool kVerifyEachPassByDefault = true;
#endif

/// How one runtime lowers and JIT-compiles jx modules.
struct JitTarget {
  /// Where the code runs, as diagnostics name it: "the CPU", "the GPU".
  std::string deviceName;
  /// Dialects, extensions and translations the pipeline needs.
  const mlir::DialectRegistry *registry = nullptr;
  /// Appends the lowering of jx to the LLVM dialect.
  std::function<void(mlir::OpPassManager &)> buildPipeline;
  /// LLVM's optimization level for the JIT (3 also selects aggressive codegen).
  unsigned optLevel = 3;
  /// The public functions to compile, with what they call; empty: all of
  /// them. The others become private, and the pipeline drops what nothing
  /// calls (a split module's step need not compile its halves and primal
  /// again).
  std::vector<std::string> entryPoints;
  /// Verify the module after every pass of the pipeline, not only its input
  /// and its output. The lit tests run every pass verified (cotangent-opt);
  /// here the checks cost as much as the passes (64-layer MLP: ~0.4 of
  /// 0.8 s), so only builds with assertions make them by default.
  bool verifyEachPass = kVerifyEachPassByDefault;
  /// Print the time each pass of the pipeline took (MLIR's pass timing, on
  /// stderr when the pipeline ends).
  bool timePasses = false;
  /// Code generation threads, one partition of the module each; 0: the
  /// cores this process may run on (1 under LLVM's --time-passes).
  unsigned codegenThreads = 0;
  RuntimeSymbols symbols;
};

/// All dialects, extensions and LLVM IR translations: what the CPU lowering
/// needs (the GPU one adds its own translations to a copy).
const mlir::DialectRegistry &loweringRegistry();

/// A clone of `module` lowered for `target`; diagnostics go to the module's
/// context.
llvm::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>> lowerClone(mlir::ModuleOp module,
                                                              const JitTarget &target);

/// The compiled code of one lowered module, linked into this process.
class JitEngine {
public:
  /// `void f(void **args)`: args[i] points to the i-th argument of the
  /// function's C interface, the results' struct first.
  using PackedEntry = void (*)(void **);

  /// JIT-compiles the lowered module with `target`'s entry points bound and
  /// MLIR's C runner utils loaded (memrefCopy); its constructors do not run
  /// yet. Emits "JIT compilation failed: ..." at `loc` on error.
  static llvm::FailureOr<std::unique_ptr<JitEngine>> create(mlir::ModuleOp lowered,
                                                            const JitTarget &target,
                                                            mlir::Location loc);
  /// Runs the module's destructors when its constructors ran.
  ~JitEngine();

  /// The packed entry of `@name`'s C interface (`_mlir_ciface_<name>`).
  llvm::Expected<PackedEntry> lookupPacked(llvm::StringRef name);
  /// Runs the module's constructors (`llvm.global_ctors`: the GPU's load
  /// its kernels), once.
  llvm::Error initialize();

private:
  JitEngine();
  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// What `llvm.global_ctors` and `llvm.global_dtors` listed, by priority:
  /// the JIT links object files, whose init sections nothing else runs.
  std::vector<std::string> constructors, destructors;
  bool initialized = false;
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_JITENGINE_H
