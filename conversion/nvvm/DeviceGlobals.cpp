//===- DeviceGlobals.cpp - constant globals that kernels can read ---------===//
//
// Bufferization turns constant tensors into memref.global constants, which
// the host lowering places in the host program's read-only data. Kernels
// read them too (a copy from a constant, a constant operand), and device
// code cannot dereference host memory. Each address the host code takes of
// such a global becomes the address of its device copy, which the runtime
// uploads on first use and keeps (cotangent_cuda_device_global): constants
// cost no allocation per call, and are not counted, as on the CPU. An
// address only the host runtime reads (ppermute's pairs, an argument of
// @cotangent_collective_start) stays the host's: the runtime dereferences it.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUDEVICEGLOBALSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {


/// Bytes of a global of `type` (arrays of scalars, as memref globals are).
std::optional<uint64_t> byteSize(Type type) {
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    auto element = byteSize(array.getElementType());
    return element ? std::optional(*element * array.getNumElements()) : std::nullopt;
  }
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return std::nullopt;
}

/// Whether every use of `address` (through offsets and casts to integers)
/// is an argument of a host runtime call that reads host memory.
bool onlyHostReads(Value address) {
  SmallVector<Value> work{address};
  while (!work.empty()) {
    for (Operation *user : work.pop_back_val().getUsers()) {
      if (isa<LLVM::GEPOp, LLVM::PtrToIntOp>(user)) {
        work.push_back(user->getResult(0));
        continue;
      }
      auto call = dyn_cast<LLVM::CallOp>(user);
      if (!call || call.getCallee() != cotangent::abi::kCollectiveStart)
        return false;
    }
  }
  return true;
}

class JxGpuDeviceGlobalsPass
    : public cotangent::impl::JxGpuDeviceGlobalsPassBase<JxGpuDeviceGlobalsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(&getContext());
    Type ptr = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = b.getI64Type();
    LLVM::LLVMFuncOp upload;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
      WalkResult result = fn.walk([&](LLVM::AddressOfOp address) {
        auto global = dyn_cast_or_null<LLVM::GlobalOp>(
            SymbolTable::lookupSymbolIn(module, address.getGlobalNameAttr()));
        if (!global || !global.getConstant() || !global.getValueOrNull() ||
            onlyHostReads(address.getResult()))
          return WalkResult::advance();
        auto bytes = byteSize(global.getGlobalType());
        if (!bytes) {
          global.emitError("kernels cannot read this constant: unsupported type ")
              << global.getGlobalType();
          return WalkResult::interrupt();
        }
        if (!upload) {
          b.setInsertionPointToEnd(module.getBody());
          upload = LLVM::LLVMFuncOp::create(b, module.getLoc(), mlir::cotangent::abi::kCudaDeviceGlobal,
                                            LLVM::LLVMFunctionType::get(ptr, {ptr, i64}));
        }
        b.setInsertionPointAfter(address);
        Location loc = address.getLoc();
        Value size = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(*bytes));
        auto call = LLVM::CallOp::create(b, loc, upload, ValueRange{address.getResult(), size});
        address.getResult().replaceAllUsesExcept(call.getResult(), call);
        return WalkResult::advance();
      });
      if (result.wasInterrupted())
        return signalPassFailure();
    }
  }
};

} // namespace
