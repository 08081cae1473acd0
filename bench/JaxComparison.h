//===- JaxComparison.h - the same training steps in Cotangent and JAX -*- C++ -*-===//
//
// cotangent-bench --run compare: the programs (the MLP at batch 256
// and 2048, 64 layers x 256 at batch 64, the pre-LN transformer), each under
// no checkpoint, a checkpoint per layer and dots_saveable, compiled as one
// value-and-grad step (what jax.jit(jax.value_and_grad(loss)) compiles), and
// the compile time of deeper and deeper MLPs. Each row runs in JAX first, in
// its own process (bench/jax_cpu.py in the venv scripts/jax-venv.sh makes),
// then in Cotangent, so that the two see the machine in the same state;
// without JAX the table has Cotangent's figures alone. Peaks compare
// what each allocates beyond its arguments: the bytes Cotangent's runtime
// counted against XLA's memory_analysis() output + temp.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_BENCH_JAXCOMPARISON_H
#define COTANGENT_BENCH_JAXCOMPARISON_H

#include "tracer/Checkpoint.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace cotangent::bench {

/// The bench's own dot_general figure, carried into the comparison's JSON.
struct DotFigures {
  int64_t n = 0;
  double compiledSeconds = 0, blasSeconds = 0;
};

struct ComparisonOptions {
  unsigned repeats = 5;
  unsigned warmup = 1;
  /// The venv's python; empty: ask scripts/jax-venv.sh for it.
  std::string python;
  /// Where the rows go as JSON.
  std::string dataPath;
  /// A smaller set of rows (the ctest smoke run).
  bool small = false;
  /// Only the rows whose id contains this (e.g. "transformer"); empty: all.
  std::string filter;
  std::optional<DotFigures> dot;
};

/// Runs the comparison and prints its table; 0 on success.
int compareWithJax(mlir::MLIRContext &ctx, const ComparisonOptions &options);

/// The rows' policy names: "none" (no checkpoint), "nothing_saveable" and
/// "dots_saveable" (a checkpoint per layer or block under that policy).
std::optional<Policy> policyOf(const std::string &name);

/// The venv's python: `given`, else the one scripts/jax-venv.sh makes;
/// nullopt, with `why`, when it cannot import JAX.
std::optional<std::string> jaxPython(const std::string &given, std::string &why);

/// JAX's figures for GPT-2 `preset`'s value-and-grad step at batch x seq under
/// `policy` per block (bench/jax_cpu.py in its own process): compile_s,
/// argument_bytes, peak_bytes (output + temp), and unless `compileOnly`
/// median_ms of `repeats` runs after `warmup`. Null, with `why`, on failure.
std::optional<llvm::json::Object> runJaxGpt2(const std::string &python, const std::string &preset,
                                             const std::string &policy, int64_t batch, int64_t seq,
                                             bool compileOnly, unsigned repeats, unsigned warmup,
                                             std::string &why);

} // namespace cotangent::bench

#endif // COTANGENT_BENCH_JAXCOMPARISON_H
