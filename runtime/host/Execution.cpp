//===- Execution.cpp - calls and the fwd/bwd split on host tensors --------===//
//
// call(): each argument is uploaded (the device decides whether that is a
// descriptor over the host tensor's buffer or a copy), the peak is reset so
// that it counts what compiled code allocates from here, the packed entry
// runs, each result becomes a host tensor (taking over its block where the
// device's memory is the host's and the result fills it alone, else a copy),
// and every other block of the hooks among the arguments' and results' is
// freed once.
//
// runSplit(): arguments and cotangents are uploaded before the measurement
// starts; the split then runs by runtime/core's protocol (SplitRun.h, the
// one cotangent-step runs too) with this module as its target: the primal
// outputs go to the host right after @f_fwd, residuals marked with a memory
// kind the device offloads wait there, and the gradients come back as host
// tensors (taking over their blocks where they can).
//
//===----------------------------------------------------------------------===//

#include "runtime/host/CompiledModule.h"

#include "runtime/core/SplitRun.h"
#include "runtime/host/AllocationFailure.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <chrono>

using namespace mlir;

namespace cotangent::host {

namespace {
thread_local bool inCompiledCode = false;
} // namespace

bool runningCompiledCode() { return inCompiledCode; }

/// Blocks one run frees, each once, when it ends however it ends: only
/// those the hooks counted (an argument on the CPU is the caller's buffer).
class CompiledModule::Blocks {
public:
  explicit Blocks(CompiledModule &module) : module(module) {}
  Blocks(const Blocks &) = delete;
  Blocks &operator=(const Blocks &) = delete;
  ~Blocks() { releaseAll(); }

  void add(void *block) { blocks.insert(block); }
  bool contains(void *block) const { return blocks.contains(block); }
  /// Leaves `block` to another owner.
  void erase(void *block) { blocks.erase(block); }
  /// Leaves every block of `owner` to it.
  void eraseAll(const Blocks &owner) {
    for (void *block : owner.blocks)
      blocks.erase(block);
  }
  void releaseAll() {
    for (void *block : blocks)
      if (block && module.counter.sizeOf(block) >= 0)
        module.release(block);
    blocks.clear();
  }

private:
  CompiledModule &module;
  llvm::SmallPtrSet<void *, 32> blocks; // a step's arguments and results: no allocation
};

std::vector<Tensor> CompiledModule::downloadAll(llvm::ArrayRef<mlir::RankedTensorType> types,
                                                llvm::ArrayRef<MemRefDescriptor> descriptors,
                                                Blocks *owned,
                                                llvm::MutableArrayRef<std::optional<Tensor>>
                                                    given) {
  std::vector<Tensor> tensors;
  downloadAll(types, descriptors, owned, given, tensors);
  return tensors;
}

void CompiledModule::downloadAll(llvm::ArrayRef<mlir::RankedTensorType> types,
                                 llvm::ArrayRef<MemRefDescriptor> descriptors, Blocks *owned,
                                 llvm::MutableArrayRef<std::optional<Tensor>> given,
                                 std::vector<Tensor> &tensors) {
  tensors.reserve(tensors.size() + types.size());
  for (auto [i, type, descriptor] : llvm::enumerate(types, descriptors)) {
    if (i < given.size() && given[i]) {
      tensors.push_back(std::move(*given[i]));
      continue;
    }
    void *block = descriptor.allocated();
    bool fromStart =
        owned && block && owned->contains(block) && descriptor.isContiguousFromBlockStart();
    if (fromStart)
      if (std::optional<Tensor> adopted = adopt(type, descriptor)) {
        owned->erase(block);
        tensors.push_back(std::move(*adopted));
        continue;
      }
    tensors.push_back(download(type, descriptor));
  }
}

/// An error at `loc` naming the first of `args` that went to an earlier
/// call it was donated to (reading it would throw).
static LogicalResult checkNotDonated(Location loc, llvm::StringRef name,
                                     llvm::ArrayRef<Tensor> args) {
  for (auto [i, arg] : llvm::enumerate(args))
    if (arg.isDonated())
      return emitError(loc) << "@" << name << " argument #" << i
                            << " was donated to an earlier call and cannot be used (pass that "
                               "call's result)";
  return success();
}

LogicalResult CompiledModule::uploadAll(llvm::ArrayRef<Tensor> tensors,
                                        llvm::SmallVectorImpl<MemRefDescriptor> &into,
                                        Blocks &blocks) {
  for (const Tensor &t : tensors) {
    auto uploaded = upload(t);
    if (failed(uploaded))
      return failure();
    blocks.add(uploaded->allocated());
    into.push_back(std::move(*uploaded));
  }
  return success();
}

LogicalResult CompiledModule::invoke(llvm::StringRef name,
                                     llvm::MutableArrayRef<MemRefDescriptor> args,
                                     llvm::SmallVectorImpl<MemRefDescriptor> &results,
                                     double &seconds,
                                     Blocks *resultBlocks) {
  const Signature &sig = signatures.find(name)->second;
  // The results come back as one struct of descriptors, written through the
  // first packed argument when there is any result. (Inline sizes: a
  // training step's calls allocate nothing here.)
  llvm::SmallVector<int64_t, 512> resultWords;
  llvm::SmallVector<int64_t, 64> offsets;
  for (RankedTensorType t : sig.results) {
    offsets.push_back(static_cast<int64_t>(resultWords.size()));
    resultWords.resize(resultWords.size() + MemRefDescriptor::numWords(t.getRank()));
  }
  resultWords.resize(std::max<size_t>(resultWords.size(), 1));
  void *resultStruct = resultWords.data();
  llvm::SmallVector<void *, 64> descriptors;
  for (MemRefDescriptor &arg : args)
    descriptors.push_back(arg.address());
  llvm::SmallVector<void *, 65> packed;
  if (!sig.results.empty())
    packed.push_back(&resultStruct);
  for (void *&descriptor : descriptors)
    packed.push_back(&descriptor);

  auto start = std::chrono::steady_clock::now();
  struct Call {
    void (*entry)(void **);
    void **args;
  } call{entries.lookup(name), packed.data()};
  inCompiledCode = true;
  std::optional<uint64_t> failedBytes = runCatchingAllocationFailure(
      [](void *c) { static_cast<Call *>(c)->entry(static_cast<Call *>(c)->args); }, &call);
  inCompiledCode = false;
  if (failedBytes)
    return emitError(loc()) << "@" << name << " ran out of memory on " << deviceName
                            << ": it could not allocate " << *failedBytes << " bytes ("
                            << counter.live() << " bytes live)";
  if (!deviceResident)
    wait();
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  results.clear();
  for (auto [type, offset] : llvm::zip(sig.results, offsets)) {
    results.emplace_back(resultWords.data() + offset, type.getRank());
    if (resultBlocks)
      resultBlocks->add(results.back().allocated());
  }
  return checkDevice("@" + name + " failed on " + deviceName);
}

llvm::FailureOr<CallResult> CompiledModule::call(llvm::StringRef name,
                                                 llvm::ArrayRef<Tensor> args) {
  CallResult out;
  if (failed(call(name, args, out)))
    return failure();
  return out;
}

LogicalResult CompiledModule::call(llvm::StringRef name, llvm::ArrayRef<Tensor> args,
                                   CallResult &out) {
  out.results.clear();
  const Signature *sig = getSignature(name);
  if (!sig)
    return emitError(loc()) << "no public function @" << name << " to call", failure();
  if (failed(interp::checkArguments(loc(), name, sig->inputs, args)))
    return failure();
  if (failed(checkNotDonated(loc(), name, args)))
    return failure();
  // Compiled code writes over a donated argument's buffer: no other
  // argument may read it.
  for (auto [i, donated] : llvm::enumerate(sig->donatedTo))
    for (size_t j = 0; donated && j < args.size(); ++j)
      if (j != i && args[i].getBufferId() == args[j].getBufferId())
        return emitError(loc()) << "@" << name << " argument #" << i
                                << " is donated but shares its buffer with argument #" << j
                                << ": donate a copy of it, or pass it once",
               failure();
  Blocks blocks(*this);
  llvm::SmallVector<MemRefDescriptor, 32> inputs;
  if (failed(uploadAll(args, inputs, blocks)))
    return failure();
  // Donated arguments are given up once the call starts, however it ends.
  std::string donatedTo = "@" + name.str();
  llvm::SmallVector<std::optional<Tensor>, 32> taken(sig->results.size());
  llvm::scope_exit giveUpDonated([&] {
    for (auto [i, result] : llvm::enumerate(sig->donatedTo))
      if (result && !taken[*result])
        (void)args[i].donate(args[i].getType(), donatedTo);
  });

  counter.resetPeak();
  int64_t before = counter.live();
  llvm::SmallVector<MemRefDescriptor, 32> results;
  LogicalResult ran = invoke(name, inputs, results, out.seconds, &blocks);
  out.stats.liveBytes = counter.live() - before;
  out.stats.peakBytes = counter.peak() - before;
  if (failed(ran))
    return failure();
  // A result that is the whole of an argument's own bytes (passed in place:
  // not a block of the hooks, but a host tensor on the CPU or an array
  // already in the device's memory) is that argument: written over it when
  // donated, and taking its bytes over, else returned as it is
  // (jx-alias-argument-results).
  auto isArgument = [&](size_t k, size_t i) {
    const MemRefDescriptor &r = results[k];
    void *block = inputs[i].allocated();
    return block && r.allocated() == block && counter.sizeOf(block) < 0 &&
           r.isContiguousFromBlockStart() && bufferBytes(sig->results[k]) == args[i].getByteSize();
  };
  for (auto [i, result] : llvm::enumerate(sig->donatedTo))
    if (result && isArgument(*result, i))
      taken[*result] = args[i].donate(sig->results[*result], donatedTo);
  for (size_t k = 0; k < results.size(); ++k)
    for (size_t i = 0; !taken[k] && i < args.size(); ++i)
      if (!sig->donatedTo[i] && isArgument(k, i))
        taken[k] = args[i].withType(sig->results[k]);
  downloadAll(sig->results, results, &blocks, taken, out.results);
  if (failed(checkDevice("reading the results of @" + name)))
    return failure();
  return success();
}

std::vector<Tensor> CompiledModule::freshArguments(llvm::StringRef name,
                                                   llvm::ArrayRef<Tensor> args) const {
  std::vector<Tensor> fresh(args.begin(), args.end());
  if (const Signature *sig = getSignature(name))
    for (auto [i, donated] : llvm::enumerate(sig->donatedTo))
      if (donated && i < fresh.size())
        fresh[i] = fresh[i].clone();
  return fresh;
}

/// The module's split as runtime/core runs it: its forward and backward
/// entries, the allocation hooks' count, the device's offload.
class CompiledModule::SplitTargetOf final : public core::SplitTarget {
public:
  SplitTargetOf(CompiledModule &module, llvm::StringRef fwd, llvm::StringRef bwd,
                const Signature &fwdSignature)
      : module(module), fwd(fwd), bwd(bwd), fwdSignature(fwdSignature) {}

  bool invoke(Half half, std::vector<MemRefDescriptor> &args,
              std::vector<MemRefDescriptor> &results, double &seconds) override {
    llvm::SmallVector<MemRefDescriptor, 32> returned;
    LogicalResult ran =
        module.invoke(half == Half::Forward ? fwd : bwd, args, returned, seconds, nullptr);
    results.assign(returned.begin(), returned.end());
    return succeeded(ran);
  }
  int64_t liveBytes() const override { return module.counter.live(); }
  int64_t peakBytes() const override { return module.counter.peak(); }
  void resetPeak() override { module.counter.resetPeak(); }
  int64_t blockBytes(void *block) const override { return module.counter.sizeOf(block); }
  void release(void *block) override { module.release(block); }
  bool offload(size_t result, const MemRefDescriptor &residual, MemRefDescriptor &copy) override {
    auto offloaded = module.offload(fwdSignature.results[result], residual,
                                    fwdSignature.resultKinds[result]);
    if (failed(offloaded))
      return false;
    copy = std::move(*offloaded);
    return true;
  }
  bool reload(size_t result, const MemRefDescriptor &copy, MemRefDescriptor &reloaded) override {
    auto fresh = module.reload(fwdSignature.results[result], copy);
    if (failed(fresh))
      return false;
    reloaded = std::move(*fresh);
    return true;
  }
  void discard(const MemRefDescriptor &copy) override { module.discard(copy); }

private:
  CompiledModule &module;
  llvm::StringRef fwd, bwd;
  const Signature &fwdSignature;
};

llvm::FailureOr<SplitResult> CompiledModule::runSplit(llvm::StringRef base,
                                                      llvm::ArrayRef<Tensor> args,
                                                      llvm::ArrayRef<Tensor> cotangents) {
  std::optional<SplitFunctions> split = findSplit(*source, base);
  const Signature *fwd = split ? getSignature(split->fwd.getName()) : nullptr;
  const Signature *bwd = split ? getSignature(split->bwd.getName()) : nullptr;
  if (!fwd || !bwd)
    return emitError(loc()) << "no forward/backward pair of @" << base
                            << " (run --jx-vjp first)",
           failure();
  llvm::StringRef fwdName = split->fwd.getName(), bwdName = split->bwd.getName();
  size_t numOutputs = split->primal ? split->primal.getNumResults() : cotangents.size();
  if (numOutputs > fwd->results.size() || cotangents.size() != numOutputs)
    return emitError(loc()) << "@" << base << " has " << numOutputs << " outputs but "
                            << cotangents.size() << " cotangents were given",
           failure();
  size_t numResiduals = fwd->results.size() - numOutputs;
  if (failed(interp::checkArguments(loc(), fwdName, fwd->inputs, args)) ||
      failed(interp::checkArguments(loc(), bwdName, bwd->inputs, cotangents, numResiduals)) ||
      failed(checkNotDonated(loc(), fwdName, args)) ||
      failed(checkNotDonated(loc(), bwdName, cotangents)))
    return failure();

  // The uploads and the gradients' blocks are freed when the split ends.
  Blocks blocks(*this);
  llvm::SmallVector<MemRefDescriptor> fwdInputs, cotangentInputs;
  if (failed(uploadAll(args, fwdInputs, blocks)) ||
      failed(uploadAll(cotangents, cotangentInputs, blocks)))
    return failure();

  core::SplitLayout layout;
  layout.numOutputs = numOutputs;
  for (auto [i, type, kind] : llvm::enumerate(fwd->results, fwd->resultKinds)) {
    layout.resultBytes.push_back(bufferBytes(type));
    layout.offloaded.push_back(i >= numOutputs && kind != MemoryKind::Device && offloads(kind));
  }
  SplitResult out;
  auto readOutputs = [&](const std::vector<MemRefDescriptor> &outputs) {
    out.outputs = downloadAll(llvm::ArrayRef(fwd->results).take_front(numOutputs), outputs);
    return succeeded(checkDevice("reading the outputs of @" + fwdName));
  };
  SplitTargetOf target(*this, fwdName, bwdName, *fwd);
  core::SplitRun run;
  if (!core::runSplit(target, layout, {fwdInputs.begin(), fwdInputs.end()},
                      {cotangentInputs.begin(), cotangentInputs.end()}, readOutputs, run))
    return failure();
  for (void *block : run.resultBlocks)
    blocks.add(block);
  out.gradients = downloadAll(bwd->results, run.gradients, &blocks);
  if (failed(checkDevice("reading the results of @" + bwdName)))
    return failure();
  static_cast<core::SplitFigures &>(out) = run;
  return out;
}

} // namespace cotangent::host
