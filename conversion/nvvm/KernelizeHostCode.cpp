//===- KernelizeHostCode.cpp - no host access to device buffers -----------===//
//
// Buffers live in device memory and launches are asynchronous, so host code
// must not touch a buffer. After convert-linalg-to-parallel-loops, what is
// left outside the parallel loops that will become kernels is moved onto the
// device:
//
//   memref.copy            a parallel loop of loads and stores (a kernel)
//   a loop nest reducing   one block of up to 1024 threads: each folds a
//   into one element       strided share of the iteration space in a
//                          register, gpu.all_reduce combines the shares,
//                          thread 0 folds the total into the element
//   any other loop nest    a one-thread kernel (correct, not fast: what
//   or store               reaches here is small, e.g. 0-d arithmetic)
//   a load the host        a call to cotangent_cuda_read_scalar, which waits
//   branches on            for the device and copies the scalar over
//
// Host code keeps its control flow (scan loops, branches), allocations and
// calls. Stack buffers (memref.alloca: what jx-gpu-host-buffers put there)
// are host memory: code on them stays on the host, and so does a function
// whose every call passes it stack buffers for its buffer arguments.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringPasses.h"
#include "conversion/nvvm/ElementReduction.h"
#include "conversion/nvvm/GpuPasses.h"
#include "conversion/nvvm/HostMemory.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXGPUKERNELIZEHOSTCODEPASS
#include "conversion/nvvm/GpuPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;

namespace {

constexpr int64_t kReduceThreads = 1024;
/// A sum over more elements than this many per thread of one block is
/// spread over several blocks, whose totals are added atomically: as many
/// as fill the device once (two blocks of 1024 threads per multiprocessor),
/// fewer where the elements run out first.
constexpr int64_t kElementsPerThread = 16;
constexpr int64_t kBlocksPerMultiprocessor = 2;

/// The declaration of the runtime's function `name` in `module`, added on
/// first use.
func::FuncOp runtimeFunction(ModuleOp module, StringRef name, FunctionType type) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
  fn.setPrivate();
  return fn;
}

/// Whether `op` (and what it nests) can run in a kernel as it is: loads,
/// stores, pure computations and structured control flow over them.
bool fitsInKernel(Operation *op) {
  WalkResult result = op->walk([](Operation *inner) {
    if (isa<memref::LoadOp, memref::StoreOp, scf::ForOp, scf::IfOp, scf::YieldOp>(inner))
      return WalkResult::advance();
    if (isa<scf::ParallelOp, gpu::LaunchOp, memref::AllocOp, memref::AllocaOp,
            memref::DeallocOp>(inner) ||
        !isPure(inner))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// The reduction as one block of threads, or for a large sum several whose
/// totals are added atomically (see the file comment).
void kernelizeReduction(ElementReduction r, ModuleOp module) {
  scf::ForOp outer = r.loops.front();
  Location loc = outer.getLoc();
  int64_t total = r.size();
  // Whole warps, as many as the work fills, at most one full block; a large
  // sum takes several blocks (atomic adds need no order; other combiners
  // stay in one block).
  int64_t threads = warpThreads(total, kReduceThreads);
  OpBuilder b(outer);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  if ((r.identity != arith::AtomicRMWKind::addf && r.identity != arith::AtomicRMWKind::addi) ||
      total <= kReduceThreads * kElementsPerThread) {
    gpu::LaunchOp launch = createLaunch(b, loc, threads, 1);
    Value tid = launch.getThreadIds().x;
    emitBlockReduction(b, r, IRMapping(), tid, tid, index(threads), std::nullopt);
    outer.erase();
    return;
  }
  // The grid, on the host: one wave of the device's multiprocessors, or
  // the blocks the elements fill, whichever is fewer (at least one).
  func::FuncOp multiprocessors =
      runtimeFunction(module, mlir::cotangent::abi::kCudaMultiprocessors, b.getFunctionType({}, {b.getI64Type()}));
  Value count = arith::IndexCastOp::create(
      b, loc, b.getIndexType(), func::CallOp::create(b, loc, multiprocessors).getResult(0));
  Value wave = arith::MaxUIOp::create(
      b, loc, arith::MulIOp::create(b, loc, count, index(kBlocksPerMultiprocessor)), index(1));
  int64_t filled = (total + threads * kElementsPerThread - 1) / (threads * kElementsPerThread);
  Value blocks = arith::MinUIOp::create(b, loc, wave, index(filled));
  gpu::LaunchOp launch = createLaunch(b, loc, threads, blocks);
  Value tid = launch.getThreadIds().x;
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, index(threads)), tid);
  Value stride = arith::MulIOp::create(b, loc, launch.getGridSize().x, index(threads));
  emitBlockReduction(b, r, IRMapping(), tid, start, stride, r.identity);
  outer.erase();
}

/// Moves `op` into a kernel of one thread, with clones of the loads and
/// pure ops of its block that compute its operands (a load of host memory,
/// `onHost`, stays on the host: the kernel gets its value).
void kernelizeSerially(Operation *op, llvm::function_ref<bool(Value)> onHost) {
  SetVector<Operation *> slice;
  SmallVector<Value> worklist(op->getOperands());
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      worklist.push_back(v);
  });
  // A load is cloned only if nothing between it and `op` may write memory.
  auto readsTheSame = [&](Operation *load) {
    for (Operation *it = load->getNextNode(); it && it != op; it = it->getNextNode())
      if (!isPure(it) && !isa<memref::LoadOp>(it))
        return false;
    return true;
  };
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    auto load = dyn_cast_or_null<memref::LoadOp>(def);
    if (!def || def->getBlock() != op->getBlock() || def->getNumRegions() != 0 ||
        !(isPure(def) || (load && !onHost(load.getMemRef()) && readsTheSame(def))) ||
        !slice.insert(def))
      continue;
    worklist.append(def->operand_begin(), def->operand_end());
  }
  OpBuilder b(op);
  createLaunch(b, op->getLoc(), 1);
  IRMapping map;
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  for (Operation *def : ordered)
    b.clone(*def, map);
  b.clone(*op, map);
  op->erase();
}

/// memref.copy as loads and stores: a parallel loop, or a one-thread kernel
/// for a 0-d buffer.
void kernelizeCopy(memref::CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(copy.getTarget().getType());
  Value source = copy.getSource(), target = copy.getTarget();
  if (type.getRank() == 0) {
    createLaunch(b, loc, 1);
    memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, source), target);
  } else {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      ubs.push_back(type.isDynamicDim(d)
                        ? Value(memref::DimOp::create(b, loc, target, d))
                        : Value(arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))));
      steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
    }
    scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                            [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
                              Value v = memref::LoadOp::create(nb, nloc, source, ivs);
                              memref::StoreOp::create(nb, nloc, v, target, ivs);
                            });
  }
  copy.erase();
}

/// The address of the element `load` reads, as an i64.
Value elementAddress(OpBuilder &b, memref::LoadOp load, int64_t width) {
  Location loc = load.getLoc();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, load.getMemRef());
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, load.getMemRef());
  Value element = meta.getOffset();
  for (auto [index, stride] : llvm::zip(load.getIndices(), meta.getStrides()))
    element = arith::AddIOp::create(b, loc, element, arith::MulIOp::create(b, loc, index, stride));
  Value bytes = arith::MulIOp::create(b, loc, element,
                                      arith::ConstantIndexOp::create(b, loc, width));
  Value address = arith::AddIOp::create(b, loc, base, bytes);
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
}

/// A host read of one element through the runtime.
LogicalResult readThroughRuntime(memref::LoadOp load, func::FuncOp readScalar) {
  Type type = load.getType();
  if (!type.isIntOrIndexOrFloat())
    return load.emitError("cannot read a ") << type << " of device memory from the host";
  int64_t bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  int64_t width = std::max<int64_t>(1, bits / 8);
  if (width > 8 || (bits != 1 && bits % 8 != 0))
    return load.emitError("cannot read a ") << type << " of device memory from the host";
  OpBuilder b(load);
  Location loc = load.getLoc();
  Value address = elementAddress(b, load, width);
  Value size = arith::ConstantIntOp::create(b, loc, b.getI64Type(), width);
  Value raw = func::CallOp::create(b, loc, readScalar, ValueRange{address, size}).getResult(0);
  Value value = raw;
  if (type.isIndex()) {
    value = arith::IndexCastUIOp::create(b, loc, type, raw);
  } else {
    if (bits < 64)
      value = arith::TruncIOp::create(b, loc, b.getIntegerType(bits), raw);
    if (isa<FloatType>(type))
      value = arith::BitcastOp::create(b, loc, type, value);
  }
  load.replaceAllUsesWith(value);
  load.erase();
  return success();
}

/// How many of the buffers `op` (and what it nests) loads, stores or copies
/// are host memory, and how many are not.
std::pair<int, int> countBuffers(Operation *op,
                                 const llvm::DenseSet<Operation *> &hostFunctions) {
  int host = 0, device = 0;
  op->walk([&](Operation *inner) {
    SmallVector<Value, 2> buffers;
    if (auto load = dyn_cast<memref::LoadOp>(inner))
      buffers.push_back(load.getMemRef());
    else if (auto store = dyn_cast<memref::StoreOp>(inner))
      buffers.push_back(store.getMemRef());
    else if (auto copy = dyn_cast<memref::CopyOp>(inner))
      buffers.append({copy.getSource(), copy.getTarget()});
    for (Value buffer : buffers)
      ++(isHostMemory(buffer, hostFunctions) ? host : device);
  });
  return {host, device};
}

/// The ops of host code (outside what becomes a kernel), innermost last.
void collectHostOps(Region &region, SmallVectorImpl<Operation *> &ops) {
  for (Block &block : region)
    for (Operation &op : block) {
      if (isa<scf::ParallelOp, gpu::LaunchOp>(op))
        continue;
      ops.push_back(&op);
      if (!(isa<scf::ForOp>(op) && fitsInKernel(&op)))
        for (Region &inner : op.getRegions())
          collectHostOps(inner, ops);
    }
}

class JxGpuKernelizeHostCodePass
    : public cotangent::impl::JxGpuKernelizeHostCodePassBase<JxGpuKernelizeHostCodePass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto getReadScalar = [&] {
      Type i64 = IntegerType::get(&getContext(), 64);
      return runtimeFunction(module, mlir::cotangent::abi::kCudaReadScalar,
                             FunctionType::get(&getContext(), {i64, i64}, {i64}));
    };
    llvm::DenseSet<Operation *> host = hostFunctions(module);
    auto onHost = [&](Value buffer) { return isHostMemory(buffer, host); };
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (fn.isExternal() || host.contains(fn))
        continue;
      SmallVector<Operation *> ops;
      collectHostOps(fn.getBody(), ops);
      // Whole ops first (copies, loop nests, stores), then the loads left.
      for (Operation *op : ops) {
        if (isa<scf::ForOp, memref::StoreOp, memref::LoadOp, memref::CopyOp>(op)) {
          auto [hostBuffers, deviceBuffers] = countBuffers(op, host);
          if (deviceBuffers == 0)
            continue; // host code on the host's own buffers
          auto loop = dyn_cast<scf::ForOp>(op);
          bool kernel = isa<memref::StoreOp, memref::CopyOp>(op) ||
                        (loop && loop.getNumResults() == 0 && fitsInKernel(loop));
          if (hostBuffers != 0 && kernel) {
            // A kernel cannot reach the host's stack.
            op->emitError("host code mixes stack buffers and device buffers in what would "
                          "become one kernel");
            return signalPassFailure();
          }
        }
        if (auto copy = dyn_cast<memref::CopyOp>(op)) {
          kernelizeCopy(copy);
        } else if (auto loop = dyn_cast<scf::ForOp>(op);
                   loop && loop.getNumResults() == 0 && fitsInKernel(loop)) {
          if (auto reduction = matchElementReduction(loop))
            kernelizeReduction(*reduction, module);
          else
            kernelizeSerially(loop, onHost);
        } else if (isa<memref::StoreOp>(op)) {
          kernelizeSerially(op, onHost);
        }
      }
      // What only the kernels needed (loads, arithmetic) is cloned there now;
      // users come after their operands, so one backward sweep drops chains.
      ops.clear();
      collectHostOps(fn.getBody(), ops);
      for (Operation *op : llvm::reverse(ops))
        if (isOpTriviallyDead(op))
          op->erase();
      ops.clear();
      collectHostOps(fn.getBody(), ops);
      for (Operation *op : ops)
        if (auto load = dyn_cast<memref::LoadOp>(op); load && !onHost(load.getMemRef()))
          if (failed(readThroughRuntime(load, getReadScalar())))
            return signalPassFailure();
    }
  }
};

} // namespace
