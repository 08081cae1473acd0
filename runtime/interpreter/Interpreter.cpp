//===- Interpreter.cpp - Running functions and blocks of jx IR ------------===//
//
// Implements `run` and the Evaluator's block walk. Each block evaluation
// keeps an environment from SSA values to tensors; after each op, the values
// whose last use it was are dropped, so the buffers the MemoryScope counts
// are exactly those some value still needs.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Interpreter.h"
#include "dialects/jx/CallCycles.h"
#include "dialects/jx/CompositeBuilder.h"
#include "runtime/interpreter/Evaluator.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/IR/Verifier.h"

#include <optional>

using namespace cotangent::interp;
using namespace cotangent::interp::detail;
using namespace mlir;

const llvm::DenseMap<Operation *, llvm::SmallVector<Value>> &
Evaluator::getLastUses(Block &block) {
  auto [it, inserted] = lastUses.try_emplace(&block);
  if (!inserted)
    return it->second;
  llvm::DenseMap<Value, Operation *> last;
  for (Operation &op : block)
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (v.getParentBlock() == &block)
          last[v] = &op;
    });
  for (auto [value, op] : last)
    it->second[op].push_back(value);
  return it->second;
}

Region &Evaluator::expansionOf(Operation *op) {
  OwningOpRef<ModuleOp> &module = expansions[op];
  if (!module)
    module = jx::expandIntoFunction(cast<jx::CompositeOpInterface>(op));
  return module->lookupSymbol<func::FuncOp>("expanded").getBody();
}

Results Evaluator::evalRegion(Region &region, std::vector<Tensor> args) {
  if (!region.hasOneBlock())
    return emitError(region.getLoc()) << "the interpreter runs single-block regions only";
  Block &block = region.front();
  if (args.size() != block.getNumArguments())
    return emitError(region.getLoc()) << "region expects " << block.getNumArguments()
                                      << " arguments, got " << args.size();
  const auto &deaths = getLastUses(block);

  llvm::DenseMap<Value, Tensor> env;
  for (auto [arg, tensor] : llvm::zip_equal(block.getArguments(), args))
    if (!arg.use_empty())
      env.try_emplace(arg, std::move(tensor));
  args.clear();

  for (Operation &op : block) {
    std::vector<Tensor> operands;
    for (Value v : op.getOperands()) {
      auto found = env.find(v);
      if (found == env.end())
        return emitError(op.getLoc()) << "'" << op.getName() << "' uses a value the interpreter does not hold (defined "
                                   "outside the region?)";
      operands.push_back(found->second);
    }
    if (op.hasTrait<OpTrait::IsTerminator>())
      return operands;

    Results results = evalOp(*this, op, operands);
    if (failed(results))
      return failure();
    if (opsRun)
      ++(*opsRun)[op.getName().getStringRef()];
    if (watch && failed((*watch)(op, operands, *results)))
      return failure();
    if (results->size() != op.getNumResults())
      return emitError(op.getLoc()) << "'" << op.getName() << "': interpreter produced " << results->size() << " results";
    if (auto dead = deaths.find(&op); dead != deaths.end())
      for (Value v : dead->second)
        env.erase(v);
    operands.clear();
    for (auto [value, tensor] : llvm::zip_equal(op.getResults(), *results)) {
      if (value.getType() != tensor.getType())
        return emitError(op.getLoc()) << "'" << op.getName() << "': interpreter produced " << tensor.getType()
                                << " for a result of type " << value.getType();
      if (!value.use_empty())
        env.try_emplace(value, std::move(tensor));
    }
  }
  return emitError(region.getLoc()) << "block has no terminator";
}

LogicalResult Evaluator::checkCall(func::FuncOp fn, ArrayRef<Type> argTypes) {
  if (fn.isExternal())
    return emitError(fn.getLoc()) << "'" << fn.getSymName() << "' has no body to interpret";
  if (verified.insert(fn.getOperation()).second && failed(verify(fn)))
    return failure();
  FunctionType type = fn.getFunctionType();
  if (argTypes.size() != type.getNumInputs())
    return emitError(fn.getLoc()) << "'" << fn.getSymName() << "' takes " << type.getNumInputs()
                            << " arguments, got " << argTypes.size();
  for (auto [i, argType] : llvm::enumerate(argTypes))
    if (argType != type.getInput(i))
      return emitError(fn.getArgument(i).getLoc())
             << "argument #" << i << " of '" << fn.getSymName() << "' has type "
             << type.getInput(i) << ", got " << argType;
  for (Type result : type.getResults())
    if (!isSupportedType(result))
      return emitError(fn.getLoc()) << "result type " << result << " is not a jx tensor type";
  return success();
}

Results Evaluator::callFunction(func::FuncOp fn, std::vector<Tensor> args) {
  SmallVector<Type> types;
  for (const Tensor &a : args)
    types.push_back(a.getType());
  if (failed(checkCall(fn, types)))
    return failure();
  return evalRegion(fn.getBody(), std::move(args));
}

llvm::FailureOr<std::vector<Tensor>> cotangent::interp::run(func::FuncOp fn,
                                                            llvm::ArrayRef<Tensor> args,
                                                            MemoryStats *stats,
                                                            const OpWatcher *watch) {
  // Checked once, before anything runs: no call cycles, and every result
  // shape (static) of @fn and the functions it calls fits in memory,
  // wherever it is evaluated (a scan body would otherwise be checked every
  // iteration).
  auto module = fn->getParentOfType<ModuleOp>();
  if (module && failed(mlir::jx::verifyNoCallCycles(module)))
    return failure();
  llvm::SetVector<func::FuncOp> reached;
  reached.insert(fn);
  for (size_t i = 0; i < reached.size(); ++i) {
    func::FuncOp next = reached[i];
    WalkResult fits = next.walk([&](Operation *op) {
      if (auto call = dyn_cast<func::CallOp>(op); call && module)
        if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee()))
          reached.insert(callee);
      for (Type type : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(type);
            tensor && tensor.hasStaticShape() && failed(checkFitsInMemory(tensor, op->getLoc())))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (fits.wasInterrupted())
      return failure();
  }
  auto counter = stats ? std::make_shared<MemoryCounter>() : nullptr;
  std::optional<MemoryScope> scope;
  std::vector<Tensor> owned;
  if (counter) {
    scope.emplace(counter);
    // Counted copies of the arguments the body uses (unused ones stay uncounted).
    for (auto [i, arg] : llvm::enumerate(args)) {
      bool unused = !fn.isExternal() && i < fn.getNumArguments() && fn.getArgument(i).use_empty();
      owned.push_back(unused ? arg : arg.clone());
    }
  } else {
    owned.assign(args.begin(), args.end());
  }
  Evaluator evaluator;
  if (stats)
    evaluator.opsRun = &stats->opsRun;
  evaluator.watch = watch;
  Results results = evaluator.callFunction(fn, std::move(owned));
  if (stats) {
    stats->liveBytes = counter->liveBytes;
    stats->peakBytes = counter->peakBytes;
  }
  return results;
}
