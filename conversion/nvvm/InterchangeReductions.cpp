//===- InterchangeReductions.cpp - kept dimensions outermost -------------===//
//
// convert-linalg-to-parallel-loops keeps a linalg op's loop order: its
// leading parallel dimensions become an scf.parallel, and what follows a
// reduced dimension stays sequential. A sum over rows (a bias or layer norm
// parameter's gradient: reduced dimension 0, kept dimension 1) therefore
// became a host loop over the rows launching a kernel per row: 256 launches
// of two blocks each for one 256x512 gradient, most of a transformer step's
// time. With the kept dimensions moved first, the op is one parallel loop
// over them around the reduction, which jx-gpu-block-reductions gives one
// block per kept element.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUINTERCHANGEREDUCTIONSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// The loop order with the parallel dimensions first, each group in its
/// order; empty when they already are.
SmallVector<unsigned> keptFirst(linalg::LinalgOp op) {
  SmallVector<unsigned> parallel, reduced;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    (type == utils::IteratorType::parallel ? parallel : reduced).push_back(d);
  if (parallel.empty() || reduced.empty() || reduced.front() > parallel.back())
    return {};
  parallel.append(reduced);
  return parallel;
}

class JxGpuInterchangeReductionsPass
    : public cotangent::impl::JxGpuInterchangeReductionsPassBase<
          JxGpuInterchangeReductionsPass> {
public:
  void runOnOperation() override {
    // Generalizing keeps the loop order, so each op's new order is known upfront.
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (SmallVector<unsigned> order = keptFirst(op); !order.empty())
        ops.emplace_back(op, std::move(order));
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : ops) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> general = linalg::generalizeNamedOp(rewriter, op);
        if (failed(general)) {
          op->emitError("jx-gpu-interchange-reductions: cannot generalize this op");
          return signalPassFailure();
        }
        generic = *general;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic->emitError("jx-gpu-interchange-reductions: cannot interchange its loops");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
