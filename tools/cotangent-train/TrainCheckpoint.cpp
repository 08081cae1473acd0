//===- TrainCheckpoint.cpp - cotangent-train's checkpoints -----------------===//

#include "tools/cotangent-train/TrainCheckpoint.h"

#include "tracer/Array.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CRC.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

using namespace cotangent;
using namespace cotangent::train;
namespace fs = std::filesystem;

namespace {

constexpr const char *kOptPrefix = "opt_state/";
constexpr const char *kFormat = "cotangent-train/1";
/// Metadata key of a tensor's CRC-32: flipped bytes in the data, which the
/// format's header cannot see, are refused by tensor.
const std::string kCrcPrefix = "crc32:";

std::string crc32Of(const std::string &bytes) {
  uint32_t crc = llvm::crc32(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", crc);
  return hex;
}

std::string safetensorsDtype(DType d) {
  switch (d) {
  case DType::F32: return "F32";
  case DType::F64: return "F64";
  case DType::BF16: return "BF16";
  case DType::F16: return "F16";
  case DType::I32: return "I32";
  case DType::I64: return "I64";
  case DType::Bool: return "BOOL";
  default: return "";
  }
}

safetensors::Tensor toTensor(const interp::Tensor &t) {
  return {safetensorsDtype(array::dtype(t)), array::shape(t),
          std::string(static_cast<const char *>(t.data()), static_cast<size_t>(t.getByteSize()))};
}

/// `t` read back into `like`'s dtype and shape, or the reason it cannot be.
std::optional<interp::Tensor> fromTensor(const safetensors::Tensor &t, const interp::Tensor &like,
                                         std::string &error) {
  const std::string want = safetensorsDtype(array::dtype(like));
  if (t.dtype != want || t.shape != array::shape(like)) {
    std::string shape;
    for (int64_t d : t.shape)
      shape += (shape.empty() ? "" : ",") + std::to_string(d);
    error = "is " + t.dtype + "[" + shape + "], the run needs " + array::str(like);
    return std::nullopt;
  }
  return array::fromBytes(t.bytes.data(), static_cast<size_t>(like.getNumElements()),
                          array::shape(like), array::dtype(like));
}

/// `like` with each leaf replaced by `leaf(its HF name, the leaf)`; nullopt
/// as soon as one gives none.
template <class F>
std::optional<HostParams> mapLeaves(const HostParams &like, F &&leaf) {
  std::vector<interp::Tensor> out;
  for (const auto &[path, t] : flattenValues(like, "")) {
    std::optional<interp::Tensor> next = leaf(gpt2::hf_name(path), t);
    if (!next)
      return std::nullopt;
    out.push_back(std::move(*next));
  }
  LeafCursorOf<interp::Tensor> cursor{out};
  return Tree<HostParams>::rebuild(like, cursor);
}

} // namespace

safetensors::File train::toFile(const TrainState &state, const RunIdentity &run) {
  safetensors::File file;
  for (const auto &[path, t] : flattenValues(state.params, ""))
    file.tensors[gpt2::hf_name(path)] = toTensor(t);
  for (const auto &[key, t] : state.opt_state)
    file.tensors[kOptPrefix + key] = toTensor(t);
  for (const auto &[name, t] : file.tensors)
    file.metadata[kCrcPrefix + name] = crc32Of(t.bytes);
  file.metadata.insert({{"format", kFormat},
                   {"step", std::to_string(state.step)},
                   {"data_position", std::to_string(state.step)},
                   {"seed", std::to_string(run.seed)},
                   {"preset", run.preset},
                   {"batch", std::to_string(run.batch)},
                   {"seq", std::to_string(run.seq)}});
  return file;
}

std::optional<TrainState> train::fromFile(const safetensors::File &file, const TrainState &like,
                                          const RunIdentity &run, std::string &error) {
  auto meta = [&](const std::string &key) {
    auto it = file.metadata.find(key);
    return it == file.metadata.end() ? std::string() : it->second;
  };
  if (meta("format") != kFormat) {
    error = "not a cotangent-train checkpoint (format '" + meta("format") + "')";
    return std::nullopt;
  }
  const std::pair<const char *, std::string> identity[] = {
      {"preset", run.preset},
      {"batch", std::to_string(run.batch)},
      {"seq", std::to_string(run.seq)},
      {"seed", std::to_string(run.seed)}};
  for (const auto &[key, want] : identity)
    if (meta(key) != want) {
      error = "made by a run with " + std::string(key) + " " + meta(key) + ", this one has " + want;
      return std::nullopt;
    }
  TrainState state = like;
  size_t used = 0;
  auto take = [&](const std::string &name, const interp::Tensor &leaf) -> std::optional<interp::Tensor> {
    auto it = file.tensors.find(name);
    if (it == file.tensors.end()) {
      error = "tensor '" + name + "' is missing";
      return std::nullopt;
    }
    if (meta(kCrcPrefix + name) != crc32Of(it->second.bytes)) {
      error = "tensor '" + name + "' fails its CRC-32 (corrupt data)";
      return std::nullopt;
    }
    std::string why;
    std::optional<interp::Tensor> t = fromTensor(it->second, leaf, why);
    if (!t) {
      error = "tensor '" + name + "' " + why;
      return std::nullopt;
    }
    ++used;
    return t;
  };
  std::optional<HostParams> params = mapLeaves(like.params, take);
  if (!params)
    return std::nullopt;
  state.params = std::move(*params);
  for (auto &[key, leaf] : state.opt_state) {
    std::optional<interp::Tensor> t = take(kOptPrefix + key, leaf);
    if (!t)
      return std::nullopt;
    leaf = std::move(*t);
  }
  if (used != file.tensors.size()) {
    error = "holds " + std::to_string(file.tensors.size() - used) + " tensors this run does not have";
    return std::nullopt;
  }
  try {
    state.step = std::stoull(meta("step"));
  } catch (const std::exception &) {
    error = "its step '" + meta("step") + "' is not a number";
    return std::nullopt;
  }
  return state;
}

std::optional<std::string> train::loadHfWeights(const safetensors::File &file, HostParams &params) {
  std::string error;
  std::optional<HostParams> loaded =
      mapLeaves(params, [&](const std::string &name, const interp::Tensor &leaf) {
        auto it = file.tensors.find(name);
        if (it == file.tensors.end())
          it = file.tensors.find("transformer." + name);
        if (it == file.tensors.end()) {
          error = "tensor '" + name + "' is missing";
          return std::optional<interp::Tensor>();
        }
        std::string why;
        std::optional<interp::Tensor> t = fromTensor(it->second, leaf, why);
        if (!t)
          error = "tensor '" + it->first + "' " + why;
        return t;
      });
  if (!loaded)
    return error;
  params = std::move(*loaded);
  return std::nullopt;
}

std::string train::checkpointPath(const std::string &dir, uint64_t step) {
  char name[64];
  std::snprintf(name, sizeof name, "step-%08llu.safetensors", static_cast<unsigned long long>(step));
  return (fs::path(dir) / name).string();
}

namespace {

/// The checkpoints of `dir` by step, newest first.
std::vector<std::pair<uint64_t, std::string>> checkpointsIn(const std::string &dir) {
  std::vector<std::pair<uint64_t, std::string>> found;
  std::error_code ec;
  static const std::regex pattern("step-([0-9]{8,})\\.safetensors");
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    std::string name = e.path().filename().string();
    if (std::regex_match(name, m, pattern))
      found.emplace_back(std::stoull(m[1].str()), e.path().string());
  }
  std::sort(found.rbegin(), found.rend());
  return found;
}

} // namespace

void train::pruneCheckpoints(const std::string &dir, int64_t keep) {
  std::error_code ec;
  std::vector<std::pair<uint64_t, std::string>> all = checkpointsIn(dir);
  for (size_t i = static_cast<size_t>(std::max<int64_t>(keep, 0)); i < all.size(); ++i)
    fs::remove(all[i].second, ec);
}

std::optional<std::string> train::saveCheckpoint(const std::string &dir, const TrainState &state,
                                                 const RunIdentity &run, int64_t keep) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return dir + ": " + ec.message();
  // Room first, so that a kill at any moment leaves at most `keep` (and at
  // least keep - 1 good ones); with keep 1 the old one goes only after the
  // new one is whole, so there is always one.
  if (keep >= 2)
    pruneCheckpoints(dir, keep - 1);
  if (auto error = safetensors::writeAtomically(checkpointPath(dir, state.step), toFile(state, run)))
    return error;
  pruneCheckpoints(dir, std::max<int64_t>(keep, 1));
  return std::nullopt;
}

std::optional<TrainState>
train::latestCheckpoint(const std::string &dir, const TrainState &like, const RunIdentity &run,
                        const std::function<void(const std::string &)> &refused) {
  // A run killed while writing leaves its temporary file: never a
  // checkpoint (the rename did not happen), so it goes.
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".tmp" && e.path().stem().extension() == ".safetensors")
      fs::remove(e.path(), ec);
  for (const auto &[step, path] : checkpointsIn(dir)) {
    std::string error;
    std::optional<safetensors::File> file = safetensors::read(path, error);
    std::optional<TrainState> state;
    if (file && (state = fromFile(*file, like, run, error)))
      return state;
    const bool corrupt = !file || error.find("CRC-32") != std::string::npos;
    refused((file ? path + ": " : std::string()) + error);
    // A corrupt checkpoint leaves the rotation (kept aside, as evidence);
    // one of another run stays where it is.
    if (corrupt)
      fs::rename(path, path + ".refused", ec);
  }
  return std::nullopt;
}
