//===- Safetensors.h - Hugging Face's safetensors format -------*- C++ -*-===//
//
// The file format of Hugging Face's `safetensors`: an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte
// range in the data that follows, and string metadata ("__metadata__").
// Reading checks everything the header claims against the file (ranges
// inside the data, sizes that match dtype x shape, no overlaps, known
// dtypes) and names the file and tensor at fault. Plain C++ and LLVM's
// JSON: no MLIR, so any tool or library can read and write checkpoints.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_CHECKPOINT_SAFETENSORS_H
#define COTANGENT_CHECKPOINT_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cotangent::safetensors {

/// One tensor: safetensors' dtype name ("F32", "BF16", "I32", ...), its
/// shape and its bytes, row-major, little-endian.
struct Tensor {
  std::string dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

struct File {
  /// By name; written in name order (the format's header is a JSON object).
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;
};

/// Bytes per element of a safetensors dtype, or 0 for a name it has none for.
size_t elementBytes(std::string_view dtype);

/// The whole file's bytes.
std::string serialize(const File &file);
/// Parses `bytes` (read from `name`, which errors name); nullopt with
/// `error` set ("NAME: tensor 'x': ...") if anything is wrong.
std::optional<File> parse(std::string_view bytes, const std::string &name, std::string &error);

/// Reads and parses `path`.
std::optional<File> read(const std::string &path, std::string &error);
/// Writes `file` to `path` atomically: a temporary file in the same
/// directory, flushed to the disk, renamed over `path`, and the directory
/// flushed, so a crash or a full disk leaves either the old file or the new
/// one, never part of one. Returns the error, or nullopt.
std::optional<std::string> writeAtomically(const std::string &path, const File &file);

} // namespace cotangent::safetensors

#endif // COTANGENT_CHECKPOINT_SAFETENSORS_H
