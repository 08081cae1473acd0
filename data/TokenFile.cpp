//===- TokenFile.cpp - parsing, mapping and writing token files -----------===//

#include "data/TokenFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

using namespace cotangent::data;

namespace {

int32_t readInt32(std::string_view bytes, size_t index) {
  int32_t v;
  std::memcpy(&v, bytes.data() + index * sizeof(int32_t), sizeof(v));
  return v; // little endian, as llm.c writes (x86-64 and AArch64 hosts)
}

} // namespace

std::optional<std::string> cotangent::data::parseTokens(std::string_view bytes,
                                                        ParsedTokens &parsed) {
  if (bytes.size() >= sizeof(int32_t) && readInt32(bytes, 0) == kShardMagic) {
    if (bytes.size() < kShardHeaderBytes)
      return "an llm.c shard header is " + std::to_string(kShardHeaderBytes) +
             " bytes, the file has " + std::to_string(bytes.size());
    int32_t version = readInt32(bytes, 1), count = readInt32(bytes, 2);
    if (version != kShardVersion)
      return "llm.c shard version " + std::to_string(version) + ", expected " +
             std::to_string(kShardVersion);
    if (count < 0)
      return "the llm.c header's token count is negative (" + std::to_string(count) + ")";
    size_t tokens = (bytes.size() - kShardHeaderBytes) / sizeof(uint16_t);
    if (static_cast<size_t>(count) != tokens || (bytes.size() - kShardHeaderBytes) % 2)
      return "the llm.c header says " + std::to_string(count) + " tokens, the file holds " +
             std::to_string(bytes.size() - kShardHeaderBytes) + " bytes after it";
    if (count == 0)
      return "the file holds no tokens";
    parsed = {TokenFormat::LlmcShard, kShardHeaderBytes, static_cast<size_t>(count)};
    return std::nullopt;
  }
  if (bytes.empty())
    return "the file holds no tokens";
  if (bytes.size() % sizeof(uint16_t))
    return "a raw .bin of uint16 tokens has an even size, this one " +
           std::to_string(bytes.size()) + " bytes (and no llm.c magic " +
           std::to_string(kShardMagic) + ")";
  parsed = {TokenFormat::RawUint16, 0, bytes.size() / sizeof(uint16_t)};
  return std::nullopt;
}

struct TokenFile::Mapping {
  void *address = MAP_FAILED;
  size_t bytes = 0;
  ~Mapping() {
    if (address != MAP_FAILED)
      munmap(address, bytes);
  }
};

std::optional<TokenFile> TokenFile::open(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
    ::close(fd);
    return std::nullopt;
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->bytes = static_cast<size_t>(st.st_size);
  if (mapping->bytes > 0)
    mapping->address = mmap(nullptr, mapping->bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  int mapErrno = errno;
  ::close(fd);
  if (mapping->bytes > 0 && mapping->address == MAP_FAILED) {
    error = path + ": cannot map: " + std::strerror(mapErrno);
    return std::nullopt;
  }
  std::string_view bytes(static_cast<const char *>(mapping->bytes ? mapping->address : nullptr),
                         mapping->bytes);
  ParsedTokens parsed;
  if (std::optional<std::string> why = parseTokens(bytes, parsed)) {
    error = path + ": " + *why;
    return std::nullopt;
  }
  return TokenFile(std::move(mapping), parsed);
}

std::span<const uint16_t> TokenFile::tokens() const {
  // The header is 1024 bytes, so the tokens are aligned in a page mapping.
  const char *base = static_cast<const char *>(mapping_->address) + parsed_.offset;
  return {reinterpret_cast<const uint16_t *>(base), parsed_.count};
}

std::string cotangent::data::shardBytes(std::span<const uint16_t> tokens) {
  std::string out(kShardHeaderBytes + tokens.size() * sizeof(uint16_t), '\0');
  int32_t header[3] = {kShardMagic, kShardVersion, static_cast<int32_t>(tokens.size())};
  std::memcpy(out.data(), header, sizeof(header));
  if (!tokens.empty())
    std::memcpy(out.data() + kShardHeaderBytes, tokens.data(), tokens.size() * sizeof(uint16_t));
  return out;
}

std::optional<std::string> cotangent::data::writeShard(const std::string &path,
                                                       std::span<const uint16_t> tokens) {
  if (tokens.size() > static_cast<size_t>(INT32_MAX))
    return path + ": an llm.c shard holds at most " + std::to_string(INT32_MAX) + " tokens";
  std::string bytes = shardBytes(tokens);
  std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      return temporary + ": " + std::strerror(errno);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::string why = std::strerror(errno);
      out.close();
      std::remove(temporary.c_str());
      return temporary + ": " + why;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    return path + ": " + why;
  }
  return std::nullopt;
}

std::vector<uint16_t> cotangent::data::byteTokens(std::string_view text) {
  std::vector<uint16_t> out;
  out.reserve(text.size());
  for (char c : text)
    out.push_back(static_cast<uint8_t>(c));
  return out;
}
