//===- HalfFloat.h - bf16 and IEEE half widened to f32 ----------*- C++ -*-===//
//
// The bits of a bf16 or an IEEE f16 as the f32 they stand for, exactly
// (every such value is an f32): what the CPU runtime's low-float matmul
// widens its operands with, and what cotangent-step reads arrays with; and
// an f32 rounded to either (to nearest, ties to even), as the collectives'
// f32 sums are. No MLIR: they run without it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_HALFFLOAT_H
#define COTANGENT_RUNTIME_HOST_HALFFLOAT_H

#include <bit>
#include <cmath>
#include <cstdint>

namespace cotangent::host {

inline float bf16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

/// Zeros, subnormals, infinities and NaNs included.
inline float f16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu,
                 mantissa = h & 0x3ffu;
  if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
    float v = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -v : v;
  }
  const uint32_t bits = exponent == 0x1f ? sign | 0x7f800000u | (mantissa << 13)
                                         : sign | ((exponent + 112) << 23) | (mantissa << 13);
  return std::bit_cast<float>(bits);
}

/// `f` rounded to the nearest bf16 (ties to even); NaNs stay NaNs.
inline uint16_t floatToBf16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::isnan(f))
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// `f` rounded to the nearest IEEE f16 (ties to even, subnormals, overflow
/// to infinity), by the compiler's own conversion.
inline uint16_t floatToF16(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_HALFFLOAT_H
