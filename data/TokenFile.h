//===- TokenFile.h - token data: llm.c shards and nanoGPT .bin ---*- C++ -*-===//
//
// A language model's training data is a long run of token ids. Two formats
// are read, memory-mapped, so a shard of any size costs no copy:
//  - llm.c's shard: a header of 256 little-endian int32 (magic 20240520,
//    version 1, the token count), then the tokens as uint16;
//  - nanoGPT's raw .bin: uint16 tokens and nothing else.
// The format is told by the magic. Every malformed file (short header, other
// version, a count the size does not match, an odd size) is refused with a
// message naming what is wrong; fuzz-token-file holds the parser to it.
// Plain C++ (POSIX mmap), no MLIR: cotangent-train and the GPU folder link it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_DATA_TOKENFILE_H
#define COTANGENT_DATA_TOKENFILE_H

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cotangent::data {

enum class TokenFormat { LlmcShard, RawUint16 };

/// llm.c's shard header: 256 int32, of which these three are set.
inline constexpr int32_t kShardMagic = 20240520;
inline constexpr int32_t kShardVersion = 1;
inline constexpr size_t kShardHeaderInts = 256;
inline constexpr size_t kShardHeaderBytes = kShardHeaderInts * sizeof(int32_t);

/// Where the tokens of a file's bytes are, or why there are none.
struct ParsedTokens {
  TokenFormat format = TokenFormat::RawUint16;
  size_t offset = 0; ///< bytes before the first token
  size_t count = 0;  ///< tokens
};
/// Parses the framing of a whole file's `bytes`; returns what is wrong with
/// it, or nullopt when `parsed` is set.
std::optional<std::string> parseTokens(std::string_view bytes, ParsedTokens &parsed);

/// A token file, mapped read-only for its lifetime.
class TokenFile {
public:
  /// Maps `path`; nullopt with `error` set ("PATH: what is wrong") on failure.
  static std::optional<TokenFile> open(const std::string &path, std::string &error);

  TokenFormat format() const { return parsed_.format; }
  std::span<const uint16_t> tokens() const;
  size_t size() const { return parsed_.count; }

private:
  struct Mapping;
  TokenFile(std::shared_ptr<Mapping> mapping, ParsedTokens parsed)
      : mapping_(std::move(mapping)), parsed_(parsed) {}
  std::shared_ptr<Mapping> mapping_;
  ParsedTokens parsed_;
};

/// llm.c shard bytes (header, then the tokens).
std::string shardBytes(std::span<const uint16_t> tokens);
/// Writes `tokens` as an llm.c shard at `path` (through a temporary file
/// renamed into place, so a crash or a full disk never leaves half a
/// shard); returns the error, or nullopt.
std::optional<std::string> writeShard(const std::string &path, std::span<const uint16_t> tokens);

/// The byte-level tokenizer: each byte of UTF-8 `text` is a token (0-255),
/// so any text trains a model with a vocabulary of 256 and no download.
std::vector<uint16_t> byteTokens(std::string_view text);

} // namespace cotangent::data

#endif // COTANGENT_DATA_TOKENFILE_H
