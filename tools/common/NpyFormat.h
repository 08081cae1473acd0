//===- NpyFormat.h - NumPy's .npy container, without MLIR -------*- C++ -*-===//
//
// The one reader and writer of the .npy framing (versions 1-3): magic,
// version, the header dict's descr / fortran_order / shape, and the data
// bytes after it. Each tool maps `descr` to its own element types:
// cotangent-run to the interpreter's tensors (runtime/interpreter/TensorNpy.h),
// cotangent-step, which carries no MLIR, to its manifest's dtypes. Plain
// C++ so the self-contained GPU folder can link it; fuzzed by fuzz-npy.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TOOLS_COMMON_NPYFORMAT_H
#define COTANGENT_TOOLS_COMMON_NPYFORMAT_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cotangent::npy {

/// The `descr` of each dtype the tools read and write. NumPy has no bf16:
/// `np.save` of an ml_dtypes `bfloat16` array (what a JAX bf16 array gives)
/// writes 2-byte void, `<V2`, which the tools read as bf16 ("|V2" too).
namespace descr {
inline constexpr std::string_view kF32 = "<f4", kF64 = "<f8", kF16 = "<f2", kBF16 = "<V2",
                                  kI32 = "<i4", kI64 = "<i8", kBool = "|b1";
inline bool isBF16(std::string_view d) { return d == kBF16 || d == "|V2"; }
/// What an error about another dtype lists.
inline constexpr std::string_view kSupported =
    "f32, f64, f16, bf16 as <V2, i32, i64 or bool, little endian";
} // namespace descr

struct Header {
  std::string descr;          ///< e.g. "<f4", "|b1"
  std::vector<int64_t> shape; ///< () for a scalar
  std::string_view data;      ///< the bytes after the header
};

/// Parses the framing of a whole .npy file. Returns what is wrong with it
/// (truncated, bad magic or version, a dict without the three keys, Fortran
/// order, a malformed or negative shape), or nullopt when `header` is set.
std::optional<std::string> parseHeader(std::string_view bytes, Header &header);

/// The bytes of `shape` with `itemBytes` per element, or nullopt when the
/// count overflows: a hostile header may name more than any memory holds,
/// so callers compare this with the data before allocating.
std::optional<uint64_t> byteSize(const std::vector<int64_t> &shape, uint64_t itemBytes);

/// A version 1.0 header (magic to newline) for C-order data, padded so the
/// data starts at a multiple of 64 bytes.
std::string formatHeader(std::string_view descr, const std::vector<int64_t> &shape);

} // namespace cotangent::npy

#endif // COTANGENT_TOOLS_COMMON_NPYFORMAT_H
