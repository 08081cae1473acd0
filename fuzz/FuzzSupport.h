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

/// A context holding every dialect cotangent-run loads, its diagnostics
/// recorded for violated() instead of printed.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// The context for the next input, holding every dialect cotangent-run
/// loads, with the previous input's diagnostics forgotten. Types and
/// attributes a fuzzed input creates stay uniqued in a context, so a fresh
/// one replaces it every kInputsPerContext inputs. Call once per input.
mlir::MLIRContext &contextForInput();
constexpr int kInputsPerContext = 500;

/// True when every op of `module` is jx's, func's or builtin's: the
/// programs Cotangent's tools are for (upstream dialects parse because the
/// lowering registry is loaded, but fuzzing their passes is upstream's job).
bool onlyJxOps(mlir::ModuleOp module);

/// Prints "invariant violated: <what>", the diagnostics since the input
/// started, and the program, then aborts.
[[noreturn]] void violated(const std::string &what, const std::string &program);

} // namespace cotangent::fuzz

#endif // COTANGENT_FUZZ_FUZZSUPPORT_H
