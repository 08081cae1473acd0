//===- CompiledModule.h - jx functions compiled for one device --*- C++ -*-===//
//
// What the CPU and CUDA runtimes share above their devices: a jx module
// lowered and JIT-compiled once (JitEngine.h), the signature of each public
// function, and calls by name on host tensors: arguments checked and passed
// as memref descriptors, results read back and freed, the allocation hooks'
// live and peak bytes measured; and the split (@f_fwd, its residuals held,
// then @f_bwd), with residuals that --jx-remat marked for another memory
// kind offloaded where the device can.
//
// A runtime derives from CompiledModule (cpu::CpuModule, cuda::CudaModule)
// and says only what its device does differently: how an argument reaches
// memory compiled code reads, how a block is freed, whether calls must be
// waited for and checked, and how residuals are offloaded.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_COMPILEDMODULE_H
#define COTANGENT_RUNTIME_HOST_COMPILEDMODULE_H

#include "runtime/host/ByteCounter.h"
#include "runtime/host/JitEngine.h"
#include "runtime/host/HostTensors.h"
#include "runtime/host/RunResults.h"
#include "runtime/host/SplitContract.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cotangent::host {

/// Whether this thread is inside compiled code now (a call's entry point,
/// with the runtime functions it calls: BLAS, oneDNN, the allocation
/// hooks): what tells a step's own work from the host's bookkeeping around
/// it, for a profiler or the bench's allocation count.
bool runningCompiledCode();

class CompiledModule {
public:
  /// The signature of a public function: tensor argument and result types,
  /// and the memory kind of each result.
  struct Signature {
    std::vector<mlir::RankedTensorType> inputs, results;
    std::vector<MemoryKind> resultKinds;
    /// Per input: the result written over it when the caller donates it
    /// (jx.donated_to), or nullopt.
    std::vector<std::optional<unsigned>> donatedTo;
  };

  virtual ~CompiledModule();

  /// Calls the public function `name` on `args` (checked against its
  /// signature; a mismatch is an error on the module). An argument the
  /// function takes donated (Signature::donatedTo) is given up: where the
  /// device's memory is the host's, its result was written over its bytes
  /// and takes them over, and every Tensor sharing them is left donated
  /// (Tensor::donate) whether or not the call succeeded. A donated argument
  /// may share its buffer with no other argument.
  llvm::FailureOr<CallResult> call(llvm::StringRef name, llvm::ArrayRef<Tensor> args);
  /// The same into `out`, whose results vector keeps its capacity from call
  /// to call: a training loop's steady state allocates nothing here.
  llvm::LogicalResult call(llvm::StringRef name, llvm::ArrayRef<Tensor> args, CallResult &out);

  /// Leaves results in the device's memory (Tensor::onDevice, read on the
  /// host only when something reads them) and returns from calls once their
  /// work is queued: how jit keeps arrays on a GPU between steps. An
  /// argument already in this device's memory is read in place. No effect
  /// where the device's memory is the host's.
  void setDeviceResident(bool resident) { deviceResident = resident; }

  /// `args` with a copy of each one public function `name` takes donated:
  /// what to pass to call it again on the same inputs (a tool's repeated
  /// runs), each run given up only its own copies.
  std::vector<Tensor> freshArguments(llvm::StringRef name, llvm::ArrayRef<Tensor> args) const;

  /// Runs @base's forward on `args`, holds its residuals (in the device's
  /// memory, or offloaded where --jx-remat said so and the device can),
  /// then its backward on them and `cotangents` (one per primal output).
  /// The number of primal outputs is read off @base when the module has it,
  /// else it is the number of cotangents given.
  llvm::FailureOr<SplitResult> runSplit(llvm::StringRef base, llvm::ArrayRef<Tensor> args,
                                        llvm::ArrayRef<Tensor> cotangents);

  /// The signatures of `module`'s public functions; an error (naming where
  /// the code was to run, `deviceName`) if one is not ranked static tensors
  /// of jx element types.
  static llvm::FailureOr<llvm::StringMap<Signature>> readSignatures(mlir::ModuleOp module,
                                                                    llvm::StringRef deviceName);

  /// The signature of public function `name`, or null.
  const Signature *getSignature(llvm::StringRef name) const;
  const llvm::StringMap<Signature> &getSignatures() const { return signatures; }

  /// The module as lowered to the LLVM dialect.
  mlir::ModuleOp getLoweredModule() const {
    return const_cast<CompiledModule *>(this)->lowered.get();
  }

protected:
  /// `counter` counts the blocks of the allocation hooks `load` binds.
  explicit CompiledModule(ByteCounter &counter);

  /// The body of a runtime's compile(): checks and records the signatures
  /// of `module`'s public functions, lowers a clone for `target`, JIT-compiles
  /// it, runs its initializers and looks up every entry point (so that
  /// calls time the code alone). Diagnostics go to the module's context.
  llvm::LogicalResult load(mlir::ModuleOp module, const JitTarget &target);

  /// Where errors of calls are reported: the module's location.
  mlir::Location loc() const;

  /// See setDeviceResident().
  bool deviceResident = false;

  //===--------------------------------------------------------------------===//
  // What the device decides
  //===--------------------------------------------------------------------===//

  /// A descriptor of `t`'s elements in memory compiled code reads: `t`'s
  /// own bytes where the device reads them in place (a host tensor on the
  /// CPU, one in this device's memory), else a copy in a block of the
  /// hooks, freed with the call's other blocks.
  virtual llvm::FailureOr<MemRefDescriptor> upload(const Tensor &t) = 0;
  /// Frees a block the allocation hooks counted.
  virtual void release(void *block) = 0;
  /// A host tensor of the elements `descriptor` views (a result of compiled
  /// code); the CPU reads them in place.
  virtual Tensor download(mlir::RankedTensorType type, const MemRefDescriptor &descriptor) {
    return readTensor(descriptor, type);
  }
  /// A host tensor that takes over `descriptor`'s block (a result compiled
  /// code wrote, contiguous from the block's start, which nothing else
  /// holds) and hands it back to the runtime when the tensor goes; nullopt
  /// where the device's memory is not the host's (then download() copies).
  virtual std::optional<Tensor> adopt(mlir::RankedTensorType type,
                                      const MemRefDescriptor &descriptor) {
    return std::nullopt;
  }
  /// Runs the module's global initializers (which may load kernels).
  virtual llvm::LogicalResult initialize(JitEngine &engine);
  /// Waits until the work a call started has finished (timed with the call;
  /// not called when results stay on the device, see setDeviceResident()).
  virtual void wait() {}
  /// Reports, as "<what>: <why>" at loc(), an error the device recorded
  /// since the last check.
  virtual llvm::LogicalResult checkDevice(const llvm::Twine &what) { return llvm::success(); }

  /// Whether residuals of memory kind `kind` can wait outside the device's
  /// memory; those that cannot stay with the other buffers.
  virtual bool offloads(MemoryKind kind) const { return false; }
  /// A copy of `residual`'s elements in the memory `kind` names, outside the
  /// hooks' count; the residual's own block is freed by the caller. The
  /// residual itself where the forward already put it there.
  virtual llvm::FailureOr<MemRefDescriptor> offload(mlir::RankedTensorType type,
                                                    const MemRefDescriptor &residual,
                                                    MemoryKind kind);
  /// A fresh block of the hooks holding an offloaded copy's elements.
  virtual llvm::FailureOr<MemRefDescriptor> reload(mlir::RankedTensorType type,
                                                   const MemRefDescriptor &offloaded);
  /// Frees an offloaded copy.
  virtual void discard(const MemRefDescriptor &offloaded);

private:
  class Blocks;
  /// This module as the split run's target (runtime/core/SplitRun.h).
  class SplitTargetOf;
  /// Calls entry `name` on `args`: `results` gets a descriptor per result
  /// and `resultBlocks`, where given, their blocks (also when the device
  /// reports an error); the call's time is added to `seconds`.
  llvm::LogicalResult invoke(llvm::StringRef name, llvm::MutableArrayRef<MemRefDescriptor> args,
                             llvm::SmallVectorImpl<MemRefDescriptor> &results, double &seconds,
                             Blocks *resultBlocks);
  /// Uploads `tensors`, each copy's block added to `blocks`.
  llvm::LogicalResult uploadAll(llvm::ArrayRef<Tensor> tensors,
                                llvm::SmallVectorImpl<MemRefDescriptor> &into,
                                Blocks &blocks);
  /// Host tensors of `types` from `descriptors`, in order: those `given`
  /// holds as they are; a block of `owned` that a result views contiguously
  /// from its start is adopted (and left by `owned`), once; the others are
  /// downloaded.
  std::vector<Tensor> downloadAll(llvm::ArrayRef<mlir::RankedTensorType> types,
                                  llvm::ArrayRef<MemRefDescriptor> descriptors,
                                  Blocks *owned = nullptr,
                                  llvm::MutableArrayRef<std::optional<Tensor>> given = {});
  /// The same appended to `tensors`.
  void downloadAll(llvm::ArrayRef<mlir::RankedTensorType> types,
                   llvm::ArrayRef<MemRefDescriptor> descriptors, Blocks *owned,
                   llvm::MutableArrayRef<std::optional<Tensor>> given, std::vector<Tensor> &tensors);

  ByteCounter &counter;
  std::string deviceName;
  /// The jx module as given, for reading its split contract.
  mlir::OwningOpRef<mlir::ModuleOp> source;
  mlir::OwningOpRef<mlir::ModuleOp> lowered;
  std::unique_ptr<JitEngine> engine;
  llvm::StringMap<Signature> signatures;
  /// The packed entry point of each public function.
  llvm::StringMap<JitEngine::PackedEntry> entries;
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_COMPILEDMODULE_H
