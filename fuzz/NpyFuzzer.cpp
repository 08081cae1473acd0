//===- NpyFuzzer.cpp - fuzz-npy: the .npy readers ---------------------------===//
//
// Arbitrary bytes as a .npy file through the framing every tool shares
// (tools/common/NpyFormat) and cotangent-run's reader into a tensor. A file
// either is refused with a message or reads back to a tensor whose bytes
// are the file's data and which writes out and reads back the same.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzSupport.h"
#include "tools/common/NpyFormat.h"
#include "runtime/interpreter/TensorNpy.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context for the run: the reader makes a handful of tensor types.
  static mlir::MLIRContext *ctx = cotangent::fuzz::makeContext().release();
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto fail = [&](const std::string &what) {
    cotangent::fuzz::violated(what, bytes.str());
  };

  cotangent::npy::Header header;
  std::optional<std::string> refused = cotangent::npy::parseHeader({bytes.data(), size}, header);
  if (!refused && header.data.data() + header.data.size() != bytes.data() + size)
    fail("the data is the file's tail");

  auto tensor = cotangent::npy::parse(ctx, bytes);
  if (!tensor) {
    std::string message = llvm::toString(tensor.takeError());
    if (message.empty())
      fail("a refusal says why");
    return 0;
  }
  if (refused)
    fail("cotangent-run read a file the framing refused: " + *refused);
  if (static_cast<uint64_t>(tensor->getByteSize()) != header.data.size())
    fail("the tensor holds the file's data bytes");
  auto written = cotangent::npy::serialize(*tensor);
  if (!written)
    fail("a tensor read from .npy writes back: " + llvm::toString(written.takeError()));
  auto again = cotangent::npy::parse(ctx, *written);
  if (!again)
    fail("a written .npy reads back: " + llvm::toString(again.takeError()));
  if (again->getType() != tensor->getType() ||
      (tensor->getByteSize() > 0 &&
       std::memcmp(again->data(), tensor->data(), tensor->getByteSize()) != 0))
    fail("write then read gives the same tensor");
  return 0;
}
