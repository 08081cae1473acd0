//===- NpyFile.cpp - reading and writing .npy files -----------------------===//

#include "tools/cotangent-step/NpyFile.h"
#include "tools/common/NpyFormat.h"
#include "runtime/host/HalfFloat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace cotangent::step {

namespace {

struct Descr {
  std::string_view npy;
  DType dtype;
};
const Descr kDescrs[] = {
    {npy::descr::kF32, DType::F32}, {npy::descr::kF64, DType::F64},
    {npy::descr::kF16, DType::F16}, {npy::descr::kBF16, DType::BF16},
    {npy::descr::kI32, DType::I32}, {npy::descr::kI64, DType::I64},
    {npy::descr::kBool, DType::I1}};

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
    return type.dtype == DType::BF16 ? cotangent::host::bf16ToFloat(h)
                                     : cotangent::host::f16ToFloat(h);
  }
  }
  return 0;
}

void Array::set(int64_t i, double v) {
  char *p = data.data() + i * byteWidth(type.dtype);
  auto store = [p](auto x) { std::memcpy(p, &x, sizeof(x)); };
  switch (type.dtype) {
  case DType::F32: store(static_cast<float>(v)); break;
  case DType::F64: store(v); break;
  case DType::I32: store(static_cast<int32_t>(v)); break;
  case DType::I64: store(static_cast<int64_t>(v)); break;
  case DType::I1: *p = v != 0; break;
  case DType::F16: store(static_cast<_Float16>(v)); break;
  case DType::BF16: {
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    // The upper half, rounded to nearest even (a NaN stays a quiet NaN).
    store(static_cast<uint16_t>(std::isnan(f) ? 0x7FC0
                                              : (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16));
    break;
  }
  }
}

bool readNpy(const std::string &path, Array &array, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return error = path + ": cannot open", false;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const std::string &why) { return error = path + ": " + why, false; };
  npy::Header header;
  if (auto why = npy::parseHeader(bytes, header))
    return fail(*why);
  const Descr *match = std::find_if(std::begin(kDescrs), std::end(kDescrs), [&](const Descr &d) {
    return d.dtype == DType::BF16 ? npy::descr::isBF16(header.descr) : header.descr == d.npy;
  });
  if (match == std::end(kDescrs))
    return fail("unsupported dtype '" + header.descr + "' (" +
                std::string(npy::descr::kSupported) + ")");
  array.type.dtype = match->dtype;
  array.type.shape = header.shape;
  // A shape whose byte count overflows cannot match the file's size.
  auto dataBytes = npy::byteSize(header.shape, byteWidth(array.type.dtype));
  if (!dataBytes)
    return fail("shape " + array.type.str() + " is too large");
  if (header.data.size() != *dataBytes)
    return fail("holds " + std::to_string(header.data.size()) + " data bytes, its header says " +
                array.type.str() + " (" + std::to_string(*dataBytes) + ")");
  array.data.assign(header.data.begin(), header.data.end());
  return true;
}

bool writeNpy(const std::string &path, const Array &array, std::string &error) {
  std::string_view descr;
  for (const Descr &d : kDescrs)
    if (d.dtype == array.type.dtype)
      descr = d.npy;
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return error = path + ": cannot write", false;
  out << npy::formatHeader(descr, array.type.shape);
  out.write(array.data.data(), static_cast<std::streamsize>(array.data.size()));
  return out.good() ? true : (error = path + ": write failed", false);
}

} // namespace cotangent::step
