//===- ParallelLoops.cpp - parallel loops where the work pays for threads -===//
//
// See JxParallelLoopsPass in LoweringPasses.td. The parallel dimensions kept
// are a prefix of the loop's, so a thread's share is a contiguous block of
// rows and the inner loops walk memory in order. The loops kept parallel then
// go through upstream's convert-scf-to-openmp.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Pass/PassManager.h"

#include <optional>

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXPARALLELLOOPSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// The trip count of a loop dimension whose bounds and step are constants.
std::optional<int64_t> tripCount(Value lb, Value ub, Value step) {
  auto l = getConstantIntValue(lb), u = getConstantIntValue(ub), s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::nullopt;
  return *u > *l ? (*u - *l + *s - 1) / *s : 0;
}

/// Elements of work in `op`: its iterations times the trip count of the
/// longest static loop nested in it (a lower bound: nested loops are not
/// multiplied out); nullopt when `op`'s own bounds are dynamic.
std::optional<int64_t> staticWork(scf::ParallelOp op) {
  int64_t work = 1;
  for (auto [lb, ub, step] : llvm::zip(op.getLowerBound(), op.getUpperBound(), op.getStep())) {
    auto n = tripCount(lb, ub, step);
    if (!n)
      return std::nullopt;
    work *= *n;
  }
  int64_t inner = 1;
  op.getBody()->walk([&](Operation *nested) {
    if (auto loop = dyn_cast<scf::ForOp>(nested)) {
      if (auto n = tripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
        inner = std::max(inner, *n);
    } else if (auto par = dyn_cast<scf::ParallelOp>(nested)) {
      int64_t n = 1;
      for (auto [lb, ub, step] :
           llvm::zip(par.getLowerBound(), par.getUpperBound(), par.getStep()))
        n *= tripCount(lb, ub, step).value_or(1);
      inner = std::max(inner, n);
    }
  });
  return work * inner;
}

/// Replaces dimensions [first, end) of `op` by scf.for loops around its body
/// (all of them when first == 0: the scf.parallel is erased). `op` has no
/// reductions (linalg's parallel loops never do).
void serialize(scf::ParallelOp op, unsigned first) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned rank = op.getNumLoops();
  SmallVector<Value> ivs(rank);
  Block *body = op.getBody();
  OpBuilder inner(op);
  scf::ParallelOp kept;
  if (first > 0) {
    kept = scf::ParallelOp::create(b, loc, op.getLowerBound().take_front(first),
                                     op.getUpperBound().take_front(first),
                                     op.getStep().take_front(first));
    for (unsigned d = 0; d < first; ++d)
      ivs[d] = kept.getInductionVars()[d];
    inner.setInsertionPoint(kept.getBody()->getTerminator());
  }
  for (unsigned d = first; d < rank; ++d) {
    auto loop = scf::ForOp::create(inner, loc, op.getLowerBound()[d], op.getUpperBound()[d],
                                         op.getStep()[d]);
    ivs[d] = loop.getInductionVar();
    inner.setInsertionPoint(loop.getBody()->getTerminator());
  }
  // Move the body's operations (not its scf.reduce terminator) into the new nest.
  Block *target = inner.getInsertionBlock();
  for (auto [arg, iv] : llvm::zip(body->getArguments(), ivs))
    arg.replaceAllUsesWith(iv);
  target->getOperations().splice(Block::iterator(inner.getInsertionPoint()),
                                 body->getOperations(), body->begin(),
                                 std::prev(body->end()));
  op.erase();
}

/// convert-scf-to-openmp wraps each loop body in a memref.alloca_scope, which
/// must stay one block, so the scf.for loops inside could not be lowered to
/// branches. Bodies from linalg allocate nothing on the stack: the scopes go.
void inlineAllocaScopes(ModuleOp module) {
  SmallVector<memref::AllocaScopeOp> scopes;
  module.walk([&](memref::AllocaScopeOp scope) {
    bool allocates = false;
    scope.getBodyRegion().walk([&](memref::AllocaOp alloca) {
      allocates |= alloca->getParentOfType<memref::AllocaScopeOp>() == scope;
    });
    if (!allocates && scope->getNumResults() == 0)
      scopes.push_back(scope);
  });
  for (memref::AllocaScopeOp scope : scopes) {
    Block &body = scope.getBodyRegion().front();
    scope->getBlock()->getOperations().splice(Block::iterator(scope), body.getOperations(),
                                              body.begin(), std::prev(body.end()));
    scope.erase();
  }
}

class JxParallelLoopsPass
    : public cotangent::impl::JxParallelLoopsPassBase<JxParallelLoopsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp fn) { select(fn); });
    if (!openmp)
      return;
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createConvertSCFToOpenMPPass());
    if (failed(runPipeline(pm, getOperation())))
      return signalPassFailure();
    inlineAllocaScopes(getOperation());
  }

private:
  void select(func::FuncOp fn) {
    SmallVector<scf::ParallelOp> outermost, nested;
    fn.walk([&](scf::ParallelOp op) {
      if (!op.getInitVals().empty())
        return; // reductions: left to scf-to-openmp's reduction support
      (op->getParentOfType<scf::ParallelOp>() ? nested : outermost).push_back(op);
    });
    // Inner ones first: serializing an outer loop moves them.
    for (scf::ParallelOp op : llvm::reverse(nested))
      serialize(op, 0);
    for (scf::ParallelOp op : outermost) {
      std::optional<int64_t> work = staticWork(op);
      if (!work || *work < minWork) {
        serialize(op, 0);
        continue;
      }
      // The shortest prefix of dimensions with minChunks iterations.
      unsigned keep = 0;
      int64_t chunks = 1;
      while (keep < op.getNumLoops() && chunks < minChunks) {
        chunks *= tripCount(op.getLowerBound()[keep], op.getUpperBound()[keep],
                            op.getStep()[keep])
                      .value_or(1);
        ++keep;
      }
      if (keep < op.getNumLoops())
        serialize(op, keep);
    }
  }
};

} // namespace
