//===- Tensor.cpp - Host tensors of the reference interpreter -------------===//
//
// Implements the Tensor buffer (shared, copy-on-write, counted by the current
// MemoryScope) and the conversions between stored elements and doubles or
// integers. f16 and bf16 round with APFloat's round-to-nearest-even, so a
// double is rounded once, straight to the storage type.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Tensor.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallVector.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <cassert>
#include <limits>
#include <memory_resource>
#include <optional>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using namespace cotangent::interp;
using llvm::APFloat;
using llvm::APInt;

//===----------------------------------------------------------------------===//
// Memory accounting
//===----------------------------------------------------------------------===//

namespace {
thread_local std::shared_ptr<MemoryCounter> currentCounter;
} // namespace

void MemoryCounter::allocate(int64_t bytes) {
  liveBytes += bytes;
  peakBytes = std::max(peakBytes, liveBytes);
}

void MemoryCounter::release(int64_t bytes) { liveBytes -= bytes; }

MemoryScope::MemoryScope(std::shared_ptr<MemoryCounter> counter)
    : previous(std::move(currentCounter)) {
  currentCounter = std::move(counter);
}

MemoryScope::~MemoryScope() { currentCounter = std::move(previous); }

namespace {

/// Where every Buffer (with its shared_ptr's count) is allocated: a pool
/// that keeps freed ones, so that a step whose results replace its
/// arguments' (a donated training step) allocates nothing for them on the
/// host. Never destroyed: Tensors in other statics may outlive it.
std::pmr::polymorphic_allocator<std::byte> bufferPool() {
  static auto &pool = *new std::pmr::synchronized_pool_resource();
  return &pool;
}

} // namespace

/// The bytes of one or more Tensors: owned (and counted by the MemoryScope
/// current at its birth), or adopted from a runtime, which counts them itself and is
/// handed them back when the last Tensor goes.
struct Tensor::Buffer {
  std::vector<char> bytes;
  std::shared_ptr<MemoryCounter> counter;
  char *adopted = nullptr;
  size_t adoptedSize = 0;
  std::function<void(char *)> release;

  explicit Buffer(std::vector<char> init) : bytes(std::move(init)), counter(currentCounter) {
    if (counter)
      counter->allocate(static_cast<int64_t>(bytes.size()));
  }
  Buffer(char *adopted, size_t size, std::function<void(char *)> release)
      : adopted(adopted), adoptedSize(size), release(std::move(release)) {}
  /// Bytes in a device's memory, not on the host until read (uncounted:
  /// the device's runtime counts its own memory).
  Buffer(DeviceBytes onDevice, size_t size)
      : device(std::move(onDevice)), deviceSize(size), onHost(false) {}
  ~Buffer() {
    if (counter)
      counter->release(static_cast<int64_t>(bytes.size()));
    if (adopted && release)
      release(adopted);
    dropDevice();
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  /// Set once the bytes went to a call: the function they were donated to.
  std::string donatedTo;
  /// Set while a device's memory holds the bytes; `onHost`: whether the
  /// host has them as well (read since).
  std::optional<DeviceBytes> device;
  size_t deviceSize = 0;
  bool onHost = true;

  void checkUsable() const {
    if (!donatedTo.empty())
      throw std::logic_error("this array was donated to " + donatedTo +
                             " and cannot be used after the call: its buffer holds the call's "
                             "result now (use the result, as after jax.jit's donate_argnums)");
  }
  char *data() {
    checkUsable();
    if (!onHost) {
      std::vector<char> host(deviceSize);
      if (deviceSize > 0 && !device->toHost(host.data(), device->block, deviceSize))
        throw std::runtime_error("copying an array from the device to the host failed");
      bytes = std::move(host);
      onHost = true;
    }
    return adopted ? adopted : bytes.data();
  }
  /// Frees the device's copy (the host's is the only one from now on).
  void dropDevice() {
    if (device && device->release)
      device->release(device->block);
    device.reset();
  }
  /// An owned copy of the bytes.
  std::vector<char> copy() {
    const char *from = data();
    return adopted ? std::vector<char>(from, from + adoptedSize) : bytes;
  }
};

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

llvm::FailureOr<ElementKind> cotangent::interp::getElementKind(mlir::Type type) {
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF64())
    return ElementKind::F64;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isSignlessInteger(32))
    return ElementKind::I32;
  if (type.isSignlessInteger(64))
    return ElementKind::I64;
  if (type.isSignlessInteger(1))
    return ElementKind::I1;
  return llvm::failure();
}

bool cotangent::interp::isSupportedType(mlir::Type type) {
  auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(type);
  return ranked && ranked.hasStaticShape() && succeeded(getElementKind(ranked.getElementType()));
}

int64_t cotangent::interp::getElementByteWidth(ElementKind kind) {
  return core::byteWidth(kind);
}

static const llvm::fltSemantics &halfSemantics(ElementKind kind) {
  return kind == ElementKind::F16 ? APFloat::IEEEhalf() : APFloat::BFloat();
}

static uint16_t roundToHalf(double v, ElementKind kind) {
  APFloat f(v);
  bool lost = false;
  f.convert(halfSemantics(kind), APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

static double widenHalf(uint16_t bits, ElementKind kind) {
  if (kind == ElementKind::BF16)
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
  APFloat f(APFloat::IEEEhalf(), APInt(16, bits));
  bool lost = false;
  f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

/// `v` truncated toward zero and saturated to [lo, hi]; NaN becomes 0.
static int64_t saturate(double v, int64_t lo, int64_t hi) {
  if (std::isnan(v))
    return 0;
  if (v <= static_cast<double>(lo))
    return lo;
  if (v >= static_cast<double>(hi))
    return hi;
  return static_cast<int64_t>(v);
}

mlir::LogicalResult cotangent::interp::checkFitsInMemory(mlir::RankedTensorType type,
                                                        mlir::Location loc) {
  static const uint64_t memory = [] {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : ~uint64_t(0);
  }();
  auto kind = getElementKind(type.getElementType());
  uint64_t bytes = succeeded(kind) ? static_cast<uint64_t>(getElementByteWidth(*kind)) : 1;
  bool overflow = false;
  for (int64_t dim : type.getShape())
    overflow |= dim < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes);
  if (!overflow && bytes <= memory)
    return mlir::success();
  auto diag = mlir::emitError(loc) << "the interpreter cannot hold a " << type << ": it needs ";
  if (overflow)
    diag << "more bytes than a 64-bit count holds";
  else
    diag << bytes << " bytes";
  return diag << ", and this machine has " << memory << " bytes of memory";
}

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

Tensor::Tensor(mlir::RankedTensorType type, std::shared_ptr<Buffer> buffer)
    : type(type), kind(*cotangent::interp::getElementKind(type.getElementType())),
      buffer(std::move(buffer)) {}

Tensor::Tensor(mlir::RankedTensorType type)
    : type(type), kind(*cotangent::interp::getElementKind(type.getElementType())) {
  buffer = std::allocate_shared<Buffer>(
      bufferPool(), std::vector<char>(type.getNumElements() * getElementByteWidth(kind), 0));
}

Tensor Tensor::fromDoubles(mlir::RankedTensorType type, llvm::ArrayRef<double> values) {
  Tensor t(type);
  for (int64_t i = 0, e = std::min<int64_t>(t.getNumElements(), values.size()); i < e; ++i)
    t.setDouble(i, values[i]);
  return t;
}

Tensor Tensor::fromInts(mlir::RankedTensorType type, llvm::ArrayRef<int64_t> values) {
  Tensor t(type);
  for (int64_t i = 0, e = std::min<int64_t>(t.getNumElements(), values.size()); i < e; ++i)
    t.setInt(i, values[i]);
  return t;
}

Tensor Tensor::fromAttr(mlir::DenseElementsAttr attr) {
  Tensor t(llvm::cast<mlir::RankedTensorType>(attr.getType()));
  int64_t i = 0;
  if (t.isFloat()) {
    for (APFloat v : attr.getValues<APFloat>()) {
      uint64_t bits = v.bitcastToAPInt().getZExtValue();
      std::memcpy(t.data() + i++ * getElementByteWidth(t.kind), &bits,
                  getElementByteWidth(t.kind)); // little-endian host
    }
    return t;
  }
  for (APInt v : attr.getValues<APInt>())
    t.setInt(i++, t.kind == ElementKind::I1 ? v.getZExtValue() : v.getSExtValue());
  return t;
}

mlir::DenseElementsAttr Tensor::toAttr() const {
  int64_t n = getNumElements();
  if (isFloat()) {
    llvm::SmallVector<APFloat> values;
    values.reserve(n);
    for (int64_t i = 0; i < n; ++i) {
      switch (kind) {
      case ElementKind::F32:
        values.emplace_back(static_cast<float>(getDouble(i)));
        break;
      case ElementKind::F64:
        values.emplace_back(getDouble(i));
        break;
      default: {
        uint16_t bits;
        std::memcpy(&bits, data() + 2 * i, 2);
        values.emplace_back(halfSemantics(kind), APInt(16, bits));
      }
      }
    }
    return mlir::DenseElementsAttr::get(type, values);
  }
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  llvm::SmallVector<APInt> values;
  values.reserve(n);
  for (int64_t i = 0; i < n; ++i)
    values.emplace_back(width, static_cast<uint64_t>(getInt(i)), /*isSigned=*/width > 1);
  return mlir::DenseElementsAttr::get(type, values);
}

int64_t Tensor::getByteSize() const { return getNumElements() * getElementByteWidth(kind); }

const char *Tensor::data() const { return buffer->data(); }

char *Tensor::data() {
  if (buffer.use_count() > 1)
    buffer = std::allocate_shared<Buffer>(bufferPool(), buffer->copy());
  char *bytes = buffer->data();
  buffer->dropDevice(); // written on the host: the device's copy goes stale
  return bytes;
}

Tensor Tensor::clone() const {
  return Tensor(type, std::allocate_shared<Buffer>(bufferPool(), buffer->copy()));
}

Tensor Tensor::adopt(mlir::RankedTensorType type, char *bytes,
                     std::function<void(char *)> release) {
  Tensor t(type, nullptr);
  t.buffer = std::allocate_shared<Buffer>(bufferPool(), bytes,
                                          static_cast<size_t>(t.getByteSize()), std::move(release));
  return t;
}

Tensor Tensor::withType(mlir::RankedTensorType newType) const { return Tensor(newType, buffer); }

Tensor Tensor::donate(mlir::RankedTensorType newType, llvm::StringRef to) const {
  buffer->checkUsable(); // a buffer donated once cannot be donated again
  Tensor t(newType, nullptr);
  assert(t.getByteSize() == getByteSize() && "donate keeps the byte size");
  // The bytes move, with the count they are under and who frees them.
  if (buffer->adopted) {
    t.buffer = std::allocate_shared<Buffer>(bufferPool(), buffer->adopted, buffer->adoptedSize,
                                            std::move(buffer->release));
    buffer->adopted = nullptr;
  } else {
    t.buffer = std::allocate_shared<Buffer>(bufferPool(), std::vector<char>());
    t.buffer->bytes = std::move(buffer->bytes);
    t.buffer->counter = std::move(buffer->counter);
    buffer->bytes = {};
  }
  t.buffer->device = std::move(buffer->device);
  t.buffer->deviceSize = buffer->deviceSize;
  t.buffer->onHost = buffer->onHost;
  buffer->device.reset();
  buffer->onHost = true;
  buffer->donatedTo = to.empty() ? std::string("a call") : to.str();
  return t;
}

Tensor Tensor::onDevice(mlir::RankedTensorType type, DeviceBytes bytes) {
  Tensor t(type, nullptr);
  t.buffer = std::allocate_shared<Buffer>(bufferPool(), std::move(bytes),
                                          static_cast<size_t>(t.getByteSize()));
  return t;
}

void *Tensor::getDeviceBlock(const void *device) const {
  if (!buffer || !buffer->donatedTo.empty() || !buffer->device || buffer->device->device != device)
    return nullptr;
  return buffer->device->block;
}

bool Tensor::isOnDeviceOnly() const { return buffer && buffer->device && !buffer->onHost; }

Tensor Tensor::toHost() const {
  if (!buffer->device)
    return *this;
  return Tensor(type, std::allocate_shared<Buffer>(bufferPool(), buffer->copy()));
}

bool Tensor::isDonated() const { return buffer && !buffer->donatedTo.empty(); }

double Tensor::getDouble(int64_t i) const {
  const char *p = data() + i * getElementByteWidth(kind);
  switch (kind) {
  case ElementKind::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElementKind::F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case ElementKind::F16:
  case ElementKind::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return widenHalf(bits, kind);
  }
  default:
    return static_cast<double>(getInt(i));
  }
}

void Tensor::setDouble(int64_t i, double v) {
  char *p = data() + i * getElementByteWidth(kind);
  switch (kind) {
  case ElementKind::F32: {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
    return;
  }
  case ElementKind::F64:
    std::memcpy(p, &v, 8);
    return;
  case ElementKind::F16:
  case ElementKind::BF16: {
    uint16_t bits = roundToHalf(v, kind);
    std::memcpy(p, &bits, 2);
    return;
  }
  case ElementKind::I32:
    setInt(i, saturate(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
    return;
  case ElementKind::I64:
    setInt(i, saturate(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
    return;
  case ElementKind::I1:
    setInt(i, v != 0.0);
    return;
  }
}

int64_t Tensor::getInt(int64_t i) const {
  const char *p = data() + i * getElementByteWidth(kind);
  switch (kind) {
  case ElementKind::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case ElementKind::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case ElementKind::I1:
    return *p != 0;
  default:
    return saturate(getDouble(i), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max());
  }
}

void Tensor::setInt(int64_t i, int64_t v) {
  char *p = data() + i * getElementByteWidth(kind);
  switch (kind) {
  case ElementKind::I32: {
    auto w = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
    std::memcpy(p, &w, 4);
    return;
  }
  case ElementKind::I64:
    std::memcpy(p, &v, 8);
    return;
  case ElementKind::I1:
    *p = v != 0;
    return;
  default:
    setDouble(i, static_cast<double>(v));
  }
}

void Tensor::copyElement(int64_t i, const Tensor &src, int64_t srcIndex) {
  int64_t width = getElementByteWidth(kind);
  std::memcpy(data() + i * width, src.data() + srcIndex * width, width);
}

llvm::LogicalResult cotangent::interp::checkArguments(mlir::Location loc, llvm::StringRef name,
                                                      llvm::ArrayRef<mlir::RankedTensorType> expected,
                                                      llvm::ArrayRef<Tensor> args, size_t first) {
  if (expected.size() != args.size() + first)
    return mlir::emitError(loc) << "@" << name << " takes " << expected.size()
                                << " arguments, got " << args.size() + first;
  for (auto [i, arg] : llvm::enumerate(args))
    if (arg.getType() != expected[first + i])
      return mlir::emitError(loc) << "@" << name << " argument " << first + i << " must be "
                                  << expected[first + i] << ", got " << arg.getType();
  return llvm::success();
}
