//===- AttentionBufferization.cpp - fused attention becomes kernel calls --===//
//
// jx-to-linalg leaves f32 dot_product_attention and its backward as they are
// (jx-expand-composites expanded every other); one-shot bufferization turns
// each into new buffers for its results and one call
//
//   func.call @cotangent_attention_fwd_f32(%q, %k, %v, %out, %lse, %causal, %scale)
//   func.call @cotangent_attention_bwd_f32(%q, %k, %v, %out, %lse, %dout,
//                                          %dq, %dk, %dv, %causal, %scale)
//
// into the CPU runtime's FlashAttention-2 kernels (runtime/cpu/Attention.h),
// declared with the C interface over fully dynamic strided buffers: q, k and
// v are read where they are (views of one projection, typically), never
// copied. The result buffers are ordinary allocations, counted by the memory
// plan; the kernels' tiles are their threads' own and O(block x head size).
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {

MemRefType dynamicStrided(int64_t rank, Type element) {
  int64_t d = ShapedType::kDynamic;
  SmallVector<int64_t> dims(rank, d);
  return MemRefType::get(dims, element, StridedLayoutAttr::get(element.getContext(), d, dims));
}

template <typename OpTy>
struct AttentionBufferization
    : public BufferizableOpInterface::ExternalModel<AttentionBufferization<OpTy>, OpTy> {
  static constexpr bool kForward = std::is_same_v<OpTy, jx::DotProductAttentionOp>;
  static constexpr llvm::StringLiteral kCallee =
      kForward ? mlir::cotangent::abi::kAttentionFwdF32 : mlir::cotangent::abi::kAttentionBwdF32;

  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &, const AnalysisState &) const {
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter, const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto attn = cast<OpTy>(op);
    Location loc = op->getLoc();
    Type f32 = rewriter.getF32Type();
    if (cast<RankedTensorType>(attn.getQuery().getType()).getElementType() != f32)
      return op->emitError("the compiled attention kernels are f32: run --jx-expand-composites "
                           "first for ")
             << attn.getQuery().getType();
    // Every operand and result as the kernels read it: a strided descriptor.
    SmallVector<Value> args;
    auto asArgument = [&](Value buffer) {
      auto type = cast<MemRefType>(buffer.getType());
      args.push_back(memref::CastOp::create(rewriter, loc,
                                            dynamicStrided(type.getRank(), f32), buffer));
    };
    for (Value operand : op->getOperands()) {
      FailureOr<Value> buffer = getBuffer(rewriter, operand, options, state);
      if (failed(buffer))
        return failure();
      asArgument(*buffer);
    }
    SmallVector<Value> results;
    for (Value result : op->getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      FailureOr<Value> buffer = options.createAlloc(
          rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()), {});
      if (failed(buffer))
        return failure();
      results.push_back(*buffer);
      asArgument(*buffer);
    }
    args.push_back(arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                                attn.getIsCausal() ? 1 : 0));
    args.push_back(arith::ConstantFloatOp::create(
        rewriter, loc, cast<FloatType>(f32),
        APFloat(static_cast<float>(attn.getScale().convertToDouble()))));
    func::CallOp::create(rewriter, loc, declaration(op, rewriter, args), args);
    replaceOpWithBufferizedValues(rewriter, op, results);
    return success();
  }

  /// The kernel's declaration, made on first use at the module's end
  /// (bufferization may be walking its functions).
  static func::FuncOp declaration(Operation *op, OpBuilder &b, ValueRange args) {
    auto module = op->getParentOfType<ModuleOp>();
    if (auto fn = module.lookupSymbol<func::FuncOp>(kCallee))
      return fn;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(b, module.getLoc(), kCallee,
                                   b.getFunctionType(TypeRange(args), {}));
    fn.setPrivate();
    fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    return fn;
  }
};

} // namespace

void mlir::cotangent::registerAttentionBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, jx::JxDialect *) {
    jx::DotProductAttentionOp::attachInterface<
        AttentionBufferization<jx::DotProductAttentionOp>>(*ctx);
    jx::DotProductAttentionGradOp::attachInterface<
        AttentionBufferization<jx::DotProductAttentionGradOp>>(*ctx);
  });
}
