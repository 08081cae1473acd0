//===- ParallelScatters.cpp - a scatter-add's index loop inside one kernel -===//
//
// See JxGpuParallelScattersPass in GpuPasses.td: the host loop over a
// scatter-add's indices, whose body adds one row in place, becomes a
// parallel loop over the row's elements around the loop over the indices,
// so that it runs as one kernel instead of a launch (and a read of the
// index back to the host) per index.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringUtils.h"
#include "conversion/nvvm/GpuPasses.h"
#include "conversion/nvvm/HostMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUPARALLELSCATTERSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
namespace lowering = mlir::cotangent::lowering;

namespace {

/// A row view: a subview whose every dimension is either kept whole (offset
/// 0, the source's full static size, stride 1) or dropped (size 1), so that
/// two rows' elements at different positions are different elements.
bool isRowView(memref::SubViewOp view) {
  auto source = cast<MemRefType>(view.getSource().getType());
  llvm::SmallBitVector dropped = view.getDroppedDims();
  for (int64_t d = 0; d < source.getRank(); ++d) {
    std::optional<int64_t> size = getConstantIntValue(view.getMixedSizes()[d]);
    if (dropped.test(d)) {
      if (size != 1)
        return false;
      continue;
    }
    if (getConstantIntValue(view.getMixedOffsets()[d]) != 0 ||
        getConstantIntValue(view.getMixedStrides()[d]) != 1 || source.isDynamicDim(d) ||
        size != source.getDimSize(d))
      return false;
  }
  return true;
}

/// Whether `op`'s accesses to a memref `written` holds are at exactly
/// `ivs` of a row view defined in `loop`.
bool indexesRowAt(Value memref, ValueRange indices, ValueRange ivs, scf::ForOp loop) {
  auto view = memref.getDefiningOp<memref::SubViewOp>();
  return view && view->getParentOp() == loop && isRowView(view) &&
         llvm::equal(indices, ivs);
}

/// The loop's single scf.parallel (null if it has none), or failure when
/// its body is not of the scatter form.
FailureOr<scf::ParallelOp> scatterShape(scf::ForOp loop,
                                        const llvm::DenseSet<Operation *> &host) {
  if (loop.getNumResults() != 0)
    return failure();
  // Stores go to views the loop makes (a scatter's rows), never to a buffer
  // itself (a reduction's element), and nothing touched is the host's.
  bool deviceRows = true;
  loop.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      auto view = store.getMemref().getDefiningOp<memref::SubViewOp>();
      deviceRows &= view && loop->isAncestor(view) &&
                    !mlir::cotangent::isHostMemory(lowering::originOf(view), host);
    } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
      deviceRows &= !mlir::cotangent::isHostMemory(lowering::originOf(load.getMemref()), host);
    }
  });
  if (!deviceRows)
    return failure();
  scf::ParallelOp inner;
  llvm::SmallPtrSet<Value, 4> written;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (auto p = dyn_cast<scf::ParallelOp>(op)) {
      if (inner || p->getParentOp() != loop || p.getNumResults() != 0)
        return WalkResult::interrupt();
      inner = p;
      return WalkResult::advance();
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      written.insert(lowering::originOf(store.getMemref()));
      return WalkResult::advance();
    }
    if (isa<scf::ForOp>(op) || (op->getNumRegions() > 0 && !isa<scf::ReduceOp>(op)))
      return WalkResult::interrupt();
    if (isa<memref::LoadOp, scf::YieldOp, scf::ReduceOp>(op) || isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt(); // allocations, copies, calls: not a scatter row
  });
  if (walk.wasInterrupted() || written.empty())
    return failure();
  // Without a parallel row loop the whole loop runs in one thread: any
  // order of its own accesses is kept. With one, threads must own their
  // elements: every access to a written buffer is a row view at the IVs.
  if (!inner)
    return scf::ParallelOp();
  for (Value bound : llvm::concat<Value>(inner.getLowerBound(), inner.getUpperBound(),
                                         inner.getStep()))
    if (loop->isAncestor(bound.getParentBlock()->getParentOp()))
      return failure();
  ValueRange ivs = inner.getInductionVars();
  bool owned = true;
  loop.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op))
      owned &= inner->isAncestor(op) &&
               indexesRowAt(store.getMemref(), store.getIndices(), ivs, loop);
    else if (auto load = dyn_cast<memref::LoadOp>(op);
             load && written.count(lowering::originOf(load.getMemref())))
      owned &= inner->isAncestor(op) &&
               indexesRowAt(load.getMemref(), load.getIndices(), ivs, loop);
  });
  if (!owned)
    return failure();
  return inner;
}

/// scf.parallel (row) { scf.for (indices) { prefix; row body } }.
void turnInsideOut(scf::ForOp loop, scf::ParallelOp inner) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto outer = scf::ParallelOp::create(b, inner.getLoc(), inner.getLowerBound(),
                                       inner.getUpperBound(), inner.getStep());
  b.setInsertionPointToStart(outer.getBody());
  auto serial = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                                   loop.getStep());
  b.setInsertionPointToStart(serial.getBody());
  IRMapping map;
  map.map(loop.getInductionVar(), serial.getInductionVar());
  map.map(inner.getInductionVars(), outer.getInductionVars());
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op != inner.getOperation()) {
      b.clone(op, map);
      continue;
    }
    for (Operation &rowOp : inner.getBody()->without_terminator())
      b.clone(rowOp, map);
  }
  loop.erase();
}

/// scf.parallel (one point) { the loop }: one thread runs it in order.
void runInOneThread(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto single = scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{one}, ValueRange{one});
  loop->moveBefore(single.getBody()->getTerminator());
}

struct ParallelScatters
    : mlir::cotangent::impl::JxGpuParallelScattersPassBase<ParallelScatters> {
  void runOnOperation() override {
    // Outermost host loops only: a loop already inside a parallel loop is
    // device code.
    llvm::DenseSet<Operation *> host = mlir::cotangent::hostFunctions(getOperation());
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      auto fn = loop->getParentOfType<func::FuncOp>();
      if (!fn || host.contains(fn))
        return;
      if (!loop->getParentOfType<scf::ParallelOp>() && !loop->getParentOfType<scf::ForOp>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      FailureOr<scf::ParallelOp> inner = scatterShape(loop, host);
      if (failed(inner))
        continue;
      if (*inner)
        turnInsideOut(loop, *inner);
      else
        runInOneThread(loop);
    }
  }
};

} // namespace
