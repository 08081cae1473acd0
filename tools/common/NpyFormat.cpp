//===- NpyFormat.cpp - NumPy's .npy container ------------------------------===//
//
// The header is a Python dict literal: {'descr': '<f4', 'fortran_order':
// False, 'shape': (2, 3), }. Parsing looks for the three keys only; a value
// runs to the next ',' or '}' outside parentheses (a shape stays whole).
//
//===----------------------------------------------------------------------===//

#include "tools/common/NpyFormat.h"

#include <charconv>

namespace cotangent::npy {

namespace {

std::string_view trim(std::string_view s, std::string_view chars = " \t\n'\"") {
  size_t first = s.find_first_not_of(chars);
  if (first == std::string_view::npos)
    return {};
  return s.substr(first, s.find_last_not_of(chars) - first + 1);
}

std::optional<std::string_view> dictValue(std::string_view header, std::string_view key) {
  size_t at = header.find("'" + std::string(key) + "'");
  if (at == std::string_view::npos)
    return std::nullopt;
  at = header.find_first_not_of(" \t", at + key.size() + 2);
  if (at == std::string_view::npos || header[at] != ':')
    return std::nullopt;
  int depth = 0;
  size_t end = at + 1;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth <= 0)
      break;
  }
  return trim(header.substr(at + 1, end - at - 1));
}

} // namespace

std::optional<std::string> parseHeader(std::string_view bytes, Header &header) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY")
    return "not a .npy file (no \\x93NUMPY magic)";
  unsigned major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    return "unsupported .npy version " + std::to_string(major);
  size_t lengthBytes = major == 1 ? 2 : 4, start = 8 + lengthBytes;
  if (bytes.size() < start)
    return std::string("truncated .npy header");
  uint64_t length = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  if (bytes.size() - start < length)
    return "truncated .npy header: it says " + std::to_string(length) + " bytes, the file has " +
           std::to_string(bytes.size() - start);
  std::string_view dict = bytes.substr(start, length);
  auto descr = dictValue(dict, "descr");
  auto fortran = dictValue(dict, "fortran_order");
  auto shape = dictValue(dict, "shape");
  if (!descr || !fortran || !shape)
    return std::string("the .npy header lacks descr, fortran_order or shape");
  if (*fortran != "False")
    return std::string("Fortran-order arrays are not supported (save in C order)");
  if (shape->size() < 2 || shape->front() != '(' || shape->back() != ')')
    return "malformed shape '" + std::string(*shape) + "' in the .npy header";
  header.descr = std::string(*descr);
  header.shape.clear();
  std::string_view dims = shape->substr(1, shape->size() - 2);
  while (!dims.empty()) {
    size_t comma = dims.find(',');
    std::string_view dim = trim(dims.substr(0, comma), " \t");
    dims = comma == std::string_view::npos ? std::string_view() : dims.substr(comma + 1);
    if (dim.empty() && trim(dims, " \t").empty())
      break; // "(5,)" and "()"
    int64_t n = -1;
    auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), n);
    if (ec != std::errc() || end != dim.data() + dim.size() || n < 0)
      return "malformed shape '" + std::string(*shape) + "' in the .npy header";
    header.shape.push_back(n);
  }
  header.data = bytes.substr(start + length);
  return std::nullopt;
}

std::optional<uint64_t> byteSize(const std::vector<int64_t> &shape, uint64_t itemBytes) {
  uint64_t bytes = itemBytes;
  for (int64_t n : shape)
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(n), &bytes))
      return std::nullopt;
  return bytes;
}

std::string formatHeader(std::string_view descr, const std::vector<int64_t> &shape) {
  std::string dims = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    dims += (i ? ", " : "") + std::to_string(shape[i]);
  dims += shape.size() == 1 ? ",)" : ")";
  std::string dict =
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + dims + ", }";
  dict.append(63 - (10 + dict.size()) % 64, ' ');
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

} // namespace cotangent::npy
