//===- ControlFlowPatterns.cpp - jx regions to scf, remat structure away --===//
//
// jx.scan becomes an `scf.for` whose tensor iter_args are the carry and the
// stacked ys (each starting as an empty tensor): each iteration extracts
// its x slices, runs the body in place and writes its ys with
// `tensor.insert_slice`. jx.cond becomes `scf.if` (boolean index, false
// picks branch 0) or `scf.index_switch` (i32 index, clamped; the last branch
// is the default); jx.while becomes `scf.while`. jx.remat is inlined,
// jx.checkpoint_name and jx.stop_gradient are the identity, and
// jx.optimization_barrier becomes a call to an external function with
// read-only arguments (see LowerOptimizationBarriers.cpp for its end).
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"
#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::cotangent::lowering;

namespace {

/// Moves `source` (a jx region's block ending in jx.yield) to the end of
/// `dest`, its arguments replaced by `args`, and returns its yield.
jx::YieldOp moveBlock(ConversionPatternRewriter &rewriter, Block &source, Block *dest,
                      ValueRange args) {
  if (!dest->empty() && dest->back().hasTrait<OpTrait::IsTerminator>())
    rewriter.eraseOp(&dest->back());
  rewriter.mergeBlocks(&source, dest, args);
  return cast<jx::YieldOp>(dest->getTerminator());
}

/// Moves a branch into `region` (given one block or none) and ends it with scf.yield.
void moveBranch(ConversionPatternRewriter &rewriter, Region &branch, Region &region,
                ValueRange inputs) {
  Block *dest = region.empty() ? rewriter.createBlock(&region) : &region.front();
  jx::YieldOp yield = moveBlock(rewriter, branch.front(), dest, inputs);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getOperands());
}

struct ScanPattern : OpConversionPattern<jx::ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::ScanOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t numConsts = op.getNumConsts(), numCarry = op.getNumCarry(), length = op.getLength();
    ValueRange operands = adaptor.getOperands();
    ValueRange consts = operands.take_front(numConsts);
    ValueRange carry = operands.slice(numConsts, numCarry);
    ValueRange xs = operands.drop_front(numConsts + numCarry);

    SmallVector<Value> inits(carry.begin(), carry.end());
    for (Type t : llvm::drop_begin(op.getResultTypes(), numCarry))
      inits.push_back(emptyTensor(rewriter, loc, cast<RankedTensorType>(t)));
    Value lb = intConstant(rewriter, loc, rewriter.getIndexType(), 0);
    Value ub = intConstant(rewriter, loc, rewriter.getIndexType(), length);
    Value step = intConstant(rewriter, loc, rewriter.getIndexType(), 1);
    auto loop = scf::ForOp::create(rewriter, loc, lb, ub, step, inits);
    Block *body = loop.getBody();
    if (!body->empty())
      rewriter.eraseOp(&body->back());

    rewriter.setInsertionPointToEnd(body);
    Value index = loop.getInductionVar();
    if (op.getReverse())
      index = arith::SubIOp::create(rewriter, loc,
                                    intConstant(rewriter, loc, rewriter.getIndexType(), length - 1),
                                    index);
    // Slice `index` of a tensor along its leading axis: offsets, sizes, strides.
    auto leading = [&](RankedTensorType full) {
      SmallVector<OpFoldResult> offsets(full.getRank(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(full.getRank(), rewriter.getIndexAttr(1));
      offsets[0] = index;
      sizes.push_back(rewriter.getIndexAttr(1));
      for (int64_t d : full.getShape().drop_front())
        sizes.push_back(rewriter.getIndexAttr(d));
      return std::make_tuple(offsets, sizes, strides);
    };
    SmallVector<Value> args(consts.begin(), consts.end());
    for (Value c : loop.getRegionIterArgs().take_front(numCarry))
      args.push_back(c);
    for (Value x : xs) {
      auto full = cast<RankedTensorType>(x.getType());
      auto sliceType = RankedTensorType::get(full.getShape().drop_front(), full.getElementType());
      auto [offsets, sizes, strides] = leading(full);
      args.push_back(tensor::ExtractSliceOp::create(rewriter, loc, sliceType, x, offsets, sizes,
                                                    strides));
    }
    jx::YieldOp yield = moveBlock(rewriter, op.getBody().front(), body, args);
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> next(yield.getOperands().take_front(numCarry));
    for (auto [y, stacked] : llvm::zip(yield.getOperands().drop_front(numCarry),
                                       loop.getRegionIterArgs().drop_front(numCarry))) {
      auto [offsets, sizes, strides] = leading(cast<RankedTensorType>(stacked.getType()));
      next.push_back(
          tensor::InsertSliceOp::create(rewriter, loc, y, stacked, offsets, sizes, strides));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct CondPattern : OpConversionPattern<jx::CondOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::CondOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange inputs = adaptor.getInputs();
    auto branches = op.getBranches();
    int64_t n = branches.size();
    Value index = tensor::ExtractOp::create(rewriter, loc, adaptor.getIndex(), ValueRange{});
    if (index.getType().isInteger(1) && n == 2) {
      auto ifOp = scf::IfOp::create(rewriter, loc, op.getResultTypes(), index,
                                    /*withElseRegion=*/true);
      moveBranch(rewriter, branches[1], ifOp.getThenRegion(), inputs);
      moveBranch(rewriter, branches[0], ifOp.getElseRegion(), inputs);
      rewriter.replaceOp(op, ifOp.getResults());
      return success();
    }
    Value i = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), index);
    if (index.getType().isInteger(1))
      i = arith::IndexCastUIOp::create(rewriter, loc, rewriter.getIndexType(), index);
    Value zero = intConstant(rewriter, loc, rewriter.getIndexType(), 0);
    i = arith::MaxSIOp::create(rewriter, loc, i, zero);
    i = arith::MinSIOp::create(rewriter, loc, i,
                               intConstant(rewriter, loc, rewriter.getIndexType(), n - 1));
    SmallVector<int64_t> cases;
    for (int64_t k = 0; k + 1 < n; ++k)
      cases.push_back(k);
    auto switchOp = scf::IndexSwitchOp::create(rewriter, loc, op.getResultTypes(), i, cases,
                                               cases.size());
    for (int64_t k = 0; k + 1 < n; ++k)
      moveBranch(rewriter, branches[k], switchOp.getCaseRegions()[k], inputs);
    moveBranch(rewriter, branches[n - 1], switchOp.getDefaultRegion(), inputs);
    rewriter.replaceOp(op, switchOp.getResults());
    return success();
  }
};

struct WhilePattern : OpConversionPattern<jx::WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::WhileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TypeRange types = op.getResultTypes();
    auto whileOp = scf::WhileOp::create(rewriter, loc, types, adaptor.getOperands());
    SmallVector<Location> locs(types.size(), loc);
    Block *before = rewriter.createBlock(&whileOp.getBefore(), {}, types, locs);
    jx::YieldOp condYield =
        moveBlock(rewriter, op.getCond().front(), before, before->getArguments());
    rewriter.setInsertionPoint(condYield);
    Value cond = tensor::ExtractOp::create(rewriter, loc, condYield.getOperands()[0], ValueRange{});
    rewriter.replaceOpWithNewOp<scf::ConditionOp>(condYield, cond, before->getArguments());
    Block *after = rewriter.createBlock(&whileOp.getAfter(), {}, types, locs);
    jx::YieldOp bodyYield = moveBlock(rewriter, op.getBody().front(), after, after->getArguments());
    rewriter.setInsertionPoint(bodyYield);
    rewriter.replaceOpWithNewOp<scf::YieldOp>(bodyYield, bodyYield.getOperands());
    rewriter.replaceOp(op, whileOp.getResults());
    return success();
  }
};

struct RematPattern : OpConversionPattern<jx::RematOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::RematOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    auto yield = cast<jx::YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getOperands());
    rewriter.inlineBlockBefore(&body, op, adaptor.getOperands());
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
    return success();
  }
};

template <typename OpTy>
struct IdentityPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

/// A call to `@__jx_optimization_barrier_N`, an external function of the
/// operands' types whose arguments bufferization treats as read-only.
struct OptimizationBarrierPattern : OpConversionPattern<jx::OptimizationBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(jx::OptimizationBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getNumOperands() == 0) {
      rewriter.eraseOp(op);
      return success();
    }
    auto module = op->getParentOfType<ModuleOp>();
    auto fnType = rewriter.getFunctionType(op.getOperandTypes(), op.getResultTypes());
    func::FuncOp callee;
    int count = 0;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn.getName().starts_with(cotangent::kBarrierPrefix))
        continue;
      ++count;
      if (fn.getFunctionType() == fnType)
        callee = fn;
    }
    if (!callee) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      callee = func::FuncOp::create(rewriter, op.getLoc(),
                                    (cotangent::kBarrierPrefix + Twine(count)).str(), fnType);
      callee.setPrivate();
      for (unsigned i = 0; i < fnType.getNumInputs(); ++i)
        callee.setArgAttr(i, "bufferization.access", rewriter.getStringAttr("read"));
    }
    rewriter.replaceOpWithNewOp<func::CallOp>(op, callee, adaptor.getOperands());
    return success();
  }
};

} // namespace

void mlir::cotangent::lowering::populateControlFlowPatterns(RewritePatternSet &patterns) {
  patterns.add<ScanPattern, CondPattern, WhilePattern, RematPattern,
               IdentityPattern<jx::CheckpointNameOp>, IdentityPattern<jx::StopGradientOp>,
               OptimizationBarrierPattern>(patterns.getContext());
}
