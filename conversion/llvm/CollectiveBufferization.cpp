//===- CollectiveBufferization.cpp - jx collectives become runtime calls --===//
//
// jx-to-linalg leaves the collectives as they are; one-shot bufferization
// turns each into a new buffer for its result and two calls
//
//   %ticket = func.call @cotangent_collective_start(%kind, %element,
//       %elementBytes, %in, %out, %outer, %inner, %perm, %pairs)
//   func.call @cotangent_collective_wait(%ticket)
//
// into the runtime (runtime/comm/Collectives.h), which runs it on the job's
// group (MPI under mpirun, else one process) on its communication thread;
// --jx-defer-collective-waits later moves the wait down to the first use of
// either buffer. Operand and result are
// contiguous buffers passed by address, their shapes as the two extents the
// collective's layout needs; a strided operand is copied first. ppermute's
// pairs are a constant global. The result buffer is an ordinary allocation:
// the memory plan counts it, the deallocation passes free it.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxCollectiveOps.h"
#include "dialects/jx/JxOps.h"
#include "runtime/comm/Collectives.h"
#include "runtime/comm/Communicator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::bufferization;
using ::cotangent::comm::CollectiveKind;
using ::cotangent::comm::ElementKind;

namespace {


std::optional<ElementKind> elementKindOf(Type t) {
  if (t.isF32())
    return ElementKind::F32;
  if (t.isF64())
    return ElementKind::F64;
  if (t.isBF16())
    return ElementKind::BF16;
  if (t.isF16())
    return ElementKind::F16;
  if (t.isInteger(32))
    return ElementKind::I32;
  if (t.isInteger(64))
    return ElementKind::I64;
  return std::nullopt;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// What a call needs besides the buffers: kind and extents (Collectives.h).
struct CallShape {
  CollectiveKind kind;
  int64_t outer = 1, inner = 1;
  ArrayRef<int64_t> perm;
  bool sums = false; ///< the elements are added (their type must be one MPI adds)
};

CallShape callShape(Operation *op) {
  auto operandShape = [&] {
    return cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
  };
  return llvm::TypeSwitch<Operation *, CallShape>(op)
      .Case([&](jx::PsumOp) {
        return CallShape{CollectiveKind::Psum, 1, product(operandShape()), {}, true};
      })
      .Case([&](jx::PmeanOp) {
        return CallShape{CollectiveKind::Pmean, 1, product(operandShape()), {}, true};
      })
      .Case([&](jx::AllGatherOp o) {
        ArrayRef<int64_t> s = operandShape();
        int64_t d = o.getDimension();
        // Stacked or tiled, the result is [before d][rank][from d on].
        return CallShape{CollectiveKind::AllGather, product(s.take_front(d)),
                         product(s.drop_front(d))};
      })
      .Case([&](jx::PsumScatterOp o) {
        ArrayRef<int64_t> s = operandShape();
        int64_t d = o.getDimension();
        // The operand is [before d][rank][the rest of one rank's block].
        int64_t inner = product(s.drop_front(d + 1)) * (s[d] / o.getAxisSize());
        return CallShape{CollectiveKind::PsumScatter, product(s.take_front(d)), inner, {}, true};
      })
      .Case([&](jx::PpermuteOp o) {
        return CallShape{CollectiveKind::Ppermute, 1, product(operandShape()), o.getPerm()};
      })
      .Default([](Operation *) { return CallShape{CollectiveKind::AxisIndex, 1, 1}; });
}

/// The runtime function `name` declared in `module`, made on first use (at
/// the module's end: bufferization may be walking its functions).
func::FuncOp declaration(ModuleOp module, OpBuilder &b, StringRef name, FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

/// A constant global holding ppermute's pairs; its address.
Value pairsAddress(ModuleOp module, RewriterBase &rewriter, Location loc, ArrayRef<int64_t> perm) {
  auto type = MemRefType::get({static_cast<int64_t>(perm.size())}, rewriter.getI64Type());
  auto value = DenseElementsAttr::get(RankedTensorType::get(type.getShape(), type.getElementType()),
                                      perm);
  memref::GlobalOp global;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    global = memref::GlobalOp::create(rewriter, loc, "__jx_ppermute_pairs",
                                      rewriter.getStringAttr("private"), type, value,
                                      /*constant=*/true, /*alignment=*/IntegerAttr());
    SymbolTable(module).insert(global); // renamed to be unique
  }
  Value pairs = memref::GetGlobalOp::create(rewriter, loc, type, global.getSymName());
  return memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, pairs);
}

template <typename OpTy>
struct CollectiveBufferization
    : public BufferizableOpInterface::ExternalModel<CollectiveBufferization<OpTy>, OpTy> {
  /// psum and pmean reduce in place (MPI_IN_PLACE): a gradient's reduction
  /// needs no second buffer where the analysis finds the operand dead after
  /// it (else it copies the operand first, as for any in-place op).
  static constexpr bool kInPlace =
      std::is_same_v<OpTy, jx::PsumOp> || std::is_same_v<OpTy, jx::PmeanOp>;

  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const {
    return kInPlace;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &, const AnalysisState &) const {
    if (kInPlace)
      return {{op->getResult(0), BufferRelation::Equivalent}};
    return {};
  }
  bool bufferizesToAllocation(Operation *, Value) const { return !kInPlace; }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter, const BufferizationOptions &options,
                          BufferizationState &state) const {
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType.hasStaticShape())
      return op->emitError("a compiled collective needs a static shape, not ") << resultType;
    CallShape shape = callShape(op);
    Type elementType = resultType.getElementType();
    std::optional<ElementKind> kind = elementKindOf(elementType);
    if (shape.sums && !kind)
      return op->emitError("compiled collectives add f32, f64, bf16, f16, i32 or i64, not ")
             << elementType;
    const int64_t elementBytes = (elementType.getIntOrFloatBitWidth() + 7) / 8;

    auto address = [&](Value buffer) -> Value {
      return memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer);
    };
    auto zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value in = zero, operandBuffer, contiguous;
    if (op->getNumOperands() == 1) {
      FailureOr<Value> buffer = getBuffer(rewriter, op->getOperand(0), options, state);
      if (failed(buffer))
        return failure();
      operandBuffer = contiguous = *buffer;
      auto type = cast<MemRefType>(contiguous.getType());
      if (!type.getLayout().isIdentity()) { // a strided view: made contiguous
        FailureOr<Value> copy = options.createAlloc(
            rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()), {});
        if (failed(copy) || failed(options.createMemCpy(rewriter, loc, contiguous, *copy)))
          return failure();
        contiguous = *copy;
      }
      in = address(contiguous);
    }
    FailureOr<Value> out = contiguous;
    if (!kInPlace)
      out = options.createAlloc(rewriter, loc, MemRefType::get(resultType.getShape(), elementType),
                                {});
    if (failed(out))
      return failure();

    auto module = op->template getParentOfType<ModuleOp>();
    Type i64Type = rewriter.getI64Type(), index = rewriter.getIndexType();
    func::FuncOp start = declaration(
        module, rewriter, mlir::cotangent::abi::kCollectiveStart,
        rewriter.getFunctionType(
            {i64Type, i64Type, i64Type, index, index, i64Type, i64Type, index, i64Type}, {i64Type}));
    func::FuncOp wait = declaration(module, rewriter, mlir::cotangent::abi::kCollectiveWait,
                                    rewriter.getFunctionType({i64Type}, {}));
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(), v);
    };
    Value perm = shape.perm.empty() ? Value(zero) : pairsAddress(module, rewriter, loc, shape.perm);
    auto ticket = func::CallOp::create(
        rewriter, loc, start,
        ValueRange{i64(static_cast<int64_t>(shape.kind)),
                   i64(kind ? static_cast<int64_t>(*kind) : -1), i64(elementBytes), in,
                   address(*out), i64(shape.outer), i64(shape.inner), perm,
                   i64(static_cast<int64_t>(shape.perm.size() / 2))});
    func::CallOp::create(rewriter, loc, wait, ticket.getResults());
    if (kInPlace && contiguous != operandBuffer) { // back into the strided operand
      if (failed(options.createMemCpy(rewriter, loc, contiguous, operandBuffer)))
        return failure();
      out = operandBuffer;
    }
    replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

} // namespace

void mlir::cotangent::registerCollectiveBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, jx::JxDialect *) {
    jx::PsumOp::attachInterface<CollectiveBufferization<jx::PsumOp>>(*ctx);
    jx::PmeanOp::attachInterface<CollectiveBufferization<jx::PmeanOp>>(*ctx);
    jx::AllGatherOp::attachInterface<CollectiveBufferization<jx::AllGatherOp>>(*ctx);
    jx::PsumScatterOp::attachInterface<CollectiveBufferization<jx::PsumScatterOp>>(*ctx);
    jx::PpermuteOp::attachInterface<CollectiveBufferization<jx::PpermuteOp>>(*ctx);
    jx::AxisIndexOp::attachInterface<CollectiveBufferization<jx::AxisIndexOp>>(*ctx);
  });
}
