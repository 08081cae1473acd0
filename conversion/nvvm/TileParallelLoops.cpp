//===- TileParallelLoops.cpp - parallel loops shaped into thread blocks ---===//
//
// Each outermost scf.parallel of a function becomes one kernel later on.
// gpu-map-parallel-loops maps loop dimension d of the outer loop to block
// d and of an inner loop to thread d (x, y, z), so this pass decides the
// block shape: it reverses the dimensions (the contiguous one becomes
// thread_x), then tiles with constant inner bounds. A loop that is already
// nested in another parallel loop, has reductions or a non-constant trip
// count is left alone. Dimensions beyond the third are not tiled: they
// become sequential loops inside each thread. A loop that would need more
// than 65535 blocks along y or z (the hardware's limit) is made
// one-dimensional first.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUTILEPARALLELLOOPSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// The hardware's limit on threads per block along x, y and z.
constexpr int64_t kMaxBlockDim[3] = {1024, 1024, 64};

std::optional<int64_t> tripCount(scf::ParallelOp op, unsigned d) {
  auto lb = getConstantIntValue(op.getLowerBound()[d]);
  auto ub = getConstantIntValue(op.getUpperBound()[d]);
  auto step = getConstantIntValue(op.getStep()[d]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
}

/// The hardware's limit on blocks along y and z (x allows 2^31 - 1).
constexpr int64_t kMaxGridYZ = 65535;

/// A one-dimensional copy of `op` (constant bounds, trip counts `trips`,
/// dimension 0 fastest): iteration l is the point whose dimension d index
/// is (l / (trips[0] * ... * trips[d-1])) % trips[d].
scf::ParallelOp linearize(IRRewriter &rewriter, scf::ParallelOp op, ArrayRef<int64_t> trips) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t total = 1;
  for (int64_t trip : trips)
    total *= trip;
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  auto newOp = scf::ParallelOp::create(rewriter, loc, ValueRange{index(0)},
                                       ValueRange{index(total)}, ValueRange{index(1)});
  rewriter.setInsertionPointToStart(newOp.getBody());
  Value rest = newOp.getInductionVars().front();
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < trips.size(); ++d) {
    Value i = rest;
    if (d + 1 < trips.size()) {
      Value size = index(trips[d]);
      i = arith::RemUIOp::create(rewriter, loc, rest, size);
      rest = arith::DivUIOp::create(rewriter, loc, rest, size);
    }
    // lb + step * i
    Value scaled = arith::MulIOp::create(rewriter, loc, i, op.getStep()[d]);
    ivs.push_back(arith::AddIOp::create(rewriter, loc, op.getLowerBound()[d], scaled));
  }
  rewriter.eraseOp(newOp.getBody()->getTerminator());
  rewriter.mergeBlocks(op.getBody(), newOp.getBody(), ivs);
  rewriter.eraseOp(op);
  return newOp;
}

/// A copy of `op` whose dimensions come in reverse order.
scf::ParallelOp reverseDimensions(IRRewriter &rewriter, scf::ParallelOp op) {
  auto reversed = [](ValueRange r) { return llvm::to_vector(llvm::reverse(r)); };
  rewriter.setInsertionPoint(op);
  auto newOp = scf::ParallelOp::create(rewriter, op.getLoc(), reversed(op.getLowerBound()),
                                       reversed(op.getUpperBound()), reversed(op.getStep()));
  rewriter.eraseOp(newOp.getBody()->getTerminator());
  rewriter.mergeBlocks(op.getBody(), newOp.getBody(), reversed(newOp.getInductionVars()));
  rewriter.eraseOp(op);
  return newOp;
}

class JxGpuTileParallelLoopsPass
    : public cotangent::impl::JxGpuTileParallelLoopsPassBase<JxGpuTileParallelLoopsPass> {
public:
  using JxGpuTileParallelLoopsPassBase::JxGpuTileParallelLoopsPassBase;

  /// The block's extent along each dimension (dimension 0 fastest), filled
  /// from thread_x (the contiguous dimension) outwards.
  SmallVector<int64_t> blockShape(ArrayRef<int64_t> trips) const {
    SmallVector<int64_t> tiles(trips.size(), 1);
    int64_t budget = threadsPerBlock;
    for (unsigned d = 0; d < std::min<unsigned>(trips.size(), 3u) && budget > 1; ++d) {
      tiles[d] = std::max<int64_t>(1, std::min({trips[d], budget, kMaxBlockDim[d]}));
      budget /= tiles[d];
    }
    return tiles;
  }

  void runOnOperation() override {
    if (threadsPerBlock < 1 || threadsPerBlock > 1024) {
      getOperation().emitError("threads-per-block must be in [1, 1024], got ")
          << static_cast<int64_t>(threadsPerBlock);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>())
        roots.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp op : roots) {
      unsigned rank = op.getNumLoops();
      if (rank == 0 || op.getNumReductions() != 0)
        continue;
      SmallVector<int64_t> trips;
      for (unsigned d = 0; d < rank; ++d) {
        auto n = tripCount(op, d);
        if (!n)
          break;
        trips.push_back(*n);
      }
      if (trips.size() != rank)
        continue;
      if (rank > 1) {
        op = reverseDimensions(rewriter, op);
        std::reverse(trips.begin(), trips.end());
      }
      SmallVector<int64_t> tiles = blockShape(trips);
      // More blocks along y or z than the hardware launches: one dimension
      // of blocks along x instead, each thread finding its point by
      // division.
      auto blocks = [&](unsigned d) { return (trips[d] + tiles[d] - 1) / tiles[d]; };
      if ((rank > 1 && blocks(1) > kMaxGridYZ) || (rank > 2 && blocks(2) > kMaxGridYZ)) {
        op = linearize(rewriter, op, trips);
        trips = {*tripCount(op, 0)};
        tiles = blockShape(trips);
      }
      scf::tileParallelLoop(op, tiles, /*noMinMaxBounds=*/true);
    }
  }
};

} // namespace
