//===- NpyFile.cpp - reading and writing .npy files -----------------------===//

#include "tools/cotangent-step/NpyFile.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace cotangent::step {

namespace {

struct Descr {
  const char *npy;
  DType dtype;
};
const Descr kDescrs[] = {{"<f4", DType::F32}, {"<f8", DType::F64}, {"<f2", DType::F16},
                         {"<i4", DType::I32}, {"<i8", DType::I64}, {"|b1", DType::I1}};

/// The value of `key` in a header dict: the text after "'key':" up to the
/// next ',' or '}' at the same nesting (a shape tuple is kept whole).
bool dictValue(const std::string &header, const std::string &key, std::string &value) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return false;
  at = header.find(':', at);
  if (at == std::string::npos)
    return false;
  int depth = 0;
  size_t end = at + 1;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  value = header.substr(at + 1, end - at - 1);
  size_t first = value.find_first_not_of(" '\""), last = value.find_last_not_of(" '\"");
  value = first == std::string::npos ? "" : value.substr(first, last - first + 1);
  return true;
}

} // namespace

double Array::at(int64_t i) const {
  const char *p = data.data() + i * byteWidth(type.dtype);
  switch (type.dtype) {
  case DType::F32: { float v; std::memcpy(&v, p, 4); return v; }
  case DType::F64: { double v; std::memcpy(&v, p, 8); return v; }
  case DType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
  case DType::I64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
  case DType::I1: return *p != 0;
  case DType::F16: case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    if (type.dtype == DType::BF16) {
      uint32_t bits = static_cast<uint32_t>(h) << 16;
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    }
    int exponent = (h >> 10) & 31, mantissa = h & 1023;
    double v = exponent == 0    ? std::ldexp(mantissa, -24)
               : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                : std::ldexp(mantissa + 1024, exponent - 25);
    return (h & 0x8000) ? -v : v;
  }
  }
  return 0;
}

bool readNpy(const std::string &path, Array &array, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return error = path + ": cannot open", false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const std::string &why) { return error = path + ": " + why, false; };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    return fail("not a .npy file (no \\x93NUMPY magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t lengthBytes = major == 1 ? 2 : 4, start = 8 + lengthBytes;
  if (major < 1 || major > 3 || bytes.size() < start)
    return fail("unsupported .npy version " + std::to_string(major));
  size_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  if (bytes.size() < start + headerLength)
    return fail("truncated header");
  std::string header(bytes.data() + start, headerLength), descr, order, shape;
  if (!dictValue(header, "descr", descr) || !dictValue(header, "fortran_order", order) ||
      !dictValue(header, "shape", shape))
    return fail("the header lacks descr, fortran_order or shape");
  if (order != "False")
    return fail("fortran_order arrays are not supported (save in C order)");
  bool known = false;
  for (const Descr &d : kDescrs)
    if (descr == d.npy) {
      array.type.dtype = d.dtype;
      known = true;
    }
  if (!known)
    return fail("unsupported dtype '" + descr + "' (f32, f64, f16, i32, i64 or bool, little endian)");
  array.type.shape.clear();
  std::string dims = shape.substr(shape.find('(') + 1);
  dims = dims.substr(0, dims.find(')'));
  size_t pos = 0;
  while (pos < dims.size()) {
    size_t next = dims.find(',', pos);
    std::string dim = dims.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    pos = next == std::string::npos ? dims.size() : next + 1;
    if (dim.find_first_not_of(' ') == std::string::npos)
      continue;
    try {
      size_t used = 0;
      long long v = std::stoll(dim, &used);
      if (dim.find_first_not_of(' ', used) != std::string::npos)
        return fail("bad shape " + shape);
      if (v < 0)
        return fail("negative dimension in shape " + shape);
      array.type.shape.push_back(v);
    } catch (...) {
      return fail("bad shape " + shape);
    }
  }
  // A shape whose byte count overflows cannot match the file's size.
  int64_t total = byteWidth(array.type.dtype);
  for (int64_t d : array.type.shape)
    if (__builtin_mul_overflow(total, d, &total))
      return fail("shape " + shape + " is too large");
  size_t dataBytes = static_cast<size_t>(array.type.bytes());
  if (bytes.size() - start - headerLength != dataBytes)
    return fail("holds " + std::to_string(bytes.size() - start - headerLength) +
                " data bytes, its header says " + array.type.str() + " (" +
                std::to_string(dataBytes) + ")");
  array.data.assign(bytes.begin() + start + headerLength, bytes.end());
  return true;
}

bool writeNpy(const std::string &path, const Array &array, std::string &error) {
  const char *descr = nullptr;
  for (const Descr &d : kDescrs)
    if (d.dtype == array.type.dtype)
      descr = d.npy;
  if (!descr)
    return error = path + ": " + dtypeName(array.type.dtype) + " has no .npy dtype", false;
  std::string shape = "(";
  for (int64_t d : array.type.shape)
    shape += std::to_string(d) + ",";
  if (array.type.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                       shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' '); // data aligned to 64 bytes
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return error = path + ": cannot write", false;
  out.write("\x93NUMPY\x01\x00", 8);
  char length[2] = {static_cast<char>(header.size() & 255), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out << header;
  out.write(array.data.data(), static_cast<std::streamsize>(array.data.size()));
  return out.good() ? true : (error = path + ": write failed", false);
}

} // namespace cotangent::step
