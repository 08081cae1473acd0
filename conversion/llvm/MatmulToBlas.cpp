//===- MatmulToBlas.cpp - batched matmuls on buffers become BLAS calls ----===//
//
// After bufferization, every `linalg.batch_matmul` on f32 or f64 memrefs
// (what jx-to-linalg makes of jx.dot_general, with either operand possibly
// read transposed: it is passed as a memref.transpose view) becomes a call to
// `@cotangent_batch_matmul_f32` / `_f64`, declared with
// `llvm.emit_c_interface` over fully dynamic strided rank-3 memrefs, so the
// runtime receives descriptors and calls cblas_sgemm / cblas_dgemm per batch
// with beta = 0. With `low-float` (the GPU's), bf16 or f16 operands into an
// f32 product call `@cotangent_batch_matmul_bf16` / `_f16` (cuBLAS's GemmEx
// reads them and accumulates in f32). A zero `linalg.fill` of the output
// right before the matmul is then redundant and erased.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/llvm/LoweringUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXMATMULTOBLASPASS
#include "conversion/llvm/LoweringPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

MemRefType dynamicRank3(Type elementType) {
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d}, elementType,
                         StridedLayoutAttr::get(elementType.getContext(), d, {d, d, d}));
}

/// `map` (b, m, n, k) -> (b, x, y) with its two last results swapped.
AffineMap transposedOperandMap(AffineMap map) {
  return AffineMap::get(map.getNumDims(), 0,
                        {map.getResult(0), map.getResult(2), map.getResult(1)},
                        map.getContext());
}

class JxMatmulToBlasPass
    : public cotangent::impl::JxMatmulToBlasPassBase<JxMatmulToBlasPass> {
public:
  using JxMatmulToBlasPassBase::JxMatmulToBlasPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::BatchMatmulOp> matmuls;
    module.walk([&](linalg::BatchMatmulOp op) {
      if (op.hasPureBufferSemantics())
        matmuls.push_back(op);
    });
    for (linalg::BatchMatmulOp op : matmuls) {
      Value a = op.getDpsInputs()[0], b = op.getDpsInputs()[1], c = op.getDpsInits()[0];
      Type elem = cast<MemRefType>(c.getType()).getElementType();
      // The operands' element type: the product's, or (low-float) bf16 or
      // f16 into an f32 product.
      Type operandElem = cast<MemRefType>(a.getType()).getElementType();
      bool lowFloatOperands =
          lowFloat && elem.isF32() && cotangent::lowering::isLowFloat(operandElem);
      if ((!elem.isF32() && !elem.isF64()) || (operandElem != elem && !lowFloatOperands) ||
          cast<MemRefType>(b.getType()).getElementType() != operandElem)
        continue;
      // Default maps, or the lhs and/or rhs read transposed (jx-to-linalg's
      // dot_general): a transposed operand is passed as a transposed view,
      // whose strides tell the runtime to set the BLAS transpose flag.
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      SmallVector<AffineMap> defaults =
          linalg::BatchMatmulOp::getDefaultIndexingMaps(&getContext());
      bool aT = maps[0] == transposedOperandMap(defaults[0]);
      bool bT = maps[1] == transposedOperandMap(defaults[1]);
      if ((maps[0] != defaults[0] && !aT) || (maps[1] != defaults[1] && !bT) ||
          maps[2] != defaults[2])
        continue;
      // The op before the matmul, looked up before the casts and the call
      // are inserted between them.
      auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
      func::FuncOp callee = getOrDeclare(module, operandElem, elem);
      OpBuilder builder(op);
      Location loc = op.getLoc();
      auto swapLast = AffineMapAttr::get(AffineMap::getPermutationMap(
          ArrayRef<unsigned>{0, 2, 1}, &getContext()));
      if (aT)
        a = memref::TransposeOp::create(builder, loc, a, swapLast);
      if (bT)
        b = memref::TransposeOp::create(builder, loc, b, swapLast);
      SmallVector<Value> operands{a, b, c}, args;
      for (auto [v, type] : llvm::zip(operands, callee.getArgumentTypes()))
        args.push_back(memref::CastOp::create(builder, loc, type, v));
      func::CallOp::create(builder, loc, callee, args);
      if (fill && fill.getDpsInits()[0] == c && matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        fill.erase();
      op.erase();
    }
  }

private:
  /// The runtime's entry for operands of `operandElem` into a product of
  /// `elem`: named by the operands' type.
  func::FuncOp getOrDeclare(ModuleOp module, Type operandElem, Type elem) {
    llvm::StringRef name = operandElem.isF32()    ? mlir::cotangent::abi::kBatchMatmulF32
                           : operandElem.isF64()  ? mlir::cotangent::abi::kBatchMatmulF64
                           : operandElem.isBF16() ? mlir::cotangent::abi::kBatchMatmulBF16
                                                  : mlir::cotangent::abi::kBatchMatmulF16;
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    MemRefType in = dynamicRank3(operandElem), out = dynamicRank3(elem);
    auto fn = func::FuncOp::create(builder, module.getLoc(), name,
                                   builder.getFunctionType({in, in, out}, {}));
    fn.setPrivate();
    fn->setAttr("llvm.emit_c_interface", builder.getUnitAttr());
    return fn;
  }
};

} // namespace
