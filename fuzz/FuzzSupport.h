//===- FuzzSupport.h - what the fuzz harnesses share ------------*- C++ -*-===//
//
// The harnesses' MLIR context (the dialects, extensions and translations
// cotangent-run has), a handler that keeps diagnostics out of the fuzzer's
// output (an error is an answer, not a finding), the check that only jx,
// func and builtin ops are in a parsed module, and the abort that turns a
// broken invariant into a finding libFuzzer keeps.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_FUZZ_FUZZSUPPORT_H
#define COTANGENT_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>
#include <string>

namespace cotangent::fuzz {

/// A context holding every dialect cotangent-run loads. Types and attributes
/// a fuzzed input creates stay uniqued in it for its lifetime, so a harness
/// starts a fresh one every `kInputsPerContext` inputs.
std::unique_ptr<mlir::MLIRContext> makeContext();
constexpr int kInputsPerContext = 500;

/// True when every op of `module` is jx's, func's or builtin's: the
/// programs Cotangent's tools are for (upstream dialects parse because the
/// lowering registry is loaded, but fuzzing their passes is upstream's job).
bool onlyJxOps(mlir::ModuleOp module);

/// Forgets the diagnostics recorded so far (call at each input's start).
void clearDiagnostics();

/// Prints "invariant violated: <what>", the diagnostics since the input
/// started, and the program, then aborts.
[[noreturn]] void violated(const std::string &what, const std::string &program);

} // namespace cotangent::fuzz

#endif // COTANGENT_FUZZ_FUZZSUPPORT_H
