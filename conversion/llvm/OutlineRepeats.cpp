//===- OutlineRepeats.cpp - a repeated run of host code into one function -===//
//
// See JxOutlineRepeatsPass in LoweringPasses.td. Each op of a block gets a
// hash of its structure (name, attributes, types; ops with regions never
// match); a run of ops whose hashes repeat with period p is a candidate
// (tandem repeat), the longest savings first. A candidate is taken when its
// copies also agree on data flow: the same operand of the same op comes from
// the same op of the copy, or from outside it in every copy. The search is
// O(n * n/2) integer compares on a block of n ops, a few milliseconds for a
// 128-layer step; each taken candidate restarts it on the shorter block.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/OutOfLine.h"
#include "passes/SelectFunctions.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXOUTLINEREPEATSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kRepeatName = "jx_repeat";
/// Shorter runs save less than their calls cost to compile.
constexpr size_t kMinPeriod = 4;

/// A call of a function this pass made. Runs of such calls are not
/// outlined again: a function of four layers' calls, called a quarter as
/// often, saves little code and makes call interfaces of dozens of buffers,
/// whose packing LLVM's code generator handles in time quadratic in them.
bool isRepeatCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee().starts_with(kRepeatName);
}

/// Equal for ops that can stand for each other in a repeated run, whatever
/// their operands are: name, attributes and properties, operand and result
/// types. Ops with regions or successors, and stack allocations, are unique.
size_t structuralHash(Operation *op) {
  if (op->getNumRegions() > 0 || op->getNumSuccessors() > 0 ||
      op->hasTrait<OpTrait::IsTerminator>() || isRepeatCall(op) ||
      // Its buffer would die with the outlined function's frame.
      isa<memref::AllocaOp, LLVM::AllocaOp>(op))
    return llvm::hash_value(op);
  llvm::hash_code hash = OperationEquivalence::computeHash(
      op, OperationEquivalence::ignoreHashValue, OperationEquivalence::ignoreHashValue,
      OperationEquivalence::IgnoreLocations);
  for (Type type : op->getOperandTypes())
    hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
  return static_cast<size_t>(hash);
}

/// `count` copies of `period` ops, the first at `start`.
struct Run {
  size_t start, period, count;
  size_t saving() const { return (count - 1) * period; }
};

/// Where an operand of a copy comes from: an op of the same copy (by its
/// position and result number), or outside it.
struct Source {
  int64_t op = -1; ///< -1: outside
  unsigned result = 0;
  bool operator==(const Source &) const = default;
};

/// The copies of a run, as the outlined function sees them.
struct Layout {
  size_t count = 0;                               ///< copies that agree with the first
  std::vector<std::vector<Value>> outside;        ///< per copy: outside values by slot
  std::vector<std::vector<int64_t>> slotOf;       ///< per op, per operand: slot, -1 inside
  std::vector<bool> slotIsConstant;               ///< an equal constant in every copy
  std::vector<std::pair<size_t, unsigned>> results; ///< (op, result) used after a copy
};

class RepeatOutliner {
public:
  explicit RepeatOutliner(ModuleOp module) : symbols(module) {}

  /// Outlines runs in `fn` until none saves enough; the functions made are
  /// searched too (a layer's own repeats).
  void outlineIn(func::FuncOp fn) {
    SmallVector<func::FuncOp> worklist{fn};
    while (!worklist.empty()) {
      func::FuncOp current = worklist.pop_back_val();
      if (!current.getBody().hasOneBlock())
        continue;
      while (func::FuncOp made = outlineOne(current.getBody().front()))
        worklist.push_back(made);
    }
  }

private:
  /// Outlines the run that saves the most ops, if any; returns the function
  /// it made.
  func::FuncOp outlineOne(Block &block) {
    SmallVector<Operation *> ops;
    for (Operation &op : block.without_terminator())
      ops.push_back(&op);
    size_t n = ops.size();
    std::vector<size_t> hashes(n);
    for (size_t i = 0; i < n; ++i)
      hashes[i] = structuralHash(ops[i]);

    SmallVector<Run> runs;
    for (size_t p = kMinPeriod; 2 * p <= n; ++p) {
      size_t i = 0;
      while (i + p < n) {
        if (hashes[i] != hashes[i + p]) {
          ++i;
          continue;
        }
        size_t s = i;
        while (i + p < n && hashes[i] == hashes[i + p])
          ++i;
        size_t count = (i - s) / p + 1;
        if (count >= 2)
          runs.push_back({s, p, count});
      }
    }
    llvm::stable_sort(runs, [](const Run &a, const Run &b) { return a.saving() > b.saving(); });
    for (const Run &run : runs)
      // A run may only line up from a later phase (a layer's first op has
      // the previous layer's last op's structure).
      for (size_t phase = 0; phase < run.period && run.count - (phase > 0) >= 2; ++phase) {
        size_t count = (run.count * run.period - phase) / run.period;
        Layout layout = analyze(ops, run.start + phase, run.period, count);
        if (layout.count >= 2)
          return outline(ops, run.start + phase, run.period, layout);
      }
    return {};
  }

  /// How the copies at `start` read their operands; `count` of the result:
  /// how many leading copies agree with the first.
  Layout analyze(ArrayRef<Operation *> ops, size_t start, size_t period, size_t count) {
    Layout layout;
    // Structure: the hashes matched, compare exactly.
    for (size_t c = 1; c < count; ++c)
      for (size_t j = 0; j < period; ++j)
        if (!OperationEquivalence::isEquivalentTo(
                ops[start + j], ops[start + c * period + j],
                [](Value, Value) { return success(); }, nullptr,
                OperationEquivalence::IgnoreLocations)) {
          count = c;
          break;
        }
    if (count < 2)
      return layout;

    auto sourcesOf = [&](size_t c) {
      llvm::DenseMap<Operation *, int64_t> position;
      for (size_t j = 0; j < period; ++j)
        position[ops[start + c * period + j]] = j;
      std::vector<std::vector<Source>> sources(period);
      std::vector<Value> outside;
      for (size_t j = 0; j < period; ++j)
        for (Value v : ops[start + c * period + j]->getOperands()) {
          auto result = dyn_cast<OpResult>(v);
          auto it = result ? position.find(result.getOwner()) : position.end();
          if (it != position.end())
            sources[j].push_back({it->second, result.getResultNumber()});
          else {
            sources[j].push_back({});
            outside.push_back(v);
          }
        }
      return std::make_pair(sources, outside);
    };
    auto [sources, firstOutside] = sourcesOf(0);
    std::vector<std::vector<Value>> outside{firstOutside};
    for (size_t c = 1; c < count; ++c) {
      auto [copySources, copyOutside] = sourcesOf(c);
      if (copySources != sources) {
        count = c;
        break;
      }
      outside.push_back(copyOutside);
    }
    if (count < 2)
      return layout;
    layout.count = count;

    // One slot per distinct column of outside values across the copies.
    size_t uses = outside[0].size();
    std::map<std::vector<void *>, size_t> slotOfColumn;
    std::vector<std::vector<Value>> columns;
    std::vector<size_t> slotOfUse(uses);
    for (size_t u = 0; u < uses; ++u) {
      std::vector<Value> column;
      std::vector<void *> key;
      for (size_t c = 0; c < count; ++c) {
        column.push_back(outside[c][u]);
        key.push_back(outside[c][u].getAsOpaquePointer());
      }
      auto [it, inserted] = slotOfColumn.insert({key, columns.size()});
      if (inserted)
        columns.push_back(column);
      slotOfUse[u] = it->second;
    }
    layout.outside.assign(count, {});
    for (const std::vector<Value> &column : columns) {
      bool constant = llvm::all_of(column, [&](Value v) {
        return cotangent::isClonedConstant(v) && OperationEquivalence::isEquivalentTo(
                                    v.getDefiningOp(), column[0].getDefiningOp(),
                                    OperationEquivalence::IgnoreLocations);
      });
      layout.slotIsConstant.push_back(constant);
      for (size_t c = 0; c < count; ++c)
        layout.outside[c].push_back(column[c]);
    }
    size_t u = 0;
    layout.slotOf.resize(period);
    for (size_t j = 0; j < period; ++j)
      for (const Source &source : sources[j])
        layout.slotOf[j].push_back(source.op < 0 ? static_cast<int64_t>(slotOfUse[u++]) : -1);

    // Results: what some copy's later ops (or the terminator) read.
    for (size_t j = 0; j < period; ++j)
      for (unsigned r = 0; r < ops[start + j]->getNumResults(); ++r) {
        bool escapes = false;
        for (size_t c = 0; c < count && !escapes; ++c) {
          Operation *first = ops[start + c * period], *last = ops[start + c * period + period - 1];
          for (Operation *user : ops[start + c * period + j]->getResult(r).getUsers()) {
            Operation *inBlock = first->getBlock()->findAncestorOpInBlock(*user);
            if (!inBlock || last->isBeforeInBlock(inBlock)) {
              escapes = true;
              break;
            }
          }
        }
        if (escapes)
          layout.results.push_back({j, r});
      }
    return layout;
  }

  func::FuncOp outline(ArrayRef<Operation *> ops, size_t start, size_t period,
                       const Layout &layout) {
    Operation *first = ops[start];
    MLIRContext *ctx = first->getContext();
    Location loc = first->getLoc();
    OpBuilder builder(ctx);

    SmallVector<Type> argumentTypes, resultTypes;
    SmallVector<size_t> argumentSlots;
    for (size_t slot = 0; slot < layout.slotIsConstant.size(); ++slot)
      if (!layout.slotIsConstant[slot]) {
        argumentSlots.push_back(slot);
        argumentTypes.push_back(layout.outside[0][slot].getType());
      }
    for (auto [j, r] : layout.results)
      resultTypes.push_back(ops[start + j]->getResult(r).getType());

    auto fn = func::FuncOp::create(builder, loc, kRepeatName,
                                   FunctionType::get(ctx, argumentTypes, resultTypes));
    // A straight line of allocations and kernel calls, like the step itself
    // (jx-inline-into-c-interface).
    cotangent::markOutOfLine(fn, /*hostCode=*/true);
    Block *entry = fn.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    // Outside values by slot, not by value: two slots may hold the same
    // value in the first copy and others in the next.
    SmallVector<Value> slotValues(layout.slotIsConstant.size());
    for (auto [index, slot] : llvm::enumerate(argumentSlots))
      slotValues[slot] = entry->getArgument(index);
    for (size_t slot = 0; slot < slotValues.size(); ++slot)
      if (layout.slotIsConstant[slot])
        slotValues[slot] = builder.clone(*layout.outside[0][slot].getDefiningOp())->getResult(0);
    IRMapping map;
    for (size_t j = 0; j < period; ++j) {
      Operation *clone = builder.clone(*ops[start + j], map);
      for (auto [k, slot] : llvm::enumerate(layout.slotOf[j]))
        if (slot >= 0)
          clone->setOperand(k, slotValues[slot]);
    }
    SmallVector<Value> returned;
    for (auto [j, r] : layout.results)
      returned.push_back(map.lookup(ops[start + j]->getResult(r)));
    func::ReturnOp::create(builder, loc, returned);
    symbols.insert(fn); // at the module's end, renamed if taken

    // A copy may read an earlier copy's result, now its call's.
    IRMapping replaced;
    for (size_t c = 0; c < layout.count; ++c) {
      ArrayRef<Operation *> copy = ops.slice(start + c * period, period);
      builder.setInsertionPoint(copy.front());
      SmallVector<Value> arguments;
      for (size_t slot : argumentSlots)
        arguments.push_back(replaced.lookupOrDefault(layout.outside[c][slot]));
      auto call = func::CallOp::create(builder, copy.front()->getLoc(), fn, arguments);
      for (auto [index, jr] : llvm::enumerate(layout.results)) {
        Value old = copy[jr.first]->getResult(jr.second);
        old.replaceAllUsesWith(call.getResult(index));
        replaced.map(old, call.getResult(index));
      }
      for (Operation *op : llvm::reverse(copy))
        op->erase();
    }
    // Constants only the copies read (one may serve several copies).
    llvm::SetVector<Operation *> constants;
    for (size_t slot = 0; slot < layout.slotIsConstant.size(); ++slot)
      if (layout.slotIsConstant[slot])
        for (size_t c = 0; c < layout.count; ++c)
          constants.insert(layout.outside[c][slot].getDefiningOp());
    for (Operation *constant : constants)
      if (constant->use_empty())
        constant->erase();
    return fn;
  }

  SymbolTable symbols;
};

class JxOutlineRepeatsPass
    : public cotangent::impl::JxOutlineRepeatsPassBase<JxOutlineRepeatsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    RepeatOutliner outliner(module);
    for (func::FuncOp fn : cotangent::selectFunctions(module, /*function=*/""))
      outliner.outlineIn(fn);
  }
};

} // namespace
