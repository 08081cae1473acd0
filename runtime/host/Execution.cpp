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
// starts. After @f_fwd the primal outputs go to the host and their blocks
// are freed unless a held residual shares them; a residual marked with a
// memory kind the device offloads is copied there and its block freed as
// well. What is then live, plus the residuals that are arguments held by
// reference, is the residual bytes. Offloaded residuals come back into fresh
// blocks before @f_bwd; the peak covers both calls.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/CompiledModule.h"

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
    bool fromStart = owned && block && owned->contains(block) && descriptor.aligned() == block &&
                     descriptor.offset() == 0 && descriptor.isContiguous(type);
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
                                     Blocks &resultBlocks) {
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
    resultBlocks.add(results.back().allocated());
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
  LogicalResult ran = invoke(name, inputs, results, out.seconds, blocks);
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
           r.aligned() == block && r.offset() == 0 && r.isContiguous(sig->results[k]) &&
           bufferBytes(sig->results[k]) == args[i].getByteSize();
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

  // Freed when the split ends: the uploads, the residuals held in the
  // device's memory, the gradients; offloaded copies are discarded then.
  Blocks blocks(*this);
  llvm::SmallVector<MemRefDescriptor> offloaded;
  llvm::scope_exit discardOffloaded([&] {
    for (const MemRefDescriptor &copy : offloaded)
      discard(copy);
  });
  llvm::SmallVector<MemRefDescriptor> fwdInputs, cotangentInputs;
  if (failed(uploadAll(args, fwdInputs, blocks)) ||
      failed(uploadAll(cotangents, cotangentInputs, blocks)))
    return failure();

  SplitResult out;
  out.numResiduals = static_cast<int64_t>(numResiduals);
  counter.resetPeak();
  int64_t before = counter.live();
  // What @f_fwd returned and nothing held shares: freed after the forward.
  Blocks dropped(*this);
  llvm::SmallVector<MemRefDescriptor> fwdResults;
  if (failed(invoke(fwdName, fwdInputs, fwdResults, out.seconds, dropped)))
    return failure();
  dropped.eraseAll(blocks); // an output may be an upload

  // Outputs to the host; residuals stay, or wait where their kind says.
  out.outputs = downloadAll(llvm::ArrayRef(fwd->results).take_front(numOutputs),
                            llvm::ArrayRef(fwdResults).take_front(numOutputs));
  if (failed(checkDevice("reading the outputs of @" + fwdName)))
    return failure();
  llvm::SmallVector<MemRefDescriptor> residuals(fwdResults.begin() + numOutputs, fwdResults.end());
  std::vector<bool> isOffloaded(numResiduals, false);
  for (auto [i, residual] : llvm::enumerate(residuals)) {
    MemoryKind kind = fwd->resultKinds[numOutputs + i];
    if (kind == MemoryKind::Device || !offloads(kind)) {
      dropped.erase(residual.allocated());
      blocks.add(residual.allocated());
      continue;
    }
    // The copy is made now; the residual's own block goes with `dropped`
    // (unless the forward returned the copy itself).
    RankedTensorType type = fwd->results[numOutputs + i];
    auto copy = offload(type, residual, kind);
    if (failed(copy))
      return failure();
    if (copy->allocated() == residual.allocated())
      dropped.erase(residual.allocated());
    offloaded.push_back(*copy);
    out.offloadedBytes += bufferBytes(type);
    residual = std::move(*copy);
    isOffloaded[i] = true;
  }
  dropped.releaseAll();
  // A residual that is an argument is the argument's own buffer (see
  // jx-alias-argument-results): held, but not allocated by the forward.
  for (auto [i, residual] : llvm::enumerate(residuals))
    if (!isOffloaded[i] && llvm::any_of(fwdInputs, [&](const MemRefDescriptor &in) {
          return in.allocated() == residual.allocated();
        }))
      out.argumentResidualBytes += bufferBytes(fwd->results[numOutputs + i]);
  out.residualBytes = counter.live() - before + out.argumentResidualBytes;

  // Offloaded residuals come back into fresh blocks.
  for (auto [i, residual] : llvm::enumerate(residuals)) {
    if (!isOffloaded[i])
      continue;
    auto reloaded = reload(fwd->results[numOutputs + i], residual);
    if (failed(reloaded))
      return failure();
    blocks.add(reloaded->allocated());
    residual = std::move(*reloaded);
  }
  llvm::SmallVector<MemRefDescriptor> bwdInputs = std::move(residuals);
  bwdInputs.insert(bwdInputs.end(), cotangentInputs.begin(), cotangentInputs.end());
  llvm::SmallVector<MemRefDescriptor> bwdResults;
  LogicalResult ranBwd = invoke(bwdName, bwdInputs, bwdResults, out.seconds, blocks);
  out.peakBytes = counter.peak() - before;
  if (failed(ranBwd))
    return failure();
  out.gradients = downloadAll(bwd->results, bwdResults, &blocks);
  if (failed(checkDevice("reading the results of @" + bwdName)))
    return failure();
  return out;
}

} // namespace cotangent::host
