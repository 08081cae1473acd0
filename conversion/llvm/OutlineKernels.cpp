//===- OutlineKernels.cpp - one function per loop-nest structure ----------===//
//
// See JxOutlineKernelsPass in LoweringPasses.td. Kernels of the same
// structure (KernelStructure.h) are outlined once.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/KernelStructure.h"
#include "conversion/llvm/OutOfLine.h"
#include "passes/SelectFunctions.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXOUTLINEKERNELSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kKernelName = "jx_kernel";

bool isLoopNest(Operation *op) {
  return op->getNumRegions() > 0 && (isa<LoopLikeOpInterface>(op) || isa<omp::ParallelOp>(op));
}

/// Branches whose loop nests are outlined one by one (the branch itself
/// stays in the caller: its predicate is the caller's).
bool isBranching(Operation *op) { return isa<scf::IfOp, scf::IndexSwitchOp>(op); }

/// Outlines the loop nests and library calls of a module's functions into
/// the module's kernels, one per structure.
class KernelOutliner {
public:
  explicit KernelOutliner(ModuleOp module) : symbols(module) {}

  void outlineIn(Region &region) {
    for (Block &block : region)
      for (Operation &op : llvm::make_early_inc_range(block)) {
        if (isLoopNest(&op) || isLibraryCall(&op))
          outline(&op);
        else if (isBranching(&op))
          for (Region &branch : op.getRegions())
            outlineIn(branch);
      }
  }

private:
  /// A call of an external function on buffers (a BLAS call): its C
  /// interface packs a descriptor of each buffer on the stack, once per call
  /// site, which in a 64-layer step is most of the caller's code.
  bool isLibraryCall(Operation *op) {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call || !llvm::any_of(call.getOperandTypes(), llvm::IsaPred<MemRefType>))
      return false;
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    return callee && callee.isExternal();
  }

  /// Replaces `nest` by a call to the kernel holding it.
  void outline(Operation *nest) {
    // What the nest reads from outside: its operands and the values its
    // regions use, in order of first use. Constants are cloned in.
    llvm::SetVector<Value> used(nest->operand_begin(), nest->operand_end());
    getUsedValuesDefinedAbove(nest->getRegions(), used);
    SmallVector<Value> arguments;
    SmallVector<Operation *> constants;
    for (Value v : used) {
      if (cotangent::isClonedConstant(v))
        constants.push_back(v.getDefiningOp());
      else
        arguments.push_back(v);
    }

    MLIRContext *ctx = nest->getContext();
    Location loc = nest->getLoc();
    OpBuilder builder(ctx);
    auto type = FunctionType::get(ctx, ValueRange(arguments).getTypes(), nest->getResultTypes());
    auto kernel = func::FuncOp::create(builder, loc, kKernelName, type);
    cotangent::markOutOfLine(kernel);
    Block *entry = kernel.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping map;
    map.map(arguments, entry->getArguments());
    // One clone per distinct constant, so that nests written with other
    // (but equal) constants compare equal.
    llvm::DenseMap<std::pair<Attribute, Type>, Value> cloned;
    for (Operation *constant : constants) {
      Value &inKernel =
          cloned[{constant->getAttrDictionary(), constant->getResult(0).getType()}];
      if (!inKernel)
        inKernel = builder.clone(*constant)->getResult(0);
      map.map(constant->getResult(0), inKernel);
    }
    Operation *body = builder.clone(*nest, map);
    func::ReturnOp::create(builder, loc, body->getResults());

    func::FuncOp callee = findOrInsert(kernel);
    builder.setInsertionPoint(nest);
    auto call = func::CallOp::create(builder, loc, callee, arguments);
    nest->replaceAllUsesWith(call.getResults());
    nest->erase();
    for (Operation *constant : constants)
      if (constant->use_empty())
        constant->erase();
  }

  /// The kernel equal to `kernel` if one was made already (then `kernel` is
  /// erased), else `kernel`, now in the module.
  func::FuncOp findOrInsert(func::FuncOp kernel) {
    auto hash = static_cast<size_t>(cotangent::structuralHash(kernel));
    llvm::SmallVector<func::FuncOp> &bucket = kernels[hash];
    for (func::FuncOp existing : bucket)
      if (cotangent::sameStructure(existing, kernel)) {
        kernel.erase();
        return existing;
      }
    symbols.insert(kernel); // at the module's end, renamed if taken
    bucket.push_back(kernel);
    return kernel;
  }

  SymbolTable symbols;
  llvm::DenseMap<size_t, llvm::SmallVector<func::FuncOp>> kernels;
};

class JxOutlineKernelsPass
    : public cotangent::impl::JxOutlineKernelsPassBase<JxOutlineKernelsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    KernelOutliner outliner(module);
    for (func::FuncOp fn : cotangent::selectFunctions(module, /*function=*/""))
      outliner.outlineIn(fn.getBody());
  }
};

} // namespace
