//===- TrainCheckpoint.h - cotangent-train's checkpoints ---------*- C++ -*-===//
//
// What a GPT-2 training run saves and resumes from: the parameters under
// Hugging Face's names ("wte.weight", "h.0.attn.c_attn.weight", ...), the
// optimizer state under "opt_state/" + its key ("opt_state/1/0/mu['wte']
// ['weight']"), and as metadata the step, the data seed and position, the
// preset and the batch shape. One safetensors file per checkpoint,
// `step-00000100.safetensors` in the checkpoint directory, written
// atomically; the last `keep` are kept. Resuming reads the newest one that
// is whole and matches the run, naming each file it refuses and why.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COTANGENT_TRAIN_TRAINCHECKPOINT_H
#define COTANGENT_TOOLS_COTANGENT_TRAIN_TRAINCHECKPOINT_H

#include "checkpoint/Safetensors.h"
#include "models/gpt2/Params.h"
#include "tracer/optim/GradientTransformation.h"

#include <functional>
#include <optional>
#include <string>

namespace cotangent::train {

using HostParams = gpt2::Params<interp::Tensor>;
using HostState = optim::StateOf<interp::Tensor>;

struct TrainState {
  HostParams params;
  HostState opt_state;
  uint64_t step = 0; ///< steps done; the next batch is the sampler's at(step)
};

/// What must agree between a checkpoint and the run resuming it.
struct RunIdentity {
  std::string preset;
  int64_t batch = 0, seq = 0;
  uint64_t seed = 0;
};

/// `state` as a safetensors file.
safetensors::File toFile(const TrainState &state, const RunIdentity &run);
/// The state in `file`, shaped like `like` (every tensor present, of its
/// dtype and shape, nothing else), or the error naming the tensor.
std::optional<TrainState> fromFile(const safetensors::File &file, const TrainState &like,
                                   const RunIdentity &run, std::string &error);
/// A Hugging Face GPT-2 checkpoint's weights ("wte.weight", ... or with a
/// "transformer." prefix; attn.bias buffers ignored) into `params`' leaves;
/// the error names a missing or misshapen tensor.
std::optional<std::string> loadHfWeights(const safetensors::File &file, HostParams &params);

/// The checkpoint file of `step` in `dir`.
std::string checkpointPath(const std::string &dir, uint64_t step);
/// Writes `state` to `dir` (created if missing), keeping the newest `keep`
/// checkpoints: the oldest beyond keep - 1 go before the write, so the
/// directory never holds more than `keep` (with keep 1, the old one goes
/// after the new one is whole). The error, or nullopt; a failed write
/// leaves the checkpoints there were.
std::optional<std::string> saveCheckpoint(const std::string &dir, const TrainState &state,
                                          const RunIdentity &run, int64_t keep);
/// Deletes all but the newest `keep` checkpoints of `dir`.
void pruneCheckpoints(const std::string &dir, int64_t keep);
/// The newest checkpoint of `dir` that reads and matches; each refused one
/// is reported through `refused` ("PATH: why"), and a corrupt one renamed
/// to PATH.refused so that it leaves the rotation. nullopt when there is
/// none.
std::optional<TrainState> latestCheckpoint(const std::string &dir, const TrainState &like,
                                           const RunIdentity &run,
                                           const std::function<void(const std::string &)> &refused);

} // namespace cotangent::train

#endif // COTANGENT_TOOLS_COTANGENT_TRAIN_TRAINCHECKPOINT_H
