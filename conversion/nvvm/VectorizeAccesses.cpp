//===- VectorizeAccesses.cpp - 16-byte loads and stores in kernels --------===//
//
// A fused elementwise kernel is bound by memory: one thread per element
// issues one 4-byte load per operand, so a warp needs many more memory
// instructions (and registers in flight) for the same bytes than with
// 16-byte accesses. Here each thread of an elementwise loop takes L
// neighbouring elements of the innermost dimension: contiguous operands are
// read and written as one vector, the scalar code runs once per lane in
// between. Only accesses whose alignment follows from their memref type
// (and the views it comes through) are vectorized; the others stay scalar,
// repeated per lane.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUVECTORIZEACCESSESPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

/// The memref and indices of a load or store.
struct Access {
  Value memref;
  ValueRange indices;
};

std::optional<Access> getAccess(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return Access{load.getMemRef(), load.getIndices()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return Access{store.getMemRef(), store.getIndices()};
  return std::nullopt;
}

/// The bytes of an element a vector access may hold: whole bytes of an
/// integer or float (an i1 buffer holds a byte per element, a vector of i1
/// packs bits).
std::optional<int64_t> elementBytes(MemRefType type) {
  Type element = type.getElementType();
  if (!isa<IntegerType, FloatType>(element))
    return std::nullopt;
  unsigned bits = element.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return std::nullopt;
  return bits / 8;
}

/// Whether every `lanes`-element piece that starts at a multiple of `lanes`
/// of the last index is aligned to its size, given a base aligned to it:
/// the offset and every stride but the last (1) are multiples of `lanes`.
bool piecesAligned(MemRefType type, int64_t lanes) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 || ShapedType::isDynamic(offset) || offset % lanes != 0)
    return false;
  for (auto [size, stride] : llvm::zip(type.getShape().drop_back(), ArrayRef(strides).drop_back()))
    if (size != 1 && (ShapedType::isDynamic(stride) || stride % lanes != 0))
      return false;
  return true;
}

/// Whether `memref` starts where the buffer it views does, or `bytes` past
/// it: a memref.view moves the start by a byte shift its result type does
/// not show (every other view's offset is in its type).
bool startAligned(Value memref, int64_t bytes) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto shift = getConstantIntValue(view.getByteShift());
      if (!shift || *shift % bytes != 0)
        return false;
      memref = view.getSource();
    } else if (auto viewLike = dyn_cast<ViewLikeOpInterface>(def)) {
      memref = viewLike.getViewSource();
    } else if (auto cast = dyn_cast<memref::CastOp>(def)) {
      memref = cast.getSource();
    } else {
      break;
    }
  }
  return true;
}

/// One elementwise loop and the plan for it.
struct LoopPlan {
  int64_t lanes = 0;
  /// Loads and stores done as one vector access per iteration.
  llvm::DenseSet<Operation *> vectorized;
  /// Ops whose results do not depend on the innermost induction variable:
  /// done once per iteration, not per lane.
  llvm::DenseSet<Operation *> invariant;
};

/// The plan for `op`, or nothing where it is not an elementwise loop this
/// pass can widen.
std::optional<LoopPlan> planLoop(scf::ParallelOp op, int64_t vectorBytes) {
  if (op.getNumReductions() != 0 || op.getNumLoops() == 0)
    return std::nullopt;
  unsigned last = op.getNumLoops() - 1;
  auto lb = getConstantIntValue(op.getLowerBound()[last]);
  auto ub = getConstantIntValue(op.getUpperBound()[last]);
  auto step = getConstantIntValue(op.getStep()[last]);
  if (!lb || !ub || !step || *lb != 0 || *step != 1)
    return std::nullopt;
  Value iv = op.getInductionVars()[last];

  // Straight code, loads before stores: lane k's loads may then all come
  // first (one vector load) and its stores last (one vector store).
  llvm::DenseSet<Value> dependent{iv};
  LoopPlan plan;
  SmallVector<Operation *> candidates;
  int64_t widest = 0;
  bool stored = false;
  for (Operation &inner : op.getBody()->without_terminator()) {
    auto access = getAccess(&inner);
    if (inner.getNumRegions() != 0 || (!access && !isMemoryEffectFree(&inner)))
      return std::nullopt;
    bool isStore = isa<memref::StoreOp>(inner);
    if (stored && isa<memref::LoadOp>(inner))
      return std::nullopt;
    stored |= isStore;
    if (llvm::none_of(inner.getOperands(), [&](Value v) { return dependent.contains(v); })) {
      if (!isStore)
        plan.invariant.insert(&inner);
      continue;
    }
    for (Value result : inner.getResults())
      dependent.insert(result);
    if (!access || access->indices.empty() || access->indices.back() != iv ||
        llvm::any_of(access->indices.drop_back(), [&](Value v) { return dependent.contains(v); }))
      continue;
    auto type = cast<MemRefType>(access->memref.getType());
    if (auto bytes = elementBytes(type)) {
      widest = std::max(widest, *bytes);
      candidates.push_back(&inner);
    }
  }
  if (candidates.empty() || vectorBytes < 2 * widest)
    return std::nullopt;
  plan.lanes = std::min<int64_t>(vectorBytes / widest, 8);
  while (plan.lanes > 1 && *ub % plan.lanes != 0)
    plan.lanes /= 2;
  if (plan.lanes < 2)
    return std::nullopt;
  for (Operation *access : candidates) {
    Value memref = getAccess(access)->memref;
    auto type = cast<MemRefType>(memref.getType());
    if (piecesAligned(type, plan.lanes) &&
        startAligned(memref, plan.lanes * type.getElementTypeBitWidth() / 8))
      plan.vectorized.insert(access);
  }
  if (plan.vectorized.empty())
    return std::nullopt;
  return plan;
}

/// `op` with `plan.lanes` lanes per iteration of its innermost dimension.
void widenLoop(scf::ParallelOp op, const LoopPlan &plan) {
  int64_t lanes = plan.lanes;
  unsigned last = op.getNumLoops() - 1;
  Location loc = op.getLoc();
  OpBuilder b(op);
  SmallVector<Value> ubs(op.getUpperBound());
  ubs[last] = arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(ubs[last]) / lanes);
  auto wide = scf::ParallelOp::create(b, loc, op.getLowerBound(), ubs, op.getStep());
  b.setInsertionPoint(wide.getBody()->getTerminator());
  // Constants inside the loop, so that they stay constants in the kernel
  // (values from outside become its arguments).
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };

  // Lane k's mapping: the outer induction variables as they are, the
  // innermost one at lanes * i + k.
  Value first = arith::MulIOp::create(b, loc, wide.getInductionVars()[last], index(lanes));
  SmallVector<IRMapping> laneMaps(lanes);
  for (int64_t k = 0; k < lanes; ++k) {
    for (unsigned d = 0; d < last; ++d)
      laneMaps[k].map(op.getInductionVars()[d], wide.getInductionVars()[d]);
    laneMaps[k].map(op.getInductionVars()[last],
                    k == 0 ? first : arith::AddIOp::create(b, loc, first, index(k)));
  }

  for (Operation &inner : op.getBody()->without_terminator()) {
    if (plan.invariant.contains(&inner)) {
      Operation *clone = b.clone(inner, laneMaps[0]);
      for (int64_t k = 1; k < lanes; ++k)
        laneMaps[k].map(inner.getResults(), clone->getResults());
      continue;
    }
    if (!plan.vectorized.contains(&inner)) {
      for (int64_t k = 0; k < lanes; ++k)
        b.clone(inner, laneMaps[k]);
      continue;
    }
    Access access = *getAccess(&inner);
    auto type = cast<MemRefType>(access.memref.getType());
    auto vectorType = VectorType::get({lanes}, type.getElementType());
    llvm::MaybeAlign align(lanes * type.getElementTypeBitWidth() / 8);
    Value memref = laneMaps[0].lookupOrDefault(access.memref);
    SmallVector<Value> indices;
    for (Value index : access.indices)
      indices.push_back(laneMaps[0].lookupOrDefault(index));
    if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      Value vector = vector::LoadOp::create(b, loc, vectorType, memref, indices,
                                            /*nontemporal=*/false, align);
      for (int64_t k = 0; k < lanes; ++k)
        laneMaps[k].map(load.getResult(),
                        vector::ExtractOp::create(b, loc, vector, ArrayRef<int64_t>{k}));
      continue;
    }
    SmallVector<Value> elements;
    for (int64_t k = 0; k < lanes; ++k)
      elements.push_back(laneMaps[k].lookupOrDefault(cast<memref::StoreOp>(inner).getValue()));
    Value vector = vector::FromElementsOp::create(b, loc, vectorType, elements);
    vector::StoreOp::create(b, loc, vector, memref, indices, /*nontemporal=*/false, align);
  }
  op.erase();
}

class JxGpuVectorizeAccessesPass
    : public cotangent::impl::JxGpuVectorizeAccessesPassBase<JxGpuVectorizeAccessesPass> {
public:
  using JxGpuVectorizeAccessesPassBase::JxGpuVectorizeAccessesPassBase;

  void runOnOperation() override {
    if (vectorBytes < 0 || (vectorBytes & (vectorBytes - 1)) != 0) {
      getOperation().emitError("vector-bytes must be 0 or a power of two, got ")
          << static_cast<int64_t>(vectorBytes);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && !op->getParentOfType<gpu::LaunchOp>())
        roots.push_back(op);
    });
    for (scf::ParallelOp op : roots)
      if (auto plan = planLoop(op, vectorBytes))
        widenLoop(op, *plan);
  }
};

} // namespace
