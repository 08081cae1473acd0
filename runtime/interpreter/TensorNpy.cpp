//===- TensorNpy.cpp - NumPy .npy files of host tensors -------------------===//
//
// The framing is tools/common/NpyFormat's; here only the dtypes and the
// copy into an interpreter tensor.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/TensorNpy.h"
#include "tools/common/NpyFormat.h"

#include "mlir/IR/Builders.h"

#include <cstring>

using namespace cotangent;
using llvm::StringRef;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<interp::Tensor> npy::parse(mlir::MLIRContext *ctx, StringRef bytes) {
  Header header;
  if (auto error = parseHeader(std::string_view(bytes.data(), bytes.size()), header))
    return fail(*error);
  std::string_view d = header.descr;
  mlir::Builder b(ctx);
  mlir::Type elem;
  if (d == descr::kF32)
    elem = b.getF32Type();
  else if (d == descr::kF64)
    elem = b.getF64Type();
  else if (d == descr::kF16)
    elem = b.getF16Type();
  else if (descr::isBF16(d))
    elem = b.getBF16Type();
  else if (d == descr::kI32)
    elem = b.getI32Type();
  else if (d == descr::kI64)
    elem = b.getI64Type();
  else if (d == descr::kBool)
    elem = b.getI1Type();
  else
    return fail("unsupported dtype '" + StringRef(header.descr) + "' (" +
                StringRef(descr::kSupported) + ")");
  // The shape's bytes, checked against the data before anything is
  // allocated: a hostile header may name more than memory holds.
  auto needed = byteSize(header.shape, elem.isInteger(1) ? 1 : elem.getIntOrFloatBitWidth() / 8);
  if (!needed)
    return fail("the .npy shape is too large");
  if (header.data.size() != *needed)
    return fail("the .npy data has " + llvm::Twine(header.data.size()) +
                " bytes, its shape needs " + llvm::Twine(*needed));
  auto type = mlir::RankedTensorType::get(header.shape, elem);
  interp::Tensor t(type);
  if (t.getByteSize() > 0)
    std::memcpy(t.data(), header.data.data(), header.data.size());
  if (elem.isInteger(1))
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      t.setInt(i, t.data()[i] != 0);
  return t;
}

llvm::Expected<std::string> npy::serialize(const interp::Tensor &tensor) {
  mlir::Type elem = tensor.getElementType();
  std::string_view d;
  if (elem.isF32())
    d = descr::kF32;
  else if (elem.isF64())
    d = descr::kF64;
  else if (elem.isF16())
    d = descr::kF16;
  else if (elem.isBF16())
    d = descr::kBF16;
  else if (elem.isInteger(32))
    d = descr::kI32;
  else if (elem.isInteger(64))
    d = descr::kI64;
  else if (elem.isInteger(1))
    d = descr::kBool;
  else
    return fail(".npy output supports f32, f64, f16, bf16, i32, i64 and bool only");
  auto shape = tensor.getShape();
  std::string out = formatHeader(d, {shape.begin(), shape.end()});
  out.append(tensor.data(), tensor.getByteSize());
  return out;
}
