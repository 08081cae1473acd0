//===- FuseElementwise.cpp - elementwise fusion that keeps matmuls --------===//
//
// Upstream's elementwise fusion patterns with the same single-use control as
// linalg-fuse-elementwise-ops, minus the reshape-by-expansion patterns (see
// the pass description in LoweringPasses.td for why), plus one that fuses a
// producer whose value the function also returns (a residual the backward
// reads): the fused op writes that value as one more result, so a forward's
// chain is one loop nest (one kernel on a GPU) however many of its values
// are kept, and nothing is computed twice.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXFUSEELEMENTWISEPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// The most body ops a producer may have to be computed again in each of
/// its consumers: a few arithmetic ops and a transcendental or two (GELU's
/// tanh and its polynomial), never a long chain copied many times.
constexpr size_t kCheapBodyOps = 16;

/// Whether `producer`, used several times, is cheap to compute again in each
/// consumer and doing so frees its buffer without keeping more alive: every
/// loop parallel, every use an elementwise fusion into a generic in its block,
/// a small body, and at most one input read in full (the others broadcast),
/// so that its inputs, now live until the last consumer, hold no more than
/// its own buffer did. This is what keeps a backward's shared values (GELU's
/// recomputed tanh, the cotangent an add passes to both operands) out of
/// memory, as XLA's fusion duplicates cheap producers.
bool cheapToDuplicate(linalg::GenericOp producer) {
  if (producer.getNumLoops() != producer.getNumParallelLoops() ||
      producer.getNumDpsInits() != 1 ||
      producer.getBody()->getOperations().size() > kCheapBodyOps + 1)
    return false;
  llvm::SmallPtrSet<Value, 2> full;
  for (OpOperand *input : producer.getDpsInputOperands())
    if (producer.getMatchingIndexingMap(input).isPermutation())
      full.insert(input->get());
  if (full.size() > 1)
    return false;
  return llvm::all_of(producer->getUses(), [&](OpOperand &use) {
    auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
    return consumer && consumer->getBlock() == producer->getBlock() &&
           linalg::areElementwiseOpsFusable(&use);
  });
}

/// Upstream's control (a producer with one use goes into its consumer), and
/// a cheap producer with several uses goes into each of them.
bool singleUseOrCheap(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer)
    return false;
  if (producer->hasOneUse())
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  return generic && cheapToDuplicate(generic);
}

/// Whether the producer of `fused`, which has other uses, can go into its
/// consumer with the fused op writing the producer's value as one more
/// result: the consumer is elementwise (all loops parallel) and reads the
/// value element for element (a permutation, not a broadcast), and the other
/// uses are the function's results (a forward's residuals and outputs), which
/// the fused op, placed at the consumer, dominates. Values used again inside
/// the function are left to upstream's rule: fusing those would also shrink
/// a backward's working set when it rebuilds values, which the memory_budget
/// MILP's bound takes as fixed (passes/remat/MemoryBudget.h).
bool keepsValue(OpOperand *fused) {
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!producer || !consumer || producer->hasOneUse() || consumer.getNumReductionLoops() != 0 ||
      !consumer.getMatchingIndexingMap(fused).isPermutation() ||
      !linalg::areElementwiseOpsFusable(fused))
    return false;
  return llvm::all_of(producer->getUsers(), [&](Operation *user) {
    return user == consumer ||
           (isa<func::ReturnOp>(user) && user->getBlock() == consumer->getBlock());
  });
}

/// Upstream's pattern fuses a copy of a producer that has other uses (its
/// value is then computed twice: a residual and the chain that goes on from
/// it are two loop nests, two kernels on a GPU). This one moves the producer
/// into the consumer and lets the later uses read the fused op's result.
struct FuseKeepingValue : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (!keepsValue(&operand))
        continue;
      Operation *producer = operand.get().getDefiningOp();
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }
};

class JxFuseElementwisePass
    : public cotangent::impl::JxFuseElementwisePassBase<JxFuseElementwisePass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, singleUseOrCheap);
    patterns.add<FuseKeepingValue>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
