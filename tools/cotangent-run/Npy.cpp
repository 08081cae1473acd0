//===- Npy.cpp - NumPy .npy files of host tensors -------------------------===//
//
// The header is a Python dict literal: {'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), }. Parsing looks for the three keys only.
//
//===----------------------------------------------------------------------===//

#include "tools/cotangent-run/Npy.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>

using namespace cotangent;
using llvm::StringRef;

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The value text after `'key':` in the header dict.
std::optional<StringRef> field(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}

} // namespace

llvm::Expected<interp::Tensor> npy::parse(mlir::MLIRContext *ctx, StringRef bytes) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return fail("not a .npy file (bad magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, start;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated .npy header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[8 + i]);
    start = 12;
  } else {
    return fail("unsupported .npy version " + llvm::Twine(major));
  }
  if (bytes.size() < start + headerLen)
    return fail("truncated .npy header");
  StringRef header = bytes.substr(start, headerLen);
  StringRef data = bytes.drop_front(start + headerLen);

  auto descr = field(header, "descr");
  auto fortran = field(header, "fortran_order");
  auto shapeText = field(header, "shape");
  if (!descr || !fortran || !shapeText)
    return fail("the .npy header lacks descr, fortran_order or shape");
  if (fortran->starts_with("True"))
    return fail("Fortran-order arrays are not supported (save with C order)");
  StringRef d = descr->drop_front().take_until([](char c) { return c == '\''; });
  mlir::Builder b(ctx);
  mlir::Type elem;
  if (d == "<f4")
    elem = b.getF32Type();
  else if (d == "<f8")
    elem = b.getF64Type();
  else if (d == "<i4")
    elem = b.getI32Type();
  else if (d == "<i8")
    elem = b.getI64Type();
  else if (d == "|b1")
    elem = b.getI1Type();
  else
    return fail("unsupported dtype '" + d + "' (f32, f64, i32, i64 or bool, little endian)");

  if (!shapeText->consume_front("("))
    return fail("malformed shape in the .npy header");
  StringRef dims = shapeText->take_until([](char c) { return c == ')'; });
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<StringRef> parts;
  dims.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t n;
    if (part.getAsInteger(10, n) || n < 0)
      return fail("malformed shape in the .npy header");
    shape.push_back(n);
  }
  // The shape's bytes, checked against the data before anything is
  // allocated: a hostile header may name more than memory holds.
  uint64_t needed = elem.isInteger(1) ? 1 : elem.getIntOrFloatBitWidth() / 8;
  for (int64_t n : shape)
    if (__builtin_mul_overflow(needed, static_cast<uint64_t>(n), &needed))
      return fail("the .npy shape is too large");
  if (data.size() != needed)
    return fail("the .npy data has " + llvm::Twine(data.size()) + " bytes, its shape needs " +
                llvm::Twine(needed));
  auto type = mlir::RankedTensorType::get(shape, elem);
  interp::Tensor t(type);
  if (t.getByteSize() > 0)
    std::memcpy(t.data(), data.data(), data.size());
  if (elem.isInteger(1))
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      t.setInt(i, t.data()[i] != 0);
  return t;
}

llvm::Expected<std::string> npy::serialize(const interp::Tensor &tensor) {
  mlir::Type elem = tensor.getElementType();
  std::string descr;
  if (elem.isF32())
    descr = "<f4";
  else if (elem.isF64())
    descr = "<f8";
  else if (elem.isInteger(32))
    descr = "<i4";
  else if (elem.isInteger(64))
    descr = "<i8";
  else if (elem.isInteger(1))
    descr = "|b1";
  else
    return fail(".npy output supports f32, f64, i32, i64 and bool only");
  std::string shape = "(";
  for (int64_t d : tensor.getShape())
    shape += std::to_string(d) + ", ";
  if (tensor.getRank() == 1)
    shape.resize(shape.size() - 1); // "(5,)"
  else if (tensor.getRank() > 1)
    shape.resize(shape.size() - 2);
  shape += ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(tensor.data(), tensor.getByteSize());
  return out;
}
