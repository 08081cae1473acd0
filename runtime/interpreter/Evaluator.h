//===- Evaluator.h - Block evaluation inside the interpreter ----*- C++ -*-===//
//
// Internal to the interpreter: the Evaluator runs blocks op by op, holding
// each SSA value's tensor from its definition to its last use; evalOp maps
// one operation to the functions of Ops.h.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_EVALUATOR_H
#define COTANGENT_RUNTIME_INTERPRETER_EVALUATOR_H

#include "runtime/interpreter/Interpreter.h"
#include "runtime/interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <unordered_map>
#include <vector>

namespace cotangent::interp::detail {

using Results = llvm::FailureOr<std::vector<Tensor>>;

class Evaluator {
public:
  /// Runs the single block of `region` on `args`; returns what it yields.
  Results evalRegion(mlir::Region &region, std::vector<Tensor> args);
  /// Checks a call of `fn` on arguments of `argTypes`: a body, their count
  /// and types, jx result types (and verifies `fn` the first time).
  mlir::LogicalResult checkCall(mlir::func::FuncOp fn, llvm::ArrayRef<mlir::Type> argTypes);
  /// Runs `fn` on `args` after checkCall.
  Results callFunction(mlir::func::FuncOp fn, std::vector<Tensor> args);

  /// The expansion of composite `op` (jx::expandIntoFunction), made once per
  /// op and kept while the evaluator lives: its blocks' last uses are cached
  /// by address, which a freed expansion's successor could reuse.
  mlir::Region &expansionOf(mlir::Operation *op);

  /// When set, each op run is counted here by name.
  llvm::StringMap<int64_t> *opsRun = nullptr;
  /// When set, called after each op; its failure stops the run.
  const OpWatcher *watch = nullptr;

private:
  /// For each op of `block`, the values of the block whose last use (in the
  /// op or its regions) it is; computed once per block.
  const llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Value>> &
  getLastUses(mlir::Block &block);

  /// Node-stable: evalRegion holds a block's entry while nested regions add
  /// theirs, which would move the entries of a map of values.
  std::unordered_map<mlir::Block *,
                     llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Value>>>
      lastUses;
  llvm::DenseSet<mlir::Operation *> verified;
  llvm::DenseMap<mlir::Operation *, mlir::OwningOpRef<mlir::ModuleOp>> expansions;
};

/// Evaluates `op` (not a terminator) on its operands' tensors; emits a
/// diagnostic at the op and fails when the op is not supported.
Results evalOp(Evaluator &evaluator, mlir::Operation &op, llvm::ArrayRef<Tensor> operands);

/// evalOp for ops with regions or callees: jx.scan, jx.cond, jx.while,
/// jx.remat and func.call (EvalControlFlow.cpp).
Results evalControlFlowOp(Evaluator &evaluator, mlir::Operation &op,
                          llvm::ArrayRef<Tensor> operands);

} // namespace cotangent::interp::detail

#endif // COTANGENT_RUNTIME_INTERPRETER_EVALUATOR_H
