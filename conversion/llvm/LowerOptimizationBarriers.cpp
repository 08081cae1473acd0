//===- LowerOptimizationBarriers.cpp - barriers become inline asm ---------===//
//
// After one-shot bufferization, each call to an `@__jx_optimization_barrier_N`
// declaration (made by jx-to-linalg for jx.optimization_barrier) is replaced
// by one empty `llvm.inline_asm` per operand buffer: it has side effects,
// takes the buffer's aligned pointer in a register and clobbers memory. The
// call's results become its operands (no copy). Because LLVM must assume the
// asm read and rewrote the buffer, loads after the barrier cannot be merged
// with loads before it, so a recomputation in @f_bwd that starts from the
// barrier's results is never merged back into @f_fwd's computation, even in
// an inlined @f_vjp after -O3. The declarations are erased afterwards.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXLOWEROPTIMIZATIONBARRIERSPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

bool isBarrier(StringRef name) { return name.starts_with(cotangent::kBarrierPrefix); }

class JxLowerOptimizationBarriersPass
    : public cotangent::impl::JxLowerOptimizationBarriersPassBase<
          JxLowerOptimizationBarriersPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (isBarrier(call.getCallee()))
        calls.push_back(call);
    });
    for (func::CallOp call : calls) {
      OpBuilder b(call);
      Location loc = call.getLoc();
      auto ptrType = LLVM::LLVMPointerType::get(&getContext());
      SmallVector<Value> replacements;
      for (auto [operand, result] : llvm::zip(call.getOperands(), call.getResults())) {
        if (!isa<MemRefType>(operand.getType())) {
          call.emitError("optimization barrier on a non-buffer value ") << operand.getType();
          return signalPassFailure();
        }
        Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand);
        address = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
        Value ptr = LLVM::IntToPtrOp::create(b, loc, ptrType, address);
        LLVM::InlineAsmOp::create(b, loc, TypeRange{}, ValueRange{ptr}, "", "r,~{memory}",
                                  /*has_side_effects=*/true, /*is_align_stack=*/false,
                                  LLVM::tailcallkind::TailCallKind::None,
                                  /*asm_dialect=*/LLVM::AsmDialectAttr(),
                                  /*operand_attrs=*/ArrayAttr());
        Value replacement = operand;
        if (operand.getType() != result.getType())
          replacement = memref::CastOp::create(b, loc, result.getType(), operand);
        replacements.push_back(replacement);
      }
      call.replaceAllUsesWith(replacements);
      call.erase();
    }
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (isBarrier(fn.getName()) && fn.isDeclaration())
        fn.erase();
  }
};

} // namespace
