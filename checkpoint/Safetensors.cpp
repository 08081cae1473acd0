//===- Safetensors.cpp - Hugging Face's safetensors format -----------------===//

#include "checkpoint/Safetensors.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <unistd.h>

using namespace cotangent;

namespace {

/// The header is padded with spaces to this, as Hugging Face's writer does,
/// so the data of every tensor starts aligned.
constexpr size_t kHeaderAlignment = 8;

std::string errnoText() { return std::strerror(errno); }

/// Writes all of `data` to `fd`.
bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string parentDirectory(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

size_t safetensors::elementBytes(std::string_view dtype) {
  static const std::map<std::string_view, size_t> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},   {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I16", 2},
      {"U16", 2},  {"F16", 2}, {"BF16", 2}, {"I32", 4},     {"U32", 4},     {"F32", 4},
      {"I64", 8},  {"U64", 8}, {"F64", 8}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

std::string safetensors::serialize(const File &file) {
  llvm::json::Object header;
  uint64_t offset = 0;
  for (const auto &[name, t] : file.tensors) {
    llvm::json::Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    header[name] = llvm::json::Object{
        {"dtype", t.dtype},
        {"shape", std::move(shape)},
        {"data_offsets", llvm::json::Array{offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  if (!file.metadata.empty()) {
    llvm::json::Object metadata;
    for (const auto &[k, v] : file.metadata)
      metadata[k] = v;
    header["__metadata__"] = std::move(metadata);
  }
  std::string json;
  llvm::raw_string_ostream(json) << llvm::json::Value(std::move(header));
  json.append((kHeaderAlignment - json.size() % kHeaderAlignment) % kHeaderAlignment, ' ');
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += json;
  for (const auto &[name, t] : file.tensors)
    out += t.bytes;
  return out;
}

std::optional<safetensors::File> safetensors::parse(std::string_view bytes, const std::string &name,
                                                    std::string &error) {
  auto fail = [&](const std::string &what) {
    error = name + ": " + what;
    return std::nullopt;
  };
  if (bytes.size() < 8)
    return fail("too short for a safetensors header (" + std::to_string(bytes.size()) + " bytes)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  if (n > bytes.size() - 8)
    return fail("the header claims " + std::to_string(n) + " bytes, the file has " +
                std::to_string(bytes.size() - 8) + " after the length (truncated?)");
  auto parsed = llvm::json::parse(bytes.substr(8, n));
  if (!parsed)
    return fail("the header is not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *header = parsed->getAsObject();
  if (!header)
    return fail("the header is not a JSON object");
  std::string_view data = bytes.substr(8 + n);
  File file;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto &[key, value] : *header) {
    std::string tensorName = key.str();
    if (tensorName == "__metadata__") {
      const llvm::json::Object *m = value.getAsObject();
      if (!m)
        return fail("__metadata__ is not an object");
      for (const auto &[k, v] : *m) {
        auto s = v.getAsString();
        if (!s)
          return fail("metadata '" + k.str() + "' is not a string");
        file.metadata[k.str()] = s->str();
      }
      continue;
    }
    auto bad = [&](const std::string &what) { return fail("tensor '" + tensorName + "': " + what); };
    const llvm::json::Object *entry = value.getAsObject();
    if (!entry)
      return bad("not an object");
    Tensor t;
    auto dtype = entry->getString("dtype");
    if (!dtype || !elementBytes(*dtype))
      return bad("unknown dtype" + (dtype ? " '" + dtype->str() + "'" : std::string()));
    t.dtype = dtype->str();
    const llvm::json::Array *shape = entry->getArray("shape");
    const llvm::json::Array *offsets = entry->getArray("data_offsets");
    if (!shape || !offsets || offsets->size() != 2)
      return bad("needs a shape and two data_offsets");
    uint64_t elements = 1;
    for (const llvm::json::Value &d : *shape) {
      auto v = d.getAsInteger();
      if (!v || *v < 0 || (*v > 0 && elements > std::numeric_limits<uint64_t>::max() / 16 / *v))
        return bad("a dimension is not a size");
      elements *= static_cast<uint64_t>(*v);
      t.shape.push_back(*v);
    }
    auto begin = (*offsets)[0].getAsInteger(), end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin ||
        static_cast<uint64_t>(*end) > data.size())
      return bad("data_offsets outside the " + std::to_string(data.size()) + " data bytes");
    uint64_t size = static_cast<uint64_t>(*end - *begin);
    if (size != elements * elementBytes(t.dtype))
      return bad(std::to_string(size) + " bytes for " + std::to_string(elements) + " " + t.dtype +
                 " elements");
    t.bytes.assign(data.substr(static_cast<size_t>(*begin), size));
    ranges.emplace_back(*begin, *end);
    file.tensors.emplace(tensorName, std::move(t));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second)
      return fail("two tensors' data_offsets overlap");
  return file;
}

std::optional<safetensors::File> safetensors::read(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": " + errnoText();
    return std::nullopt;
  }
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = path + ": " + errnoText();
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0)
      break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return parse(bytes, path, error);
}

std::optional<std::string> safetensors::writeAtomically(const std::string &path, const File &file) {
  const std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return temporary + ": " + errnoText();
  if (!writeAll(fd, serialize(file)) || ::fsync(fd) != 0) {
    std::string why = temporary + ": " + errnoText();
    ::close(fd);
    ::unlink(temporary.c_str());
    return why;
  }
  if (::close(fd) != 0) {
    std::string why = temporary + ": " + errnoText();
    ::unlink(temporary.c_str());
    return why;
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string why = path + ": " + errnoText();
    ::unlink(temporary.c_str());
    return why;
  }
  // The rename is durable once the directory is.
  int dir = ::open(parentDirectory(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return std::nullopt;
}
