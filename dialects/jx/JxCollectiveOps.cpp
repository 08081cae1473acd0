//===- JxCollectiveOps.cpp - verifiers of the collectives -----------------===//
//
// A collective names its mesh axis; all_gather and psum_scatter carry the
// axis's size and check their result's shape against it; ppermute's pairs
// are ranks, none a source or a destination twice.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxCollectiveOps.h"
#include "dialects/jx/JxOps.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::jx;

namespace {

LogicalResult verifyAxisName(Operation *op, StringRef axis) {
  if (axis.empty())
    return op->emitOpError("needs a mesh axis name");
  return success();
}

/// all_gather's and psum_scatter's shapes: `whole` is the gathered (or
/// summed) side, `part` one rank's; `dimension` is where they differ.
LogicalResult verifyGatherShapes(Operation *op, RankedTensorType part, RankedTensorType whole,
                                 int64_t axisSize, int64_t dimension, bool tiled) {
  if (axisSize < 1)
    return op->emitOpError("axis_size must be at least 1, got ") << axisSize;
  if (part.getElementType() != whole.getElementType())
    return op->emitOpError("operand and result must have one element type, got ")
           << part.getElementType() << " and " << whole.getElementType();
  SmallVector<int64_t> expected(part.getShape());
  if (tiled) {
    if (dimension < 0 || dimension >= part.getRank())
      return op->emitOpError("dimension ") << dimension << " is not one of the "
                                           << part.getRank() << " dimensions of " << part;
    expected[dimension] *= axisSize;
  } else {
    if (dimension < 0 || dimension > part.getRank())
      return op->emitOpError("dimension ") << dimension << " is not a place to insert an axis of "
                                           << part;
    expected.insert(expected.begin() + dimension, axisSize);
  }
  if (whole.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError("the gathered side must be ")
           << RankedTensorType::get(expected, part.getElementType()) << " (" << axisSize
           << " ranks of " << part << (tiled ? ", tiled" : "") << " along dimension "
           << dimension << "), got " << whole;
  return success();
}

} // namespace

bool mlir::jx::isCollective(Operation *op) {
  return isa<PsumOp, PmeanOp, AllGatherOp, PsumScatterOp, PpermuteOp, AxisIndexOp>(op);
}

LogicalResult mlir::jx::checkGroupSize(Operation *root, int64_t ranks, const char *launch) {
  WalkResult walk = root->walk([&](Operation *op) {
    std::optional<int64_t> size;
    if (auto gather = dyn_cast<AllGatherOp>(op))
      size = gather.getAxisSize();
    if (auto scatter = dyn_cast<PsumScatterOp>(op))
      size = scatter.getAxisSize();
    if (size && *size != ranks) {
      op->emitError() << "axis_size is " << *size << " but the group has " << ranks << " rank"
                      << (ranks == 1 ? "" : "s") << " (" << launch << ")";
      return WalkResult::interrupt();
    }
    if (auto permute = dyn_cast<PpermuteOp>(op))
      for (int64_t r : permute.getPerm())
        if (r >= ranks) {
          op->emitError() << "perm names rank " << r << " of a group of " << ranks << " rank"
                          << (ranks == 1 ? "" : "s") << " (" << launch << ")";
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult PsumOp::verify() { return verifyAxisName(*this, getAxisName()); }

LogicalResult PmeanOp::verify() { return verifyAxisName(*this, getAxisName()); }

LogicalResult AxisIndexOp::verify() { return verifyAxisName(*this, getAxisName()); }

LogicalResult AllGatherOp::verify() {
  if (failed(verifyAxisName(*this, getAxisName())))
    return failure();
  return verifyGatherShapes(*this, getOperand().getType(), getResult().getType(), getAxisSize(),
                            getDimension(), getTiled());
}

LogicalResult PsumScatterOp::verify() {
  if (failed(verifyAxisName(*this, getAxisName())))
    return failure();
  return verifyGatherShapes(*this, getResult().getType(), getOperand().getType(), getAxisSize(),
                            getDimension(), getTiled());
}

LogicalResult PpermuteOp::verify() {
  if (failed(verifyAxisName(*this, getAxisName())))
    return failure();
  ArrayRef<int64_t> perm = getPerm();
  if (perm.size() % 2 != 0)
    return emitOpError("perm must list (source, destination) pairs, got ")
           << perm.size() << " ranks";
  llvm::DenseSet<int64_t> sources, destinations;
  for (size_t i = 0; i < perm.size(); i += 2) {
    int64_t from = perm[i], to = perm[i + 1];
    if (from < 0 || to < 0)
      return emitOpError("perm's ranks must not be negative, got (") << from << ", " << to << ")";
    if (!sources.insert(from).second)
      return emitOpError("rank ") << from << " is a source twice in perm";
    if (!destinations.insert(to).second)
      return emitOpError("rank ") << to << " is a destination twice in perm";
  }
  return success();
}
