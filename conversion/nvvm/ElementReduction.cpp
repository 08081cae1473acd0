//===- ElementReduction.cpp - reductions into one element, by blocks ------===//

#include "conversion/nvvm/ElementReduction.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace mlir::cotangent {

namespace {

std::optional<std::pair<gpu::AllReduceOperation, arith::AtomicRMWKind>>
reductionKind(Operation *op) {
  using G = gpu::AllReduceOperation;
  using A = arith::AtomicRMWKind;
  return llvm::TypeSwitch<Operation *,
                          std::optional<std::pair<gpu::AllReduceOperation, A>>>(op)
      .Case([](arith::AddFOp) { return std::pair(G::ADD, A::addf); })
      .Case([](arith::MulFOp) { return std::pair(G::MUL, A::mulf); })
      .Case([](arith::MaximumFOp) { return std::pair(G::MAXIMUMF, A::maximumf); })
      .Case([](arith::MinimumFOp) { return std::pair(G::MINIMUMF, A::minimumf); })
      .Case([](arith::MaxNumFOp) { return std::pair(G::MAXNUMF, A::maxnumf); })
      .Case([](arith::MinNumFOp) { return std::pair(G::MINNUMF, A::minnumf); })
      .Case([](arith::AddIOp) { return std::pair(G::ADD, A::addi); })
      .Case([](arith::MulIOp) { return std::pair(G::MUL, A::muli); })
      .Case([](arith::MaxSIOp) { return std::pair(G::MAXSI, A::maxs); })
      .Case([](arith::MinSIOp) { return std::pair(G::MINSI, A::mins); })
      .Case([](arith::MaxUIOp) { return std::pair(G::MAXUI, A::maxu); })
      .Case([](arith::MinUIOp) { return std::pair(G::MINUI, A::minu); })
      .Case([](arith::OrIOp) { return std::pair(G::OR, A::ori); })
      .Case([](arith::XOrIOp) { return std::pair(G::XOR, A::xori); })
      .Default([](Operation *) { return std::nullopt; });
}

/// `combine` applied to `lhs` and `rhs` (a clone of the matched op).
Value recombine(OpBuilder &b, Operation *combine, Value lhs, Value rhs) {
  IRMapping map;
  map.map(combine->getOperand(0), lhs);
  map.map(combine->getOperand(1), rhs);
  return b.clone(*combine, map)->getResult(0);
}

} // namespace

int64_t ElementReduction::size() const {
  int64_t total = 1;
  for (int64_t trip : trips)
    total *= trip;
  return total;
}

std::optional<ElementReduction> matchElementReduction(scf::ForOp outer) {
  ElementReduction r;
  for (scf::ForOp loop = outer; loop;) {
    auto lb = getConstantIntValue(loop.getLowerBound());
    auto ub = getConstantIntValue(loop.getUpperBound());
    auto step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *lb != 0 || *step != 1 || loop.getNumResults() != 0)
      return std::nullopt;
    r.loops.push_back(loop);
    r.trips.push_back(*ub);
    Block *body = loop.getBody();
    auto inner = dyn_cast<scf::ForOp>(body->front());
    loop = inner && body->getOperations().size() == 2 ? inner : scf::ForOp();
  }
  Block *body = r.loops.back().getBody();
  auto stores = llvm::to_vector(body->getOps<memref::StoreOp>());
  if (stores.size() != 1)
    return std::nullopt;
  r.store = stores.front();
  auto invariant = [&](Value v) { return !outer->isAncestor(v.getParentRegion()->getParentOp()); };
  if (!llvm::all_of(r.store.getIndices(), invariant) || !invariant(r.store.getMemRef()))
    return std::nullopt;
  r.combine = r.store.getValueToStore().getDefiningOp();
  if (!r.combine || r.combine->getBlock() != body || r.combine->getNumOperands() != 2 ||
      !r.combine->hasOneUse())
    return std::nullopt;
  auto kind = reductionKind(r.combine);
  if (!kind)
    return std::nullopt;
  std::tie(r.kind, r.identity) = *kind;
  for (unsigned i = 0; i < 2; ++i) {
    auto load = r.combine->getOperand(i).getDefiningOp<memref::LoadOp>();
    if (load && load.getMemRef() == r.store.getMemRef() &&
        load.getIndices() == r.store.getIndices() && load->hasOneUse()) {
      r.load = load;
      r.value = r.combine->getOperand(1 - i);
    }
  }
  if (!r.load || r.value.getDefiningOp() == r.load)
    return std::nullopt;
  return r;
}

gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t threads, int64_t blocks) {
  return createLaunch(b, loc, threads, arith::ConstantIndexOp::create(b, loc, blocks));
}

gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t threads, Value grid) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value block = arith::ConstantIndexOp::create(b, loc, threads);
  auto launch = gpu::LaunchOp::create(b, loc, grid, one, one, block, one, one);
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  return launch;
}

void emitBlockReduction(OpBuilder &b, ElementReduction r, const IRMapping &outer,
                        Value tid, Value start, Value stride,
                        std::optional<arith::AtomicRMWKind> atomic) {
  Location loc = r.store.getLoc();
  Value identity = arith::getIdentityValue(r.identity, r.value.getType(), b, loc);
  Value end = arith::ConstantIndexOp::create(b, loc, r.size());
  auto share = scf::ForOp::create(
      b, loc, start, end, stride, ValueRange{identity},
      [&](OpBuilder &nb, Location nloc, Value flat, ValueRange acc) {
        IRMapping map = outer;
        // Row-major: the innermost loop varies fastest, as in the nest.
        Value rest = flat;
        for (size_t d = r.loops.size() - 1; d > 0; --d) {
          Value size = arith::ConstantIndexOp::create(nb, nloc, r.trips[d]);
          map.map(r.loops[d].getInductionVar(), arith::RemUIOp::create(nb, nloc, rest, size));
          rest = arith::DivUIOp::create(nb, nloc, rest, size);
        }
        map.map(r.loops.front().getInductionVar(), rest); // below its trip count
        for (Operation &op : r.loops.back().getBody()->without_terminator())
          if (&op != r.load.getOperation() && &op != r.combine && &op != r.store.getOperation())
            nb.clone(op, map);
        Value next = recombine(nb, r.combine, acc[0], map.lookupOrDefault(r.value));
        scf::YieldOp::create(nb, nloc, next);
      });
  Value sum = gpu::AllReduceOp::create(b, loc, share.getResult(0),
                                       gpu::AllReduceOperationAttr::get(b.getContext(), r.kind),
                                       /*uniform=*/true);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
  SmallVector<Value> indices;
  for (Value index : r.store.getIndices())
    indices.push_back(outer.lookupOrDefault(index));
  Value memref = outer.lookupOrDefault(r.store.getMemRef());
  scf::IfOp::create(b, loc, first, [&](OpBuilder &tb, Location tloc) {
    if (atomic) {
      memref::AtomicRMWOp::create(tb, tloc, *atomic, sum, memref, indices);
    } else {
      Value old = memref::LoadOp::create(tb, tloc, memref, indices);
      Value updated = recombine(tb, r.combine, old, sum);
      memref::StoreOp::create(tb, tloc, updated, memref, indices);
    }
    scf::YieldOp::create(tb, tloc);
  });
}

} // namespace mlir::cotangent
