//===- Spmd.h - a simulated group of ranks for collectives ------*- C++ -*-===//
//
// An SPMD program (shard_map's body: every rank of a mesh axis runs the same
// function on its own shard) run by the reference interpreter: one thread
// per rank, each interpreting the function on its arguments; a collective
// (jx.psum, jx.all_gather, ...) waits until every rank reached it, then
// each rank computes its result from all the operands. What the collectives
// mean is defined here, once, for every test and for the lowerings to MPI
// and NCCL to be checked against -- no transport, no MPI.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_SPMD_H
#define COTANGENT_RUNTIME_INTERPRETER_SPMD_H

#include "runtime/interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace cotangent::interp {

/// Runs `fn` as each rank of a group of `args.size()` ranks along mesh axis
/// `axis`, rank r on `args[r]`, and returns each rank's results. A
/// collective over another axis, ranks that reach different collectives (or
/// one rank returning while another waits in one), and any rank's failure
/// are errors at the op (the other ranks stop at their next collective).
llvm::FailureOr<std::vector<std::vector<Tensor>>>
runSpmd(mlir::func::FuncOp fn, llvm::StringRef axis, llvm::ArrayRef<std::vector<Tensor>> args);

namespace detail {

/// A collective of the running rank (EvalOp.cpp's cases): its result, or an
/// error at `op` (none outside runSpmd).
llvm::FailureOr<std::vector<Tensor>> evalCollective(mlir::Operation &op,
                                                    llvm::ArrayRef<Tensor> operands);

} // namespace detail

} // namespace cotangent::interp

#endif // COTANGENT_RUNTIME_INTERPRETER_SPMD_H
