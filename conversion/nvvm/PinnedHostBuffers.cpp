//===- PinnedHostBuffers.cpp - pinned_host buffers as GPU runtime calls ---===//
//
// jx-gpu-offload-residuals asks for buffers in memory space "pinned_host";
// bufferization and the deallocation pipeline carry the space through their
// types. Here the allocation becomes gpu.alloc host_shared (gpu-to-llvm makes
// it mgpuMemAlloc(..., isHostShared), which the CUDA runtime serves from
// pinned host memory it does not count as device memory), a copy into or
// out of one becomes gpu.memcpy (a DMA; the runtime puts copies into pinned
// memory on its offload stream), and the space is dropped from every type:
// pinned memory is an ordinary pointer to the host code and, through unified
// addressing, to kernels.
//
//===----------------------------------------------------------------------===//

#include "conversion/nvvm/GpuPasses.h"

#include "dialects/jx/JxSplit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUPINNEDHOSTBUFFERSPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;

namespace {

bool isPinned(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  auto space = memref ? dyn_cast_or_null<StringAttr>(memref.getMemorySpace()) : StringAttr();
  return space && space.getValue() == jx::kPinnedHost;
}

Type withoutSpace(Type type) {
  if (!isPinned(type))
    return type;
  auto memref = cast<MemRefType>(type);
  return MemRefType::get(memref.getShape(), memref.getElementType(), memref.getLayout());
}

/// gpu-to-llvm copies whole contiguous buffers only.
bool isDmaCopyable(Type type) {
  auto memref = cast<MemRefType>(type);
  return memref.getLayout().isIdentity() && memref.hasStaticShape();
}

/// Bufferizing a signature gives its results the default memory space, so a
/// returned pinned buffer comes back as a copy into a fresh device buffer,
/// the pinned one freed: return the pinned buffer instead.
void returnPinnedBuffers(func::ReturnOp ret) {
  for (OpOperand &operand : ret->getOpOperands()) {
    auto alloc = operand.get().getDefiningOp<memref::AllocOp>();
    if (!alloc || isPinned(alloc.getType()) || !alloc.getResult().hasNUses(2))
      continue;
    memref::CopyOp fill;
    for (Operation *user : alloc->getUsers())
      if (auto copy = dyn_cast<memref::CopyOp>(user);
          copy && copy.getTarget() == alloc.getResult() && isPinned(copy.getSource().getType()))
        fill = copy;
    if (!fill || withoutSpace(fill.getSource().getType()) != alloc.getType())
      continue;
    // The pinned buffer's one free (a plain one in this block) goes too.
    Value pinned = fill.getSource();
    SmallVector<memref::DeallocOp> frees;
    for (Operation *user : pinned.getUsers())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
        frees.push_back(dealloc);
    if (frees.size() != 1 || frees[0]->getBlock() != ret->getBlock() ||
        !pinned.getDefiningOp<memref::AllocOp>())
      continue;
    operand.set(pinned);
    frees[0].erase();
    fill.erase();
    alloc.erase();
  }
}

class JxGpuPinnedHostBuffersPass
    : public cotangent::impl::JxGpuPinnedHostBuffersPassBase<JxGpuPinnedHostBuffersPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk(returnPinnedBuffers);
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::CopyOp> copies;
    module.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op); alloc && isPinned(alloc.getType()))
        allocs.push_back(alloc);
      if (auto copy = dyn_cast<memref::CopyOp>(op);
          copy && (isPinned(copy.getSource().getType()) || isPinned(copy.getTarget().getType())) &&
          isDmaCopyable(copy.getSource().getType()) && isDmaCopyable(copy.getTarget().getType()))
        copies.push_back(copy);
    });

    for (memref::AllocOp alloc : allocs) {
      OpBuilder b(alloc);
      auto type = cast<MemRefType>(withoutSpace(alloc.getType()));
      auto pinned = gpu::AllocOp::create(b, alloc.getLoc(), type, /*asyncToken=*/Type(),
                                         /*asyncDependencies=*/ValueRange{},
                                         alloc.getDynamicSizes(), alloc.getSymbolOperands(),
                                         /*hostShared=*/true);
      alloc.replaceAllUsesWith(pinned.getMemref());
      alloc.erase();
    }
    // On the stream compiled code runs on (gpu-to-llvm's: the runtime's
    // compute stream), waited for in program order like every launch.
    auto token = gpu::AsyncTokenType::get(&getContext());
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      Location loc = copy.getLoc();
      Value start = gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
      Value done = gpu::MemcpyOp::create(b, loc, token, ValueRange{start}, copy.getTarget(),
                                         copy.getSource())
                       .getAsyncToken();
      gpu::WaitOp::create(b, loc, Type(), ValueRange{done});
      copy.erase();
    }

    // Every type in the space loses it, signatures included.
    auto strip = [](TypeRange types) {
      return llvm::to_vector(llvm::map_range(types, withoutSpace));
    };
    module.walk([&](Operation *op) {
      for (Value result : op->getResults())
        result.setType(withoutSpace(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(withoutSpace(arg.getType()));
      if (auto fn = dyn_cast<func::FuncOp>(op))
        fn.setType(FunctionType::get(fn.getContext(), strip(fn.getArgumentTypes()),
                                     strip(fn.getResultTypes())));
    });
  }
};

} // namespace
