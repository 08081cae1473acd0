//===- SafetensorsFuzzer.cpp - fuzz-safetensors: the checkpoint reader -----===//
//
// Arbitrary bytes as a safetensors file (checkpoint/Safetensors.h). A file
// is either refused with a message naming it, or every tensor it yields
// has a known dtype and exactly dtype x shape bytes, and writing what was
// read and reading that again gives the same tensors and metadata.
//
//===----------------------------------------------------------------------===//

#include "checkpoint/Safetensors.h"
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  auto fail = [&](const std::string &what) { cotangent::fuzz::violated(what, std::string(bytes)); };
  namespace st = cotangent::safetensors;

  std::string error;
  std::optional<st::File> file = st::parse(bytes, "input", error);
  if (!file) {
    if (error.rfind("input: ", 0) != 0 || error.size() <= 7)
      fail("a refusal names the file and says why");
    return 0;
  }
  for (const auto &[name, t] : file->tensors) {
    size_t elements = 1;
    for (int64_t d : t.shape)
      elements *= static_cast<size_t>(d);
    if (!st::elementBytes(t.dtype) || t.bytes.size() != elements * st::elementBytes(t.dtype))
      fail("tensor '" + name + "' has dtype x shape bytes");
  }
  std::string again = st::serialize(*file);
  std::optional<st::File> reread = st::parse(again, "again", error);
  if (!reread)
    fail("what was read writes and reads back: " + error);
  if (reread->metadata != file->metadata || reread->tensors.size() != file->tensors.size())
    fail("the metadata and the tensor names read back");
  for (const auto &[name, t] : file->tensors) {
    auto it = reread->tensors.find(name);
    if (it == reread->tensors.end() || it->second.dtype != t.dtype ||
        it->second.shape != t.shape || it->second.bytes != t.bytes)
      fail("tensor '" + name + "' reads back the same");
  }
  return 0;
}
