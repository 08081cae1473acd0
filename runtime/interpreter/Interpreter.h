//===- Interpreter.h - The reference interpreter of jx IR -------*- C++ -*-===//
//
// Runs a func.func of jx ops on host tensors: the oracle of every numerical
// test. Ops are evaluated one by one in program order (Ops.h holds their
// semantics); func.call runs the callee, jx.scan / jx.cond / jx.while /
// jx.remat run their regions.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_INTERPRETER_H
#define COTANGENT_RUNTIME_INTERPRETER_INTERPRETER_H

#include "runtime/interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <vector>

namespace cotangent::interp {

/// Bytes of tensor buffers held by the interpreter during one `run`.
///
/// What is counted: every buffer the interpreter allocates while running --
/// a copy of each argument (made at entry), the result of each op, region
/// block arguments it materializes (scan's per-iteration xs slices), scan's
/// stacked ys (allocated whole before the first iteration) and the
/// temporaries of each op's implementation, at `getByteSize()` bytes each
/// (i1 takes one byte per element). A buffer is live from its allocation
/// until no SSA value or in-flight temporary refers to it: each SSA value is
/// dropped right after its last use in its block (a value never used is
/// dropped at once; an unused argument is never held), so a buffer dies
/// after the last use of the last value that shares it. Values that share a
/// buffer -- the results of reshape, squeeze, expand_dims, stop_gradient,
/// checkpoint_name, optimization_barrier, a call's or region's block
/// arguments, what a region yields -- are counted once. The caller's own
/// argument tensors are not counted.
struct MemoryStats {
  /// Bytes still live when `run` returns: the results' buffers.
  int64_t liveBytes = 0;
  /// The maximum of the live bytes over the run.
  int64_t peakBytes = 0;
  /// How many times each op ran, by op name (ops in loop bodies count once
  /// per trip): what tests of checkpoint schedules count recomputation by.
  llvm::StringMap<int64_t> opsRun;
};

/// Called after each op the interpreter runs (in every region and callee,
/// in execution order) with its operands and results; a failure stops the
/// run there (what jax_debug_nans does: see where a value first goes bad).
using OpWatcher = std::function<mlir::LogicalResult(
    mlir::Operation &op, llvm::ArrayRef<Tensor> operands, llvm::ArrayRef<Tensor> results)>;

/// Runs `fn` on `args`. On a bad call (wrong count/types of args, unsupported
/// op) emits an MLIR diagnostic at the offending location and returns
/// failure; never asserts. `fn` (and every function it calls) is verified
/// before it runs.
llvm::FailureOr<std::vector<Tensor>> run(mlir::func::FuncOp fn, llvm::ArrayRef<Tensor> args,
                                         MemoryStats *stats = nullptr,
                                         const OpWatcher *watch = nullptr);

} // namespace cotangent::interp

#endif // COTANGENT_RUNTIME_INTERPRETER_INTERPRETER_H
