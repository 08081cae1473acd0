//===- BlockReductions.cpp - one block per reduced element ----------------===//
//
// convert-linalg-to-parallel-loops makes a reduction that keeps some
// dimensions (a row sum, a layer norm's mean, a softmax's max) into a
// parallel loop over the kept dimensions around a sequential nest over the
// reduced ones. As one thread per kept element, a thread walks its row
// alone (and neighbouring threads read far-apart rows). Here each kept
// element gets a block instead: its threads fold strided shares of the
// reduced dimensions and combine them (ElementReduction.h), so a row is read
// by consecutive threads and every element's reduction is parallel.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/ElementReduction.h"
#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUBLOCKREDUCTIONSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;

namespace {

/// The trip counts of `op`, when its bounds are constant from 0 by 1.
std::optional<SmallVector<int64_t>> unitTrips(scf::ParallelOp op) {
  SmallVector<int64_t> trips;
  for (auto [lb, ub, step] : llvm::zip(op.getLowerBound(), op.getUpperBound(), op.getStep())) {
    auto l = getConstantIntValue(lb), u = getConstantIntValue(ub), s = getConstantIntValue(step);
    if (!l || !u || !s || *l != 0 || *s != 1)
      return std::nullopt;
    trips.push_back(*u);
  }
  return trips;
}

class JxGpuBlockReductionsPass
    : public cotangent::impl::JxGpuBlockReductionsPassBase<JxGpuBlockReductionsPass> {
public:
  using JxGpuBlockReductionsPassBase::JxGpuBlockReductionsPassBase;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && !op->getParentOfType<gpu::LaunchOp>())
        roots.push_back(op);
    });
    for (scf::ParallelOp op : roots) {
      // The body: exactly the reduction nest (and the terminator).
      Block *body = op.getBody();
      auto nest = dyn_cast<scf::ForOp>(body->front());
      if (op.getNumReductions() != 0 || !nest || body->getOperations().size() != 2)
        continue;
      auto trips = unitTrips(op);
      auto r = matchElementReduction(nest);
      if (!trips || !r || r->size() < minReduced)
        continue;
      int64_t points = 1;
      for (int64_t trip : *trips)
        points *= trip;
      if (points > (int64_t(1) << 31) - 1)
        continue;
      Location loc = op.getLoc();
      int64_t threads = warpThreads(r->size(), 256);
      OpBuilder b(op);
      gpu::LaunchOp launch = createLaunch(b, loc, threads, points);
      // The block's point of the parallel loop, row-major.
      IRMapping outer;
      Value rest = launch.getBlockIds().x;
      for (size_t d = trips->size() - 1; d > 0; --d) {
        Value size = arith::ConstantIndexOp::create(b, loc, (*trips)[d]);
        outer.map(op.getInductionVars()[d], arith::RemUIOp::create(b, loc, rest, size));
        rest = arith::DivUIOp::create(b, loc, rest, size);
      }
      outer.map(op.getInductionVars().front(), rest);
      Value tid = launch.getThreadIds().x;
      emitBlockReduction(b, *r, outer, tid, tid, arith::ConstantIndexOp::create(b, loc, threads),
                         std::nullopt);
      op.erase();
    }
  }
};

} // namespace
