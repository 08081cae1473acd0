//===- Tensor.h - Host tensors of the reference interpreter -----*- C++ -*-===//
//
// A Tensor is a ranked tensor type plus a row-major byte buffer. Element
// types are those of the jx dialect: f32, f64, f16, bf16, i32, i64 and i1
// (stored as one byte per element, 0 or 1).
//
// Buffers are shared between copies of a Tensor (copying is cheap, as for an
// SSA value that several uses read) and copied on the first write through
// `data()` or a setter while shared. While a `MemoryScope` is active, every
// buffer allocated on the thread is counted by the scope's `MemoryCounter`
// from its allocation until the last Tensor that refers to it is destroyed.
//
// A device runtime may leave a tensor's bytes in its device's memory
// (`onDevice`): calls of that runtime read them there, and the host gets a
// copy only when something reads the tensor (JAX's arrays on a device).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_TENSOR_H
#define COTANGENT_RUNTIME_INTERPRETER_TENSOR_H

#include "runtime/core/TensorType.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace cotangent::interp {

/// Counts the bytes of the tensor buffers allocated while it is the current
/// counter of a `MemoryScope`.
struct MemoryCounter {
  int64_t liveBytes = 0;
  int64_t peakBytes = 0;
  void allocate(int64_t bytes);
  void release(int64_t bytes);
};

/// Makes `counter` the counter of every buffer allocated on this thread while
/// the scope lives (scopes nest; the previous counter comes back afterwards).
class MemoryScope {
public:
  explicit MemoryScope(std::shared_ptr<MemoryCounter> counter);
  ~MemoryScope();
  MemoryScope(const MemoryScope &) = delete;
  MemoryScope &operator=(const MemoryScope &) = delete;

private:
  std::shared_ptr<MemoryCounter> previous;
};

/// The element types of jx, as the interpreter dispatches on them.
/// The element types jx has: the runtime's one dtype (runtime/core/TensorType.h).
using ElementKind = core::DType;

/// The kind of `type`, or failure for a type jx does not have.
llvm::FailureOr<ElementKind> getElementKind(mlir::Type type);

/// True when `type` is a ranked static tensor of a jx element type.
bool isSupportedType(mlir::Type type);

/// Bytes one element of `kind` occupies in a buffer (i1: one byte).
int64_t getElementByteWidth(ElementKind kind);

/// Success when a tensor of `type` (a supported type) fits in this
/// machine's memory; else an error at `loc` saying how many bytes it needs.
/// The interpreter holds every tensor in host memory: a shape too large is
/// an error where it appears, not an abort inside the allocator.
mlir::LogicalResult checkFitsInMemory(mlir::RankedTensorType type, mlir::Location loc);

class Tensor {
public:
  /// A zero-filled tensor of `type` (a static shape of a jx element type).
  explicit Tensor(mlir::RankedTensorType type);

  /// A tensor of `type` holding `values` (row-major, one per element),
  /// converted to the element type: floats round to nearest even, integers
  /// truncate toward zero (wrapping), i1 is `v != 0`.
  static Tensor fromDoubles(mlir::RankedTensorType type, llvm::ArrayRef<double> values);
  /// Same for integer values (floats convert to nearest, i1 is `v != 0`).
  static Tensor fromInts(mlir::RankedTensorType type, llvm::ArrayRef<int64_t> values);
  /// The tensor holding `attr`'s elements (splats are expanded).
  static Tensor fromAttr(mlir::DenseElementsAttr attr);

  /// A tensor of `type` over `bytes` (row-major, getByteSize() of them) that
  /// it does not allocate: `release(bytes)` runs when the last Tensor sharing
  /// them is gone, and the first write through a shared one copies them. A
  /// runtime hands over a result's block this way instead of copying it.
  static Tensor adopt(mlir::RankedTensorType type, char *bytes,
                      std::function<void(char *)> release);

  /// Bytes in a device's memory, as the runtime that holds them describes
  /// them: the block, which runtime's (`device`, an identity), how the host
  /// reads them and how they are freed.
  struct DeviceBytes {
    const void *device = nullptr;
    void *block = nullptr;
    /// Copies the block's first `bytes` to `host`, after the work queued to
    /// write them; false when the device failed.
    std::function<bool(char *host, const void *block, size_t bytes)> toHost;
    std::function<void(void *block)> release;
  };
  /// A tensor of `type` whose bytes are `bytes.block` in a device's memory
  /// (getByteSize() of them, row-major). The first read on the host copies
  /// them over (and keeps the copy); the first write on the host leaves the
  /// device's copy, which is freed then, or when the last Tensor sharing it
  /// is gone.
  static Tensor onDevice(mlir::RankedTensorType type, DeviceBytes bytes);
  /// The block in `device`'s memory that holds this tensor's bytes, or null
  /// (a host tensor, another device's, or one written on the host since).
  void *getDeviceBlock(const void *device) const;
  /// Whether the bytes are in a device's memory only (no host read yet).
  bool isOnDeviceOnly() const;
  /// A tensor whose bytes are in host memory: this one when they are; else
  /// a host copy (the device's stays with this tensor).
  Tensor toHost() const;

  /// The elements as a dense attribute, for printing and FileCheck.
  mlir::DenseElementsAttr toAttr() const;

  mlir::RankedTensorType getType() const { return type; }
  mlir::Type getElementType() const { return type.getElementType(); }
  ElementKind getElementKind() const { return kind; }
  llvm::ArrayRef<int64_t> getShape() const { return type.getShape(); }
  int64_t getRank() const { return type.getRank(); }
  int64_t getNumElements() const { return type.getNumElements(); }
  int64_t getByteSize() const;
  bool isFloat() const { return kind != ElementKind::I32 && kind != ElementKind::I64 && kind != ElementKind::I1; }

  /// Element `flatIndex` (row-major) as a double (exact for every float type
  /// and for integers up to 2^53).
  double getDouble(int64_t flatIndex) const;
  /// Stores `v` converted to the element type (see `fromDoubles`).
  void setDouble(int64_t flatIndex, double v);
  /// Element `flatIndex` as an integer (floats truncate toward zero).
  int64_t getInt(int64_t flatIndex) const;
  /// Stores `v` converted to the element type (integers wrap).
  void setInt(int64_t flatIndex, int64_t v);

  /// The raw bytes of element `flatIndex` copied from `src` element
  /// `srcIndex`; both tensors must have one element type.
  void copyElement(int64_t flatIndex, const Tensor &src, int64_t srcIndex);

  const char *data() const;
  /// The mutable buffer; unshares it first if other Tensors refer to it.
  char *data();

  /// A tensor of `newType` (same element type and element count) that shares
  /// this tensor's buffer: reshapes, squeezes and identities cost no bytes.
  Tensor withType(mlir::RankedTensorType newType) const;

  /// A copy with a buffer of its own (counted by the current MemoryScope).
  Tensor clone() const;

  /// An identity for the buffer, equal for Tensors that share one.
  const void *getBufferId() const { return buffer.get(); }

  /// A tensor of `newType` (this one's byte size) that takes over this
  /// tensor's bytes without copying them, leaving every Tensor that shared
  /// them donated: reading one throws std::logic_error naming `to`. What a
  /// runtime does with an argument donated to a call (JAX's donate_argnums)
  /// once a result was written over its bytes.
  Tensor donate(mlir::RankedTensorType newType, llvm::StringRef to) const;
  /// Whether the buffer went to a call it was donated to.
  bool isDonated() const;

private:
  struct Buffer;
  Tensor(mlir::RankedTensorType type, std::shared_ptr<Buffer> buffer);

  mlir::RankedTensorType type;
  ElementKind kind;
  std::shared_ptr<Buffer> buffer;
};

/// Checks that `args` fit `expected[first...]` (count and types), emitting
/// "@name takes N arguments, got M" / "@name argument i must be T, got U" at
/// `loc`; the compiled runtimes check calls with it.
llvm::LogicalResult checkArguments(mlir::Location loc, llvm::StringRef name,
                                   llvm::ArrayRef<mlir::RankedTensorType> expected,
                                   llvm::ArrayRef<Tensor> args, size_t first = 0);

} // namespace cotangent::interp

#endif // COTANGENT_RUNTIME_INTERPRETER_TENSOR_H
