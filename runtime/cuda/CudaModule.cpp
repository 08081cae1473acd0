//===- CudaModule.cpp - the GPU's side of a compiled module ---------------===//
//
// compile(): the device must exist (its compute capability picks the chip).
// The GPU target of runtime/host's JIT lowers with jx-to-nvvm (cubin) and
// binds the names compiled code calls to this runtime: the GPU runtime
// wrappers' mgpu* functions, the allocation hooks of finalize-memref-to-llvm
// (counted managed memory) and the batched matmuls of jx-matmul-to-blas
// (cuBLAS). The engine's initializers then load the embedded kernels.
//
// Calls: arguments are copied into counted device buffers; each call is
// waited for (launches are asynchronous) and the driver's errors reported;
// results are copied back to the host. A residual marked pinned_host is
// copied to pinned host memory by @f_fwd itself, right after it computes it
// (jx-gpu-offload-residuals; a forward compiled otherwise has it copied on
// the offload stream after it returns); @f_bwd takes the pinned buffer and
// copies it back where it first needs it, or reads it in place.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaModule.h"

#include "dialects/jx/JxCollectiveOps.h"
#include "dialects/jx/JxOps.h"
#include "dialects/jx/JxSplit.h"
#include "runtime/comm/Communicator.h"
#include "runtime/cuda/CudaBindings.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/DeviceCounter.h"
#include "runtime/host/ObjectFile.h"

#include "conversion/nvvm/GpuPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <cstring>

using namespace mlir;

namespace cotangent::cuda {

namespace {

const DialectRegistry &gpuLoweringRegistry() {
  static DialectRegistry registry = [] {
    DialectRegistry r;
    host::loweringRegistry().appendTo(r);
    registerAllGPUToLLVMIRTranslations(r);
    return r;
  }();
  return registry;
}

/// "<what>: <the runtime's last error>" at `loc`; clears the error.
LogicalResult runtimeError(Location loc, const llvm::Twine &what) {
  std::string message = cotangent_cuda_last_error();
  cotangent_cuda_clear_error();
  return emitError(loc) << what << ": " << message;
}

} // namespace

host::JitTarget gpuTarget(const CompileOptions &options) {
  host::JitTarget target;
  target.deviceName = "the GPU";
  target.registry = &gpuLoweringRegistry();
  target.buildPipeline = [options](OpPassManager &pm) {
    mlir::cotangent::JxToNVVMOptions pipeline;
    pipeline.chip = options.chip;
    pipeline.format = mlir::cotangent::KernelFormat::Bin;
    pipeline.cublas = options.cublas;
    pipeline.vectorBytes = options.vectorBytes;
    mlir::cotangent::buildJxToNVVMPipeline(pm, pipeline);
  };
  target.optLevel = 2;
  // Every name, the allocation hooks and matmuls included, from the one table.
  for (const Binding &binding : runtimeBindings())
    target.symbols.entries.emplace_back(binding.entry, binding.address);
  return target;
}

CudaModule::CudaModule() : CompiledModule(deviceByteCounter()) {}

LogicalResult compileHostCode(ModuleOp module, llvm::StringRef chip) {
  host::JitTarget target = gpuTarget({.chip = chip.str()});
  auto lowered = host::lowerClone(module, target);
  if (failed(lowered))
    return failure();
  auto engine = host::JitEngine::create(**lowered, target, module.getLoc());
  if (failed(engine))
    return failure();
  // Compiles the host code; the initializers (which load kernels) do not run.
  for (auto fn : (*lowered)->getOps<LLVM::LLVMFuncOp>())
    if (fn.getName().starts_with(host::kCInterfacePrefix) && !fn.isExternal())
      if (auto entry =
              (*engine)->lookupPacked(fn.getName().drop_front(host::kCInterfacePrefix.size()));
          !entry)
        return emitError(module.getLoc(), "JIT lookup failed: ")
               << llvm::toString(entry.takeError());
  return success();
}

namespace {

/// Collectives run over NCCL on the job's group: NCCL must be there, the
/// axis sizes the group's, and gathers and scatters along the first
/// dimension with data (the rank-major layout NCCL has; CudaCollectives.cpp).
LogicalResult checkCollectives(ModuleOp module) {
  bool any = false;
  WalkResult walk = module.walk([&](Operation *op) {
    if (!jx::isCollective(op))
      return WalkResult::advance();
    any = true;
    auto leading = [&](int64_t dimension) {
      auto shape = cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
      for (int64_t d = 0; d < dimension; ++d)
        if (shape[d] != 1)
          return false;
      return true;
    };
    int64_t dimension = 0;
    if (auto gather = dyn_cast<jx::AllGatherOp>(op))
      dimension = gather.getDimension();
    if (auto scatter = dyn_cast<jx::PsumScatterOp>(op))
      dimension = scatter.getDimension();
    if (dimension > 0 && !leading(dimension)) {
      op->emitError() << op->getName() << " along dimension " << dimension
                      << " is not compiled for the GPU yet (NCCL's layout is rank-major: "
                         "dimension 0, or after dimensions of size 1)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!any)
    return success();
  if (failed(jx::checkGroupSize(module, comm::world().size(),
                                comm::launchedByMpi() ? "started by mpirun"
                                                      : "one process; start it with mpirun -np N "
                                                        "for more")))
    return failure();
  const char *why = nullptr;
  if (!cotangent_cuda_collectives_ready(&why))
    return emitError(module.getLoc()) << "collectives on the GPU: " << why;
  return success();
}

} // namespace

llvm::FailureOr<std::unique_ptr<CudaModule>> CudaModule::compile(ModuleOp module,
                                                                 const CompileOptions &options) {
  if (cotangent_cuda_init() != 0)
    return runtimeError(module.getLoc(), "cannot run on the GPU");
  if (failed(checkCollectives(module)))
    return failure();
  CompileOptions resolved = options;
  if (resolved.chip.empty())
    resolved.chip = "sm_" + std::to_string(cotangent_cuda_compute_capability());
  std::unique_ptr<CudaModule> result(new CudaModule());
  if (failed(result->load(module, gpuTarget(resolved))))
    return failure();
  return result;
}

namespace {

/// Who holds a resident array's block (Tensor::DeviceBytes::device): the
/// process's one CUDA context, shared by every CudaModule.
const char kGpu = 0;

/// What a tensor whose bytes are resident `block` says of them.
Tensor::DeviceBytes residentBytes(void *block) {
  return {&kGpu, block,
          [](char *host, const void *b, size_t bytes) {
            return cotangent_cuda_copy_to_host(host, b, bytes) == 0;
          },
          [](void *b) { cotangent_cuda_array_free(b); }};
}

} // namespace

llvm::FailureOr<Tensor> devicePut(const Tensor &t, Location loc) {
  if (t.getDeviceBlock(&kGpu))
    return t;
  if (cotangent_cuda_init() != 0)
    return runtimeError(loc, "device_put: cannot run on the GPU");
  void *block = cotangent_cuda_array_alloc(t.getByteSize());
  if (!block || (t.getByteSize() > 0 &&
                 cotangent_cuda_copy_to_device(block, t.data(), t.getByteSize()) != 0)) {
    cotangent_cuda_array_free(block);
    return runtimeError(loc, "device_put: copying an array to the GPU failed");
  }
  return Tensor::onDevice(t.getType(), residentBytes(block));
}

llvm::FailureOr<host::MemRefDescriptor> CudaModule::upload(const Tensor &t) {
  // An array already in the GPU's memory is read where it is (an uncounted
  // block: not the call's to free).
  if (void *block = t.getDeviceBlock(&kGpu))
    return host::MemRefDescriptor::contiguous(block, t.getShape());
  void *data = cotangent_cuda_alloc(t.getByteSize());
  if (!data || (t.getByteSize() > 0 &&
                cotangent_cuda_copy_to_device(data, t.data(), t.getByteSize()) != 0))
    return runtimeError(loc(), "copying an argument to the GPU failed");
  return host::MemRefDescriptor::contiguous(data, t.getShape());
}

Tensor CudaModule::download(RankedTensorType type, const host::MemRefDescriptor &descriptor) {
  // The whole block comes over, then the view is read from the copy.
  int64_t bytes = cotangent_cuda_block_size(descriptor.allocated());
  if (bytes < 0 && cotangent_cuda_is_pinned(descriptor.allocated()))
    return host::readTensor(descriptor, type); // an offloaded copy, in host memory
  if (bytes < 0) // a view of a resident array: the bytes up to its last element
    bytes = descriptor.extentBytes(host::elementBytes(type));
  std::vector<char> block(std::max<int64_t>(bytes, 1));
  if (bytes > 0 && cotangent_cuda_copy_to_host(block.data(), descriptor.allocated(), bytes) != 0)
    return Tensor(type);
  return host::readTensor(descriptor.rebased(block.data()), type);
}

void CudaModule::release(void *block) { cotangent_cuda_free(block); }

std::optional<Tensor> CudaModule::adopt(RankedTensorType type,
                                        const host::MemRefDescriptor &descriptor) {
  // The block leaves the count (it is the caller's array now) and is freed
  // as an array when the last Tensor sharing it goes.
  void *block = descriptor.allocated();
  if (!deviceResident || cotangent_cuda_block_size(block) < 0 ||
      !deviceByteCounter().freed(block))
    return std::nullopt;
  return Tensor::onDevice(type, residentBytes(block));
}

LogicalResult CudaModule::initialize(host::JitEngine &engine) {
  if (failed(CompiledModule::initialize(engine)))
    return failure();
  return checkDevice("loading the kernels failed");
}

void CudaModule::wait() { cotangent_cuda_synchronize(); }

LogicalResult CudaModule::checkDevice(const llvm::Twine &what) {
  if (*cotangent_cuda_last_error())
    return runtimeError(loc(), what);
  return success();
}

bool CudaModule::offloads(host::MemoryKind kind) const {
  return kind == host::MemoryKind::PinnedHost;
}

llvm::FailureOr<host::MemRefDescriptor>
CudaModule::offload(RankedTensorType type, const host::MemRefDescriptor &residual,
                    host::MemoryKind) {
  // The forward copied it to pinned memory itself (jx-gpu-offload-residuals).
  if (cotangent_cuda_is_pinned(residual.allocated()))
    return residual;
  // A contiguous residual is copied as it is, on the offload stream; a
  // strided view goes through the host (rare: residuals are whole buffers).
  int64_t bytes = host::bufferBytes(type);
  void *staging = cotangent_cuda_host_alloc(bytes);
  if (!staging)
    return runtimeError(loc(), "pinned host allocation failed");
  bool copied;
  if (residual.isContiguous()) {
    const char *first = residual.first(host::elementBytes(type));
    copied = bytes == 0 || cotangent_cuda_offload(staging, first, bytes) == 0;
  } else {
    Tensor elements = download(type, residual);
    std::memcpy(staging, elements.data(), bytes);
    copied = !*cotangent_cuda_last_error();
  }
  if (!copied) {
    cotangent_cuda_host_free(staging);
    return runtimeError(loc(), "offloading a residual failed");
  }
  return host::MemRefDescriptor::contiguous(staging, type.getShape());
}

llvm::FailureOr<host::MemRefDescriptor>
CudaModule::reload(RankedTensorType, const host::MemRefDescriptor &offloaded) {
  // The backward copies it to the device itself, right before its first use
  // (jx-gpu-reload-residuals): it takes the pinned buffer.
  return offloaded;
}

void CudaModule::discard(const host::MemRefDescriptor &offloaded) {
  cotangent_cuda_host_free(offloaded.allocated());
}

} // namespace cotangent::cuda
